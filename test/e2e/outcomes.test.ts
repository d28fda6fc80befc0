/**
 * One rule for what holds back writes, and one vocabulary of outcomes (issue 34, item 3). A
 * manifest problem found while planning (an alert naming a webhook no one has) holds back its
 * target's writes as one found while loading (a typo'd kind) does; and after either, stdout's
 * `Result:`, stderr's `Apply <target>:` lines and `--output json` give the same counts, in the
 * same words.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CURRENT_IDS, type RunningEmulator } from '../../src/emulator/index.js';
import { OUTCOMES, type Outcome } from '../../src/model/plan.js';
import { describeRun } from '../helpers/e2e.js';
import {
  createWorkspace,
  emulatorStats,
  resetEmulatorStats,
  startTestEmulator,
  type CliResult,
  type Workspace,
} from '../helpers/workspace.js';

const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 };

const SOURCE = `apiVersion: stacksync/v1
kind: Source
metadata: { name: shop-logs, target: local }
spec:
  name: Shop logs
  kind: log
  connectionId: "${DEFAULT_CURRENT_IDS.service.connection}"
  from: { databaseName: otel, tableName: shop_logs }
  timestampValueExpression: Timestamp
  defaultTableSelectExpression: Timestamp, Body
`;
const SEARCH = `apiVersion: stacksync/v1
kind: SavedSearch
metadata: { name: shop-errors, target: local }
spec:
  name: Shop errors
  source: shop-logs
  where: "level:error"
`;
const ALERT = `apiVersion: stacksync/v1
kind: Alert
metadata: { name: shop-errors, target: local }
spec:
  name: Shop errors
  source: saved_search
  savedSearch: shop-errors
  threshold: 5
  thresholdType: above
  interval: 5m
  channel: { type: webhook, webhook: nobody-has-this-webhook }
`;
const TYPO = SEARCH.replace('kind: SavedSearch', 'kind: SavedSaerch').replace('shop-errors', 'other-errors');

/** `N word` counts of one summary line, by outcome. */
function countsIn(line: string): Record<Outcome, number> {
  return Object.fromEntries(
    OUTCOMES.map((outcome) => [outcome, Number(new RegExp(`(\\d+) ${outcome}\\b`).exec(line)?.[1] ?? 0)]),
  ) as Record<Outcome, number>;
}

function lineStarting(text: string, prefix: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(prefix));
}

let emulator: RunningEmulator;
let workspace: Workspace;

beforeAll(async () => {
  emulator = await startTestEmulator({ profile: 'current' });
  workspace = await createWorkspace(emulator.url, { rateLimit: FAST, apiProfile: 'current' });
});

afterAll(async () => {
  await workspace?.dispose();
  await emulator?.close();
});

async function applyBoth(): Promise<{ text: CliResult; json: CliResult }> {
  await resetEmulatorStats(emulator.url);
  const text = await workspace.run(['apply']);
  const json = await workspace.run(['apply', '--output', 'json']);
  return { text, json };
}

function expectOneSummary(text: CliResult, json: CliResult, want: Partial<Record<Outcome, number>>): void {
  const [result] = lineStarting(text.stdout, 'Result: ');
  expect(result, describeRun(text)).toBeDefined();
  const stdout = countsIn(result ?? '');
  expect(stdout).toMatchObject(want);
  // The per-target lines on stderr add up to the result line on stdout.
  const perTarget = lineStarting(text.stderr, 'Apply ').map(countsIn);
  expect(perTarget.length, describeRun(text)).toBeGreaterThan(0);
  const summed = Object.fromEntries(
    OUTCOMES.map((outcome) => [outcome, perTarget.reduce((sum, counts) => sum + counts[outcome], 0)]),
  );
  expect(summed).toEqual(stdout);
  const document = JSON.parse(json.stdout) as { outcomes: Record<Outcome, number>; changes: { outcome?: Outcome }[] };
  expect(document.outcomes).toMatchObject(want);
  for (const outcome of OUTCOMES)
    expect(document.changes.filter((change) => change.outcome === outcome).length, outcome).toBe(
      document.outcomes[outcome],
    );
}

describe('a manifest problem found while planning', () => {
  it('holds back every write of its target, and every output counts it alike', async () => {
    await workspace.write('manifests/shop.yaml', [SOURCE, SEARCH, ALERT].join('---\n'));
    const { text, json } = await applyBoth();
    expect(text.code, describeRun(text)).toBe(1);
    expect((await emulatorStats(emulator.url)).writes).toBe(0);
    expect(text.stdout).toMatch(
      /not applied: 2 changes: E_MANIFEST_BLOCKED: the manifests of target local have errors/,
    );
    expectOneSummary(text, json, { created: 0, failed: 1, skipped: 0, 'not applied': 2 });
  });
});

describe('a manifest problem found while loading', () => {
  it('holds back every write of its target, and every output counts it alike', async () => {
    await workspace.write('manifests/shop.yaml', [SOURCE, SEARCH].join('---\n'));
    await workspace.write('manifests/typo.yaml', TYPO);
    const { text, json } = await applyBoth();
    expect(text.code, describeRun(text)).toBe(1);
    expect((await emulatorStats(emulator.url)).writes).toBe(0);
    expectOneSummary(text, json, { created: 0, failed: 0, skipped: 0, 'not applied': 2 });
  });
});
