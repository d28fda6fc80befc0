/**
 * The pull-request flow end to end (issue 14), against the emulator: a change set with an edit,
 * a new dashboard with its alert, a deleted manifest, a pipe taken under management with a
 * credential, and a broken file. `plan --output markdown` is the PR comment; `plan --out` saves
 * the plan; an out-of-band edit of a planned resource makes `apply --plan` refuse it, naming the
 * resource and writing nothing; once the live resource is back as planned, `apply --plan` makes
 * exactly the planned writes.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { DEFAULT_SEED_IDS } from '../../src/emulator/index.js';
import type { DashboardResource } from '../../src/emulator/model.js';
import {
  alertYaml,
  dashboardName,
  dashboardYaml,
  describeRun,
  documents,
  liveTarget,
  readState,
  ROUTES,
  updateDashboardOutOfBand,
  writesByRoute,
} from '../helpers/e2e.js';
import {
  createWorkspace,
  emulatorStats,
  resetEmulatorStats,
  startTestEmulator,
  type CliResult,
  type Workspace,
} from '../helpers/workspace.js';

const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 };
const PASSWORD = 'pr-flow-Pa55word-3c9e1d!';
const ROTATED = 'pr-flow-Pa55word-rotated-77aa';
const SHA = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const GITHUB = { GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'acme/observability', GITHUB_SHA: SHA };
const BLOB = `https://github.com/acme/observability/blob/${SHA}/`;

const API_V1 = documents([
  dashboardYaml({ key: 'api', target: 'local', tiles: [{ name: 'p99', w: 12 }, 'errors'] }),
  alertYaml({ key: 'api-slow', target: 'local', dashboard: 'api', tile: 'p99', threshold: 500 }),
]);
const API_V2 = documents([
  dashboardYaml({ key: 'api', target: 'local', tiles: [{ name: 'p99', w: 18 }, 'errors'] }),
  alertYaml({ key: 'api-slow', target: 'local', dashboard: 'api', tile: 'p99', threshold: 500 }),
]);
const CHECKOUT = documents([
  dashboardYaml({ key: 'checkout', target: 'local', tiles: ['latency'] }),
  alertYaml({ key: 'checkout-slow', target: 'local', dashboard: 'checkout', tile: 'latency', threshold: 250 }),
]);
const PIPE = `apiVersion: stacksync/v1
kind: Pipe
metadata:
  name: orders-kafka
  target: local
spec:
  pipeId: ${DEFAULT_SEED_IDS.pipes.kafka}
  source:
    kafka:
      credentials:
        username: orders
        password: { fromEnv: PR_KAFKA_PASSWORD }
  settings:
    streaming_max_insert_wait_ms: 2500
`;
const BROKEN = dashboardYaml({ key: 'broken', target: 'local', tiles: [{ name: 'wide', w: 99 }] });

/** The writes the reviewed plan makes: one per planned change. */
const PLANNED_WRITES = {
  [`PUT ${ROUTES.managedDashboard}`]: 1,
  [`POST ${ROUTES.managedDashboards}`]: 1,
  [`POST ${ROUTES.managedAlerts}`]: 1,
  [`PATCH ${ROUTES.managedPipe}`]: 1,
};

let emulator: RunningEmulator;
let workspace: Workspace;
const outputs: string[] = [];

async function run(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const result = await workspace.run(args, { env: { PR_KAFKA_PASSWORD: PASSWORD, ...GITHUB, ...env } });
  outputs.push(result.stdout, result.stderr);
  return result;
}

async function liveApiDashboard(): Promise<DashboardResource> {
  const found = (await liveTarget(emulator.url, 'local')).dashboards.find(
    (dashboard) => dashboard.name === dashboardName('api'),
  );
  if (!found) throw new Error('Dashboard api is not live');
  return found;
}

function lineOf(text: string, needle: string): number {
  return text.split('\n').findIndex((line) => line.includes(needle)) + 1;
}

beforeAll(async () => {
  emulator = await startTestEmulator();
  workspace = await createWorkspace(emulator.url, { rateLimit: FAST });
  // main: the api dashboard with its alert and a legacy dashboard, applied.
  await workspace.write('.git/HEAD', 'ref: refs/heads/main\n');
  await workspace.write('manifests/api.yaml', API_V1);
  await workspace.write('manifests/legacy.yaml', dashboardYaml({ key: 'legacy', target: 'local' }));
  const applied = await run(['apply']);
  expect(applied.code, describeRun(applied)).toBe(0);
  // The pull request: an edit, a new dashboard with its alert, a deleted manifest, a pipe
  // with a credential, and a broken file.
  await workspace.write('manifests/api.yaml', API_V2);
  await workspace.write('manifests/checkout.yaml', CHECKOUT);
  await workspace.remove('manifests/legacy.yaml');
  await workspace.write('manifests/orders-pipe.yaml', PIPE);
  await workspace.write('manifests/broken.yaml', BROKEN);
});

afterAll(async () => {
  await workspace?.dispose();
  await emulator?.close();
});

describe('a pull request, planned as a PR comment', () => {
  let markdown: CliResult;
  beforeAll(async () => {
    markdown = await run(['plan', '--output', 'markdown', '--detailed-exitcode']);
  });

  it('exits 1: the broken file is an error', () => {
    expect(markdown.code, describeRun(markdown)).toBe(1);
  });

  it('starts with the marker line and gives the counts, orphan included', () => {
    expect(markdown.stdout.split('\n')[0]).toBe('<!-- stacksync-plan -->');
    expect(markdown.stdout).toContain(
      '**Plan: 2 to create, 2 to update, 0 to delete, 0 to adopt, 1 orphaned (apply --prune deletes them), 1 unchanged, 1 error.**',
    );
  });

  it('lists the error first, linked to its line', () => {
    const line = lineOf(BROKEN, 'w: 99');
    const error = markdown.stdout.indexOf(
      `[\`manifests/broken.yaml:${line}:10\`](${BLOB}manifests/broken.yaml#L${line})`,
    );
    expect(error, markdown.stdout).toBeGreaterThan(0);
    expect(error).toBeLessThan(markdown.stdout.indexOf('<details'));
  });

  it('shows the edit, the new dashboard and alert, the pipe and the orphan, each linked to its manifest', () => {
    const text = markdown.stdout;
    expect(text).toContain(
      `**\`~ update\`** \`Dashboard/api\` · [\`manifests/api.yaml:1\`](${BLOB}manifests/api.yaml#L1)`,
    );
    expect(text).toContain('- tiles[p99].w: 12\n+ tiles[p99].w: 18');
    expect(text).toContain(
      `**\`+ create\`** \`Dashboard/checkout\` · [\`manifests/checkout.yaml:1\`](${BLOB}manifests/checkout.yaml#L1)`,
    );
    expect(text).toContain(
      `**\`+ create\`** \`Alert/checkout-slow\` · [\`manifests/checkout.yaml:${lineOf(CHECKOUT, '---') + 1}\`]`,
    );
    expect(text).toMatch(
      /\*\*`\? orphan`\*\* `Dashboard\/legacy` · id `[0-9a-f-]{36}`\n_no manifest names it; apply --prune deletes it_/,
    );
    expect(text).toContain('<summary><b>local</b> · Dashboard: 1 to create, 1 to update, 1 orphaned</summary>');
  });

  it('shows the credential as (sensitive), never its value', () => {
    expect(markdown.stdout).toContain('+ source.kafka.credentials: (sensitive)');
    for (const output of [markdown.stdout, markdown.stderr]) expect(output).not.toContain(PASSWORD);
  });

  it('--output github writes the same comment into the job summary', async () => {
    const summary = join(workspace.dir, 'step-summary.md');
    await workspace.write('step-summary.md', '');
    const result = await run(['plan', '--output', 'github'], { GITHUB_STEP_SUMMARY: summary });
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stdout).toMatch(/^::error file=manifests\/broken\.yaml,line=\d+,col=10::/m);
    expect(await readFile(summary, 'utf8')).toBe(`${markdown.stdout}\n`);
  });
});

describe('a saved plan', () => {
  const planFile = 'artifacts/plan.json';
  let saved: string;
  beforeAll(async () => {
    const result = await run(['plan', '--out', planFile]);
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stderr).toContain(`saved the plan to ${planFile}`);
    saved = await readFile(join(workspace.dir, planFile), 'utf8');
  });

  it('is the JSON plan plus a fingerprint, holding no secret value', () => {
    const file = JSON.parse(saved) as {
      summary: Record<string, number>;
      saved: { format: string; formatVersion: number; request: unknown };
    };
    expect(file.summary).toEqual({
      create: 2,
      update: 2,
      replace: 0,
      delete: 0,
      adopt: 0,
      orphan: 1,
      suspended: 0,
      unchanged: 1,
      errors: 1,
    });
    expect(file.saved).toMatchObject({
      format: 'stacksync-saved-plan',
      formatVersion: 2,
      request: { targets: ['local', 'local-selfhosted'], prune: false, adopt: false },
    });
    expect(saved).not.toContain(PASSWORD);
    expect(saved).toContain('(sensitive)');
  });

  it('is refused after an out-of-band edit of a planned resource, naming it, and writes nothing', async () => {
    const before = await liveApiDashboard();
    const tags = [...before.tags, 'edited-in-the-console'];
    await updateDashboardOutOfBand(emulator.url, 'local', before.id, { name: before.name, tags, tiles: before.tiles });
    await resetEmulatorStats(emulator.url);
    const result = await run(['apply', '--plan', planFile]);
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stderr).toContain('E_PLAN_STALE');
    expect(result.stderr).toContain('local/Dashboard/api: changed live since the plan');
    expect(writesByRoute(await emulatorStats(emulator.url))).toEqual({});
    // Put it back as it was: the plan holds again (what counts is content, not timestamps).
    await updateDashboardOutOfBand(emulator.url, 'local', before.id, {
      name: before.name,
      tags: before.tags,
      tiles: before.tiles,
    });
  });

  it('is refused when a secret now resolves to another value', async () => {
    await resetEmulatorStats(emulator.url);
    const result = await run(['apply', '--plan', planFile], { PR_KAFKA_PASSWORD: ROTATED });
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stderr).toContain(
      'local/Pipe/orders-kafka: the secret at source.kafka.credentials.password resolves to another value than the one planned',
    );
    expect(writesByRoute(await emulatorStats(emulator.url))).toEqual({});
  });

  it('cannot be overridden by --prune, --adopt or --target', async () => {
    const result = await run(['apply', '--plan', planFile, '--prune']);
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stderr).toContain('E_USAGE: --plan applies the saved plan as it was made; --prune cannot change it');
  });

  it('writes nothing to a target whose manifests had errors, as apply without a saved plan', async () => {
    await resetEmulatorStats(emulator.url);
    const result = await run(['apply', '--plan', planFile]);
    expect(result.code, describeRun(result)).toBe(1);
    expect(writesByRoute(await emulatorStats(emulator.url))).toEqual({});
  });

  it('applies exactly the planned writes when nothing changed (--allow-partial: the broken file stays broken)', async () => {
    await resetEmulatorStats(emulator.url);
    const result = await run(['apply', '--plan', planFile, '--allow-partial']);
    // The broken file is still an error, as it was in the plan.
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stdout).toContain(
      'Plan: 2 to create, 2 to update, 0 to delete, 0 to adopt, 1 orphaned (apply --prune deletes them), 1 unchanged, 1 error.',
    );
    expect(writesByRoute(await emulatorStats(emulator.url))).toEqual(PLANNED_WRITES);
    const live = await liveTarget(emulator.url, 'local');
    expect(live.dashboards.map((dashboard) => dashboard.name).sort()).toEqual([
      dashboardName('api'),
      dashboardName('checkout'),
      dashboardName('legacy'),
    ]);
    expect((await liveApiDashboard()).tiles.find((tile) => tile.name === 'p99')?.w).toBe(18);
    const state = await readState(workspace.statePath);
    expect(Object.keys(state.targets['local']?.inventory.Alert ?? {}).sort()).toEqual(['api-slow', 'checkout-slow']);
  });

  it('is refused once applied: what it planned is done', async () => {
    const result = await run(['apply', '--plan', planFile]);
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stderr).toMatch(
      /local\/Dashboard\/checkout: is no longer a change to make \(it was planned as create\)/,
    );
  });

  it('no output held the credential', () => {
    for (const output of outputs) expect(output).not.toContain(PASSWORD);
  });
});
