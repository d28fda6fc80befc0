/**
 * `stacksync plan` end to end (issue 4): the built CLI against the emulator on loopback, both
 * variants. JSON shape and exit codes as docs/reference/cli.md fixes them, the text and GitHub renderings,
 * and a broken manifest that is reported without hiding the rest or letting a prune through.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { DEFAULT_SEED_IDS } from '../../src/emulator/index.js';
import {
  alertYaml,
  createDashboardOutOfBand,
  dashboardYaml,
  describeRun,
  documents,
  parseJsonOutput,
  writesByRoute,
  type PlanJson,
} from '../helpers/e2e.js';
import {
  createWorkspace,
  emulatorStats,
  resetEmulatorStats,
  startTestEmulator,
  type Workspace,
} from '../helpers/workspace.js';

const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 };

/** 1-based line of the first line of `text` that equals `line` (after `from`). */
function lineOf(text: string, line: string, from = 1): number {
  const lines = text.split('\n');
  const index = lines.findIndex((candidate, i) => i + 1 >= from && candidate === line);
  if (index < 0) throw new Error(`no line "${line}" in:\n${text}`);
  return index + 1;
}

/** Line of the `apiVersion:` that opens the document whose metadata.name is `key`. */
function documentLine(text: string, key: string): number {
  const lines = text.split('\n');
  const nameLine = lines.indexOf(`  name: ${key}`);
  for (let i = nameLine; i >= 0; i--) if (lines[i]?.startsWith('apiVersion:')) return i + 1;
  throw new Error(`no document ${key}`);
}

const SUMMARY_KEYS = ['create', 'update', 'replace', 'delete', 'adopt', 'orphan', 'suspended', 'unchanged', 'errors'];
const CHANGE_KEYS = new Set([
  'target',
  'kind',
  'name',
  'action',
  'id',
  'file',
  'line',
  'diff',
  'reclaimed',
  'warnings',
  'result',
  'error',
]);
const ACTIONS = new Set(['create', 'update', 'delete', 'adopt', 'orphan', 'unchanged', 'error']);

/** Checks the document against docs/reference/cli.md's shape, key by key, and returns it. */
function expectPlanShape(plan: PlanJson): PlanJson {
  const keys = Object.keys(plan);
  expect(keys.slice(0, 4)).toEqual(['version', 'summary', 'changes', 'errors']);
  expect(keys.filter((key) => key !== 'warnings' && key !== 'estimate')).toHaveLength(4);
  expect(plan.version).toBe(1);
  expect(Object.keys(plan.summary)).toEqual(SUMMARY_KEYS);
  for (const value of Object.values(plan.summary)) expect(Number.isInteger(value)).toBe(true);
  for (const change of plan.changes) {
    expect(Object.keys(change).slice(0, 4)).toEqual(['target', 'kind', 'name', 'action']);
    for (const key of Object.keys(change)) expect(CHANGE_KEYS.has(key), `unexpected change member ${key}`).toBe(true);
    expect(ACTIONS.has(change.action)).toBe(true);
    expect(Array.isArray(change.diff)).toBe(true);
    for (const diff of change.diff) {
      expect(typeof diff.path).toBe('string');
      for (const key of Object.keys(diff)) expect(['path', 'before', 'after']).toContain(key);
    }
    if (change.action === 'delete' || change.action === 'orphan') {
      expect(change.file).toBeUndefined();
    } else {
      expect(change.file, `${change.kind}/${change.name} has a file`).toMatch(/^manifests\/.+\.ya?ml$/);
      expect(Number.isInteger(change.line)).toBe(true);
    }
    if (['update', 'delete', 'adopt', 'orphan', 'unchanged'].includes(change.action))
      expect(change.id, `${change.kind}/${change.name} has an id`).toBeTruthy();
    if (change.action === 'create') expect(change.id).toBeUndefined();
  }
  for (const error of plan.errors) {
    expect(Object.keys(error).slice(0, 4)).toEqual(['file', 'line', 'column', 'message']);
    expect(typeof error.message).toBe('string');
  }
  // The summary counts what the changes say.
  for (const action of ['create', 'update', 'delete', 'adopt', 'orphan', 'unchanged'] as const) {
    expect(plan.summary[action], action).toBe(plan.changes.filter((change) => change.action === action).length);
  }
  expect(plan.summary.errors).toBe(
    plan.errors.length + plan.changes.filter((change) => change.action === 'error').length,
  );
  return plan;
}

function change(plan: PlanJson, target: string, kind: string, name: string): PlanJson['changes'][number] {
  const found = plan.changes.find(
    (candidate) => candidate.target === target && candidate.kind === kind && candidate.name === name,
  );
  if (!found)
    throw new Error(
      `no change ${target}/${kind}/${name} in ${JSON.stringify(plan.changes.map((c) => `${c.target}/${c.kind}/${c.name}`))}`,
    );
  return found;
}

const EVENTS_S3 = (pollingMs: number): string => `apiVersion: stacksync/v1
kind: Pipe
metadata:
  name: events-s3
  target: local
spec:
  pipeId: ${DEFAULT_SEED_IDS.pipes.objectStorage}
  settings:
    object_storage_polling_interval_ms: ${pollingMs}
`;

const MANAGED_FILE = documents([
  dashboardYaml({ key: 'api', target: 'local', tags: ['api'], tiles: ['p99', 'errors'] }),
  alertYaml({ key: 'api-slow', target: 'local', dashboard: 'api', tile: 'p99', threshold: 500 }),
  alertYaml({ key: 'api-failing', target: 'local', dashboard: 'api', tile: 'errors', threshold: 5 }),
]);
const SELFHOSTED_FILE = documents([
  dashboardYaml({ key: 'health', target: 'local-selfhosted', tiles: ['logs'] }),
  alertYaml({ key: 'health-spike', target: 'local-selfhosted', dashboard: 'health', tile: 'logs' }),
]);

describe('stacksync plan against the emulator', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  beforeAll(async () => {
    emulator = await startTestEmulator();
    workspace = await createWorkspace(emulator.url, { rateLimit: FAST });
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  it('exits 0 on an empty manifests directory with --detailed-exitcode', async () => {
    const result = await workspace.run(['plan', '--detailed-exitcode', '--output', 'json']);
    expect(result.code, describeRun(result)).toBe(0);
    const plan = expectPlanShape(parseJsonOutput(result));
    expect(plan.summary).toEqual({
      create: 0,
      update: 0,
      replace: 0,
      delete: 0,
      adopt: 0,
      orphan: 0,
      suspended: 0,
      unchanged: 0,
      errors: 0,
    });
    expect(plan.changes).toEqual([]);
    expect(plan.errors).toEqual([]);
  });

  it('plans creates on both variants and a pipe update: JSON shape, exit 2, nothing written', async () => {
    await workspace.write('manifests/managed.yaml', MANAGED_FILE);
    await workspace.write('manifests/selfhosted.yaml', SELFHOSTED_FILE);
    await workspace.write('manifests/pipe.yaml', EVENTS_S3(15000));
    await resetEmulatorStats(emulator.url);

    const result = await workspace.run(['plan', '--output', 'json', '--detailed-exitcode']);
    expect(result.code, describeRun(result)).toBe(2);
    expect(result.stderr).toBe('');
    const plan = expectPlanShape(parseJsonOutput(result));
    expect(plan.summary).toEqual({
      create: 5,
      update: 1,
      replace: 0,
      delete: 0,
      adopt: 0,
      orphan: 0,
      suspended: 0,
      unchanged: 0,
      errors: 0,
    });

    const dashboard = change(plan, 'local', 'Dashboard', 'api');
    expect(dashboard).toMatchObject({
      action: 'create',
      file: 'manifests/managed.yaml',
      line: documentLine(MANAGED_FILE, 'api'),
    });
    expect(dashboard.diff).toContainEqual({ path: 'name', after: 'Dashboard api' });
    expect(change(plan, 'local', 'Alert', 'api-failing')).toMatchObject({
      action: 'create',
      line: documentLine(MANAGED_FILE, 'api-failing'),
    });
    expect(change(plan, 'local-selfhosted', 'Dashboard', 'health')).toMatchObject({
      action: 'create',
      file: 'manifests/selfhosted.yaml',
      line: 1,
    });
    expect(change(plan, 'local-selfhosted', 'Alert', 'health-spike')).toMatchObject({
      action: 'create',
      line: documentLine(SELFHOSTED_FILE, 'health-spike'),
    });
    const pipe = change(plan, 'local', 'Pipe', 'events-s3');
    expect(pipe).toMatchObject({
      action: 'update',
      id: DEFAULT_SEED_IDS.pipes.objectStorage,
      file: 'manifests/pipe.yaml',
      line: 1,
    });
    expect(pipe.diff).toEqual([{ path: 'settings.object_storage_polling_interval_ms', before: 30000, after: 15000 }]);

    // A dry run: reads only, and no state file or key appears.
    const stats = await emulatorStats(emulator.url);
    expect(stats.writes).toBe(0);
    expect(existsSync(workspace.statePath)).toBe(false);
  });

  it('without --detailed-exitcode a plan with changes exits 0', async () => {
    const result = await workspace.run(['plan']);
    expect(result.code, describeRun(result)).toBe(0);
    expect(result.stdout).toContain('Plan: 5 to create, 1 to update, 0 to delete, 0 to adopt, 0 unchanged, 0 errors.');
  });

  it('after apply the plan is empty (exit 0) and lists every resource as unchanged with its id', async () => {
    const applied = await workspace.run(['apply']);
    expect(applied.code, describeRun(applied)).toBe(0);
    const result = await workspace.run(['plan', '--output', 'json', '--detailed-exitcode']);
    expect(result.code, describeRun(result)).toBe(0);
    const plan = expectPlanShape(parseJsonOutput(result));
    expect(plan.summary).toEqual({
      create: 0,
      update: 0,
      replace: 0,
      delete: 0,
      adopt: 0,
      orphan: 0,
      suspended: 0,
      unchanged: 6,
      errors: 0,
    });
    const text = await workspace.run(['plan', '--detailed-exitcode']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('No changes');
  });

  describe('with an update, a delete and an adoption on both targets', () => {
    const SELFHOSTED_V2 = documents([
      dashboardYaml({ key: 'health', target: 'local-selfhosted', tiles: ['logs'] }),
      dashboardYaml({ key: 'ops', target: 'local-selfhosted', name: 'Ops by hand' }),
    ]);
    let json: PlanJson;
    let text: string;
    beforeAll(async () => {
      // Managed: a wider tile and a changed threshold; self-hosted: the alert removed (pruned),
      // and on each a same-named dashboard someone created by hand.
      await workspace.write(
        'manifests/managed.yaml',
        documents([
          dashboardYaml({ key: 'api', target: 'local', tags: ['api'], tiles: [{ name: 'p99', w: 18 }, 'errors'] }),
          alertYaml({ key: 'api-slow', target: 'local', dashboard: 'api', tile: 'p99', threshold: 750 }),
          alertYaml({ key: 'api-failing', target: 'local', dashboard: 'api', tile: 'errors', threshold: 5 }),
          dashboardYaml({ key: 'handmade', target: 'local', name: 'Made by hand' }),
        ]),
      );
      await workspace.write('manifests/selfhosted.yaml', SELFHOSTED_V2);
      await createDashboardOutOfBand(emulator.url, 'local', 'Made by hand');
      await createDashboardOutOfBand(emulator.url, 'local-selfhosted', 'Ops by hand');
      await resetEmulatorStats(emulator.url);
      const jsonRun = await workspace.run(['plan', '--prune', '--output', 'json', '--detailed-exitcode']);
      expect(jsonRun.code, describeRun(jsonRun)).toBe(2);
      json = expectPlanShape(parseJsonOutput(jsonRun));
      const textRun = await workspace.run(['plan', '--prune', '--detailed-exitcode']);
      expect(textRun.code, describeRun(textRun)).toBe(2);
      text = textRun.stdout;
    });

    it('gives each change its action, id, file and line in JSON', () => {
      expect(json.summary).toEqual({
        create: 0,
        update: 2,
        replace: 0,
        delete: 1,
        adopt: 2,
        orphan: 0,
        suspended: 0,
        unchanged: 3,
        errors: 0,
      });
      const dashboard = change(json, 'local', 'Dashboard', 'api');
      expect(dashboard.action).toBe('update');
      expect(dashboard.diff).toEqual([{ path: 'tiles[p99].w', before: 12, after: 18 }]);
      const alert = change(json, 'local', 'Alert', 'api-slow');
      expect(alert.diff).toEqual([{ path: 'threshold', before: 500, after: 750 }]);
      const deleted = change(json, 'local-selfhosted', 'Alert', 'health-spike');
      expect(deleted.action).toBe('delete');
      expect(deleted.id).toMatch(/^[0-9a-f]{24}$/);
      expect(change(json, 'local', 'Dashboard', 'handmade')).toMatchObject({
        action: 'adopt',
        file: 'manifests/managed.yaml',
      });
      expect(change(json, 'local-selfhosted', 'Dashboard', 'ops')).toMatchObject({
        action: 'adopt',
        line: documentLine(SELFHOSTED_V2, 'ops'),
      });
    });

    it('groups the text plan by target with +, ~ (before → after), - and = markers', () => {
      const managed = text.indexOf('Target local:');
      const selfHosted = text.indexOf('Target local-selfhosted:');
      expect(managed).toBeGreaterThanOrEqual(0);
      expect(selfHosted).toBeGreaterThan(managed);
      const managedPart = text.slice(managed, selfHosted);
      const selfHostedPart = text.slice(selfHosted);
      expect(managedPart).toMatch(/~ update Dashboard\/api\b/);
      expect(managedPart).toContain('tiles[p99].w: 12 → 18');
      expect(managedPart).toMatch(/~ update Alert\/api-slow\b/);
      expect(managedPart).toContain('threshold: 500 → 750');
      expect(managedPart).toMatch(/= adopt Dashboard\/handmade\b/);
      expect(selfHostedPart).toMatch(/- delete Alert\/health-spike\b/);
      expect(selfHostedPart).toMatch(/= adopt Dashboard\/ops\b/);
      // Unchanged resources are counted, not listed.
      expect(text).not.toMatch(/Alert\/api-failing/);
      expect(text).toContain('Plan: 0 to create, 2 to update, 1 to delete, 2 to adopt, 3 unchanged, 0 errors.');
    });

    it('shows a create with + create in the text plan', async () => {
      await workspace.write('manifests/extra.yaml', dashboardYaml({ key: 'brand-new', target: 'local-selfhosted' }));
      const result = await workspace.run(['plan']);
      await workspace.remove('manifests/extra.yaml');
      expect(result.stdout).toMatch(/\+ create Dashboard\/brand-new\s+\(manifests\/extra\.yaml:1\)/);
    });

    it('wrote nothing while planning', async () => {
      const stats = await emulatorStats(emulator.url);
      expect(writesByRoute(stats)).toEqual({});
    });
  });

  it('an API failure on one target (a wrong token) exits 1 and still plans the other target', async () => {
    const wrong = 'wrong-token-5b1d9e7c';
    const result = await workspace.run(['plan', '--output', 'json', '--detailed-exitcode'], {
      env: { STACKSYNC_TOKEN: wrong },
    });
    expect(result.code, describeRun(result)).toBe(1);
    const plan = parseJsonOutput(result);
    expect(plan.errors).toHaveLength(1);
    expect(plan.errors[0]).toMatchObject({ target: 'local-selfhosted', code: 'E_API_AUTH' });
    expect(plan.changes.some((change) => change.target === 'local')).toBe(true);
    expect(plan.changes.some((change) => change.target === 'local-selfhosted')).toBe(false);
    expect(result.stdout + result.stderr).not.toContain(wrong);
  });

  describe('a broken manifest', () => {
    const BROKEN = documents([dashboardYaml({ key: 'broken', target: 'local', tiles: [{ name: 'wide', w: 99 }] })]);
    beforeAll(async () => {
      await workspace.write('manifests/broken.yaml', BROKEN);
    });
    afterAll(async () => {
      await workspace.remove('manifests/broken.yaml');
    });

    it('is an error with file, line and column; exit 1 even with --detailed-exitcode', async () => {
      const result = await workspace.run(['plan', '--output', 'json', '--detailed-exitcode']);
      expect(result.code, describeRun(result)).toBe(1);
      const plan = expectPlanShape(parseJsonOutput(result));
      expect(plan.errors).toHaveLength(1);
      expect(plan.errors[0]).toMatchObject({
        file: 'manifests/broken.yaml',
        line: lineOf(BROKEN, '      w: 99'),
        column: 10,
      });
      expect(plan.errors[0]?.message).toMatch(/spec\.tiles\[0\]\.w: must be <= 24/);
      expect(plan.summary.errors).toBe(1);
      // The other manifests are still planned.
      expect(change(plan, 'local', 'Dashboard', 'api').action).toBe('update');
    });

    it('prints a GitHub ::error annotation plus the text plan with --output github', async () => {
      const result = await workspace.run(['plan', '--output', 'github', '--detailed-exitcode']);
      expect(result.code, describeRun(result)).toBe(1);
      const line = lineOf(BROKEN, '      w: 99');
      expect(result.stdout).toMatch(
        new RegExp(
          `^::error file=manifests/broken\\.yaml,line=${line},col=10::.*spec\\.tiles\\[0\\]\\.w: must be <= 24`,
          'm',
        ),
      );
      expect(result.stdout).toContain('Target local:');
      expect(result.stdout).toMatch(/~ update Dashboard\/api\b/);
      expect(result.stdout).toMatch(/Plan: .* 1 error\./);
      // Annotations come first, so GitHub reads them before the plan.
      expect(result.stdout.indexOf('::error')).toBeLessThan(result.stdout.indexOf('Target local:'));
    });

    it('an unparseable file is an error with its position too', async () => {
      await workspace.write('manifests/garbage.yaml', 'kind: [\n  - oops\n');
      const result = await workspace.run(['plan', '--output', 'github']);
      await workspace.remove('manifests/garbage.yaml');
      expect(result.code, describeRun(result)).toBe(1);
      expect(result.stdout).toMatch(/^::error file=manifests\/garbage\.yaml,line=\d+,col=\d+::/m);
    });
  });
});

describe('a manifest error in one file', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  beforeAll(async () => {
    emulator = await startTestEmulator();
    // Deleting 1 of 2 is 50%: lift the share cap, which the prune tests cover.
    workspace = await createWorkspace(emulator.url, { rateLimit: FAST, sync: { maxDeletePercent: 100 } });
    // Two dashboards on each target, applied, so both are in the inventory.
    for (const target of ['local', 'local-selfhosted'] as const) {
      await workspace.write(`manifests/${target}-keep.yaml`, dashboardYaml({ key: 'keep', target }));
      await workspace.write(`manifests/${target}-gone.yaml`, dashboardYaml({ key: 'gone', target }));
    }
    const applied = await workspace.run(['apply']);
    expect(applied.code, describeRun(applied)).toBe(0);
    // Then: `gone` removed from Git on both targets, `keep` changed on both, and on the managed
    // target another file broken.
    for (const target of ['local', 'local-selfhosted'] as const) {
      await workspace.remove(`manifests/${target}-gone.yaml`);
      await workspace.write(`manifests/${target}-keep.yaml`, dashboardYaml({ key: 'keep', target, tags: ['changed'] }));
    }
    await workspace.write(
      'manifests/local-broken.yaml',
      dashboardYaml({ key: 'broken', target: 'local', tiles: [{ name: 'x', w: 0 }] }),
    );
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  it('does not hide the plan of the others, exits 1, and blocks every delete of its target only', async () => {
    const result = await workspace.run(['plan', '--prune', '--output', 'json', '--detailed-exitcode']);
    expect(result.code, describeRun(result)).toBe(1);
    const plan = expectPlanShape(parseJsonOutput(result));
    expect(plan.errors).toHaveLength(1);
    expect(plan.errors[0]).toMatchObject({ file: 'manifests/local-broken.yaml', target: 'local' });
    expect(change(plan, 'local', 'Dashboard', 'keep').action).toBe('update');
    expect(change(plan, 'local-selfhosted', 'Dashboard', 'keep').action).toBe('update');
    // The broken target deletes nothing; the healthy one still prunes.
    expect(plan.changes.filter((c) => c.action === 'delete').map((c) => `${c.target}/${c.name}`)).toEqual([
      'local-selfhosted/gone',
    ]);
    // What the held-back prune would delete is still shown, as an orphan.
    expect(plan.changes.filter((c) => c.action === 'orphan').map((c) => `${c.target}/${c.name}`)).toEqual([
      'local/gone',
    ]);
    expect(plan.summary.orphan).toBe(1);
  });

  it('apply --prune writes nothing to the broken target, applies and prunes the healthy one, and exits 1', async () => {
    await resetEmulatorStats(emulator.url);
    const result = await workspace.run(['apply', '--prune']);
    expect(result.code, describeRun(result)).toBe(1);
    const writes = writesByRoute(await emulatorStats(emulator.url));
    expect(writes).toEqual({ 'DELETE /api/v2/dashboards/{id}': 1, 'PUT /api/v2/dashboards/{id}': 1 });
  });

  it('apply --prune --allow-partial applies the valid changes of the broken target too, but still deletes nothing of it', async () => {
    await resetEmulatorStats(emulator.url);
    const result = await workspace.run(['apply', '--prune', '--allow-partial']);
    expect(result.code, describeRun(result)).toBe(1);
    const writes = writesByRoute(await emulatorStats(emulator.url));
    expect(writes).toEqual({
      'PUT /v1/organizations/{organizationId}/services/{serviceId}/stack/dashboards/{dashboardId}': 1,
    });
  });
});
