/**
 * The bad-input corpus (issue 8): every case runs `stacksync validate` and `stacksync apply
 * --prune` on a workspace whose baseline is already applied and owned, with the case's broken
 * manifest or config laid over it. Each must exit 1 with the expected error at its file and
 * line, never crash or hang, and change nothing live: no write reaches the emulator and its dump
 * is unchanged. A control case shows that the same harness does see a prune when a file is
 * really removed, so "nothing changed" is not vacuous.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crashOf, createLimiter, parseJson } from '../helpers/cli-checks.js';
import { emulatorDump, emulatorStats, resetEmulatorStats, type CliResult } from '../helpers/workspace.js';
import {
  leakForms,
  loadCases,
  openCase,
  prepareBaseline,
  type Baseline,
  type CorpusCase,
  type Expectation,
} from './runner.js';

const cases = await loadCases();
/** Two cores: three cases at once keeps the CPU busy without starving the emulators. */
const limit = createLimiter(3);
/**
 * A run that takes longer than this is a hang. The slowest case (10,000 documents, each an error)
 * takes 7 s on an idle 2-core machine and three times that on a busy one.
 */
const RUN_TIMEOUT_MS = 40_000;

let baseline: Baseline;
beforeAll(async () => {
  baseline = await prepareBaseline();
}, 60_000);
afterAll(async () => {
  if (baseline) await rm(baseline.dir, { recursive: true, force: true });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `file:line:column: CODE: …message…`, the line validate prints for a problem (code included). */
function validateLine(expected: Expectation): RegExp {
  let where = expected.file === undefined ? '' : escape(expected.file);
  if (expected.line !== undefined) where += `:${expected.line}`;
  if (expected.column !== undefined) where += `:${expected.column}`;
  return new RegExp(`^${where}(:\\d+)*: ${expected.code}: .*${escape(expected.message)}`, 'm');
}

function describeRun(result: CliResult): string {
  return `exit ${result.code}\n--- stdout\n${result.stdout.slice(0, 4000)}\n--- stderr\n${result.stderr.slice(0, 4000)}`;
}

interface JsonPlanError {
  code?: string;
  file?: string;
  line?: number;
  column?: number;
  message?: string;
}

/**
 * The expected error in `apply --output json`: in the plan's errors, or (config, usage) as the
 * last record on stderr (off a terminal, --output json logs JSON records, the last word too).
 */
function findApplyError(result: CliResult, expected: Expectation): boolean {
  const plan = parseJson(result.stdout) as { errors?: JsonPlanError[] } | undefined;
  if (plan?.errors) {
    return plan.errors.some(
      (error) =>
        error.code === expected.code &&
        error.file === expected.file &&
        (expected.line === undefined || error.line === expected.line) &&
        (expected.column === undefined || error.column === expected.column) &&
        (error.message ?? '').includes(expected.message),
    );
  }
  const last = parseJson(result.stderr.trimEnd().split('\n').at(-1) ?? '') as
    | (JsonPlanError & { level?: number; msg?: string; problems?: JsonPlanError[] })
    | undefined;
  if (last?.level !== 50 || last.code !== expected.code) return false;
  // One problem is the record's own location; several are listed in `problems`.
  const places = last.problems ?? [{ ...last, message: last.msg ?? '' }];
  return places.some(
    (place) =>
      place.file === expected.file &&
      (expected.line === undefined || place.line === expected.line) &&
      (expected.column === undefined || place.column === expected.column) &&
      (place.message ?? '').includes(expected.message),
  );
}

describe.concurrent('bad input corpus', () => {
  it('has at least 40 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  for (const spec of cases) {
    it(`${spec.name}: ${spec.why}`, () => limit(() => runCase(spec)), 90_000);
  }

  it(
    'control: really removing a baseline file is pruned, so the no-write checks can fail',
    () =>
      limit(async () => {
        const world = await openCase(baseline, {
          name: 'control',
          dir: '/nonexistent',
          why: 'control',
          expect: NO_EXPECTATION,
          validate: { ...NO_EXPECTATION, exit: 1 },
          apply: NO_EXPECTATION,
          env: {},
          secrets: [],
          notOrphaned: [],
        });
        try {
          await world.workspace.remove('manifests/dashboards.yaml');
          await world.workspace.remove('manifests/alerts.yaml');
          const result = await world.workspace.run(['apply', '--prune'], { timeoutMs: RUN_TIMEOUT_MS });
          expect(result.code, describeRun(result)).toBe(0);
          const stats = await emulatorStats(world.url);
          expect(
            stats.routes.filter((route) => route.method === 'DELETE').reduce((sum, route) => sum + route.count, 0),
          ).toBe(4);
        } finally {
          await world.close();
        }
      }),
    90_000,
  );
});

const NO_EXPECTATION: Expectation = { code: 'E_USAGE', message: '' };

/** `Kind/name` of the changes apply's plan lists as orphans or deletes of `subject`. */
function orphanedOf(result: CliResult, subject: string): string[] {
  const plan = parseJson(result.stdout) as { changes?: { kind: string; name: string; action: string }[] } | undefined;
  return (plan?.changes ?? [])
    .filter((change) => change.action === 'orphan' || change.action === 'delete')
    .map((change) => `${change.kind}/${change.name}`)
    .filter((name) => name === subject);
}

async function runCase(spec: CorpusCase): Promise<void> {
  const world = await openCase(baseline, spec);
  try {
    const before = await emulatorDump(world.url);
    await resetEmulatorStats(world.url);

    const validate = await world.workspace.run(['validate'], { timeoutMs: RUN_TIMEOUT_MS });
    expect(crashOf(validate), describeRun(validate)).toBeUndefined();
    expect(validate.code, describeRun(validate)).toBe(spec.validate.exit);
    if (spec.validate.exit !== 0)
      expect(validate.stdout, `validate should report ${JSON.stringify(spec.validate)}`).toMatch(
        validateLine(spec.validate),
      );

    const apply = await world.workspace.run(['apply', '--prune', '--output', 'json'], { timeoutMs: RUN_TIMEOUT_MS });
    expect(crashOf(apply), describeRun(apply)).toBeUndefined();
    expect(apply.code, describeRun(apply)).toBe(1);
    expect(apply.stdout + apply.stderr, 'a message repeats its own prefix').not.toMatch(/(target [\w.-]+: )\1/);
    expect(
      findApplyError(apply, spec.apply),
      `apply should report ${JSON.stringify(spec.apply)}\n${describeRun(apply)}`,
    ).toBe(true);
    for (const subject of spec.notOrphaned)
      expect(orphanedOf(apply, subject), `${subject}: its broken manifest made it an orphan`).toEqual([]);

    for (const secret of spec.secrets) {
      for (const form of leakForms(secret)) {
        for (const [name, text] of Object.entries({
          'validate stdout': validate.stdout,
          'validate stderr': validate.stderr,
          'apply stdout': apply.stdout,
          'apply stderr': apply.stderr,
        })) {
          expect(text.includes(form), `${name} holds a secret as ${JSON.stringify(form)}`).toBe(false);
        }
      }
    }

    const stats = await emulatorStats(world.url);
    expect(stats.writes, 'writes reached the emulator').toBe(0);
    expect(await emulatorDump(world.url)).toEqual(before);
  } finally {
    await world.close();
  }
}
