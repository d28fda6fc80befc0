/**
 * Issue 21, end to end on the current profile: pipes born in Git, created from manifests through
 * the built CLI against the emulator on loopback — one of every source family and every flavour,
 * then stopped, started, scaled, resynced, replaced, pruned, failed, edited while running, born
 * stopped, and exported. The emulator settles a pipe by the next request (`pipeTransitionMs: 0`),
 * so nothing here sleeps; apply polls as it would against the real service.
 */
import { describe, expect, it } from 'vitest';
import {
  PIPE_FAMILIES,
  PIPE_FLAVOURS,
  PIPE_LACKED_ON_CURRENT,
  type PipeFamily,
} from '../../src/schema/pipe-sources.js';
import { DEFAULT_SEED_IDS } from '../../src/emulator/index.js';
import { describeRun, parseJsonOutput, writesByRoute } from '../helpers/e2e.js';
import { bornPipesYaml, livePipeNamed, livePipes, type BornPipe } from '../helpers/pipes.js';
import {
  emulatorStats,
  resetEmulatorStats,
  sharedEmulator,
  type CliResult,
  type Workspace,
} from '../helpers/workspace.js';
import {
  fixtureSeed,
  kafkaBlock,
  mysqlBlock,
  objectStorageBlock,
  pipeBody,
  postgresBlock,
  type Body,
} from '../emulator/pipe-fixtures.js';

const LACKED_MYSQL_FLAVOURS =
  PIPE_LACKED_ON_CURRENT.find((lacked) => lacked.path === 'source.mysql.type')?.values ?? [];
const shared = sharedEmulator({ profile: 'current', seed: fixtureSeed(), pipeTransitionMs: 0 });

const PIPES = '/v1/organizations/{organizationId}/services/{serviceId}/pipes';
const STATE = `${PIPES}/{pipeId}/state`;

async function workspaceWith(pipes: readonly BornPipe[]): Promise<Workspace> {
  const workspace = await shared.workspace({
    apiProfile: 'current',
    rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
    sync: { maxDeletes: 100, maxDeletePercent: 100 },
  });
  await write(workspace, pipes);
  return workspace;
}

async function write(workspace: Workspace, pipes: readonly BornPipe[]): Promise<void> {
  const { yaml, env } = bornPipesYaml(pipes.map((pipe) => ({ target: 'local', ...pipe })));
  Object.assign(workspace.env, env);
  await workspace.write('manifests/pipes.yaml', yaml);
}

function expectExit(result: CliResult, code: number, what: string): void {
  expect(result.code, `${what}\n${describeRun(result)}`).toBe(code);
}

/** Applies, expecting success, then checks a second apply writes nothing and plans clean. */
async function applyThenQuiet(workspace: Workspace): Promise<void> {
  expectExit(await workspace.run(['apply', '--target', 'local'], { timeoutMs: 120_000 }), 0, 'apply');
  await resetEmulatorStats(shared.emulator.url);
  expectExit(await workspace.run(['apply', '--target', 'local']), 0, 'second apply');
  expect((await emulatorStats(shared.emulator.url)).writes, 'writes of the second apply').toBe(0);
  expectExit(await workspace.run(['plan', '--target', 'local', '--detailed-exitcode']), 0, 'plan after apply');
}

/** Creates a pipe through the API, as someone in the console would; its id. */
async function createOutOfBand(body: Body): Promise<string> {
  const ids = DEFAULT_SEED_IDS;
  const response = await fetch(
    `${shared.emulator.url}/v1/organizations/${ids.organizationId}/services/${ids.serviceId}/pipes`,
    {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${ids.keyId}:${ids.keySecret}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    },
  );
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: { id: string } }).result.id;
}

function actionOf(result: CliResult, name: string): string | undefined {
  return parseJsonOutput(result).changes.find((change) => change.name === name)?.action;
}

describe('pipes born in Git, on the current profile', () => {
  it('creates one pipe of every source family from manifests, each settled; a second apply writes nothing', async () => {
    const pipes = PIPE_FAMILIES.map((family): BornPipe => ({ key: `fam-${family.toLowerCase()}`, family }));
    const workspace = await workspaceWith(pipes);
    const plan = await workspace.run(['plan', '--target', 'local', '--output', 'json']);
    for (const pipe of pipes) expect(actionOf(plan, pipe.key), pipe.key).toBe('create');
    await applyThenQuiet(workspace);
    const live = await livePipes(shared.emulator.url);
    for (const family of PIPE_FAMILIES) {
      const pipe = live.find((each) => each.name === `fam-${family.toLowerCase()}`);
      expect(pipe?.source[family], family).toBeDefined();
      // docs/reference/api-behaviour.md: streaming Running; database Running or Snapshot; snapshot-only Completed.
      expect(['Running', 'Snapshot', 'Completed'], `${family} settled`).toContain(pipe?.state);
    }
    expect(live.find((each) => each.name === 'fam-bigquery')?.state).toBe('Completed');
  }, 180_000);

  const FLAVOURS: { family: PipeFamily; flavour: string; block: () => Record<string, unknown> }[] = [
    ...PIPE_FLAVOURS.kafka.map((flavour) => ({ family: 'kafka' as const, flavour, block: () => kafkaBlock(flavour) })),
    ...PIPE_FLAVOURS.objectStorage.map((flavour) => ({
      family: 'objectStorage' as const,
      flavour,
      block: () => objectStorageBlock(flavour),
    })),
    ...PIPE_FLAVOURS.postgres.map((flavour) => ({
      family: 'postgres' as const,
      flavour,
      block: () => postgresBlock(flavour),
    })),
    // A flavour the managed service's newest API description lacks is refused on the current profile (test/e2e/refusals.test.ts).
    ...PIPE_FLAVOURS.mysql
      .filter((flavour) => !LACKED_MYSQL_FLAVOURS.includes(flavour))
      .map((flavour) => ({ family: 'mysql' as const, flavour, block: () => mysqlBlock(flavour) })),
  ];

  it(`creates a pipe of every kafka, object-storage, postgres and mysql flavour (${FLAVOURS.length}); a second apply writes nothing`, async () => {
    const pipes = FLAVOURS.map(
      ({ family, flavour, block }): BornPipe => ({
        key: `fl-${family.toLowerCase()}-${flavour}`,
        family,
        block: block(),
      }),
    );
    const workspace = await workspaceWith(pipes);
    await applyThenQuiet(workspace);
    const live = await livePipes(shared.emulator.url);
    for (const { family, flavour } of FLAVOURS) {
      const pipe = live.find((each) => each.name === `fl-${family.toLowerCase()}-${flavour}`);
      expect(pipe?.source[family]?.['type'], `${family} ${flavour}`).toBe(flavour);
    }
  }, 180_000);

  it('stops and starts a pipe by editing state, and scales it', async () => {
    const pipe: BornPipe = { key: 'toggled', family: 'kafka', spec: { scaling: { replicas: 2 } } };
    const workspace = await workspaceWith([pipe]);
    await applyThenQuiet(workspace);
    expect((await livePipeNamed(shared.emulator.url, 'toggled')).scaling?.['replicas']).toBe(2);

    await write(workspace, [{ ...pipe, spec: { scaling: { replicas: 4 }, state: 'Stopped' } }]);
    const plan = await workspace.run(['plan', '--target', 'local', '--output', 'json']);
    expect(parseJsonOutput(plan).changes.find((change) => change.name === 'toggled')?.diff).toEqual([
      { path: 'scaling.replicas', before: 2, after: 4 },
      { path: 'state', before: 'Running', after: 'Stopped' },
    ]);
    await resetEmulatorStats(shared.emulator.url);
    await applyThenQuiet(workspace);
    const stopped = await livePipeNamed(shared.emulator.url, 'toggled');
    expect(stopped.state).toBe('Stopped');
    expect(stopped.scaling?.['replicas']).toBe(4);

    await write(workspace, [{ ...pipe, spec: { scaling: { replicas: 4 }, state: 'Running' } }]);
    await applyThenQuiet(workspace);
    expect((await livePipeNamed(shared.emulator.url, 'toggled')).state).toBe('Running');
  }, 120_000);

  it('sends a resync once per new token of stacksync.io/resync', async () => {
    const pipe: BornPipe = { key: 'resynced', family: 'postgres' };
    const workspace = await workspaceWith([{ ...pipe, annotations: { 'stacksync.io/resync': 'first' } }]);
    // A token on a new pipe is recorded by its create, not sent: a new pipe copies everything anyway.
    await resetEmulatorStats(shared.emulator.url);
    await applyThenQuiet(workspace);
    await write(workspace, [{ ...pipe, annotations: { 'stacksync.io/resync': 'second' } }]);
    await resetEmulatorStats(shared.emulator.url);
    expectExit(await workspace.run(['apply', '--target', 'local']), 0, 'apply of a new token');
    expect(writesByRoute(await emulatorStats(shared.emulator.url))).toEqual({ [`PATCH ${STATE}`]: 1 });
    await resetEmulatorStats(shared.emulator.url);
    expectExit(await workspace.run(['apply', '--target', 'local']), 0, 'apply of the same token');
    expect((await emulatorStats(shared.emulator.url)).writes).toBe(0);
  }, 120_000);

  it('refuses a resync on a streaming pipe at validate, at the annotation', async () => {
    const workspace = await workspaceWith([
      { key: 'no-resync', family: 'kafka', annotations: { 'stacksync.io/resync': 'x' } },
    ]);
    const result = await workspace.run(['validate']);
    expectExit(result, 1, 'validate');
    expect(result.stderr + result.stdout).toMatch(
      /pipes\.yaml:\d+:\d+: .*resync is only for pipes of a database source/,
    );
  });

  it('plans a create-only change as replace, refuses it without the opt-in, applies it with --allow-replace', async () => {
    const pipe: BornPipe = { key: 'replaced', family: 'kafka' };
    const workspace = await workspaceWith([pipe]);
    await applyThenQuiet(workspace);
    const before = await livePipeNamed(shared.emulator.url, 'replaced');
    await write(workspace, [{ ...pipe, block: { ...kafkaBlock(), topics: 'orders-v2' } }]);

    const plan = await workspace.run(['plan', '--target', 'local', '--output', 'json']);
    const change = parseJsonOutput(plan).changes.find((each) => each.name === 'replaced');
    expect(change?.action).toBe('replace');
    expect(change?.warnings?.[0]).toMatch(/source\.kafka\.topics is create-only/);
    expect(parseJsonOutput(plan).summary).toMatchObject({ replace: 1, deleteByKind: { Pipe: 1 } });

    const refused = await workspace.run(['apply', '--target', 'local', '--output', 'json']);
    expectExit(refused, 1, 'apply without the opt-in');
    expect(parseJsonOutput(refused).changes.find((each) => each.name === 'replaced')).toMatchObject({
      result: 'failed',
      code: 'E_REPLACE_REFUSED',
    });
    expect((await livePipeNamed(shared.emulator.url, 'replaced')).id).toBe(before.id);

    expectExit(await workspace.run(['apply', '--target', 'local', '--allow-replace']), 0, 'apply --allow-replace');
    const after = await livePipeNamed(shared.emulator.url, 'replaced');
    expect(after.id).not.toBe(before.id);
    expect(after.source['kafka']?.['topics']).toBe('orders-v2');
    await applyThenQuiet(workspace);
  }, 120_000);

  it('prunes a pipe born in Git whose manifest is gone, and never a pipeId one', async () => {
    const workspace = await workspaceWith([{ key: 'pruned', family: 'kinesis' }]);
    // A pipe made elsewhere, managed by id.
    const made = await createOutOfBand(pipeBody('kinesis', 'made-elsewhere'));
    const existing = `apiVersion: stacksync/v1\nkind: Pipe\nmetadata: { name: existing, target: local }\nspec:\n  pipeId: ${made}\n  settings: { streaming_max_insert_wait_ms: 1500 }\n`;
    await workspace.write('manifests/existing.yaml', existing);
    expectExit(await workspace.run(['apply', '--target', 'local']), 0, 'apply');
    await workspace.remove('manifests');
    await workspace.write(
      'manifests/other.yaml',
      bornPipesYaml([{ key: 'kept', family: 'kafka', target: 'local' }]).yaml,
    );
    Object.assign(workspace.env, bornPipesYaml([{ key: 'kept', family: 'kafka', target: 'local' }]).env);

    const plan = await workspace.run(['plan', '--target', 'local', '--prune', '--output', 'json']);
    expect(actionOf(plan, 'pruned')).toBe('delete');
    expect(actionOf(plan, 'existing')).toBeUndefined();
    expect(parseJsonOutput(plan).summary).toMatchObject({ delete: 1, deleteByKind: { Pipe: 1 } });
    const text = await workspace.run(['plan', '--target', 'local', '--prune']);
    expect(text.stdout).toContain(
      '1 to delete, 0 to adopt, 1 Pipe among the deletes and replaces (its ingestion stops)',
    );

    expectExit(await workspace.run(['apply', '--target', 'local', '--prune', '--force']), 0, 'apply --prune');
    const names = (await livePipes(shared.emulator.url)).map((pipe) => pipe.name);
    expect(names).not.toContain('pruned');
    expect((await livePipes(shared.emulator.url)).some((pipe) => pipe.id === made)).toBe(true);
  }, 120_000);

  it('fails the change of a pipe that fails provisioning, with exit 1 and its state in the message; the next run does not start it again', async () => {
    const workspace = await workspaceWith([{ key: 'broken-feed', family: 'kafka' }]);
    const result = await workspace.run(['apply', '--target', 'local', '--output', 'json']);
    expectExit(result, 1, 'apply');
    const change = parseJsonOutput(result).changes.find((each) => each.name === 'broken-feed');
    expect(change).toMatchObject({ action: 'create', result: 'failed', code: 'E_RESOURCE_FAILED' });
    expect(change?.error).toMatch(/ended Failed/);
    // Its one attempt for this revision of the manifest is spent: no start loop, and never "unchanged" either.
    await resetEmulatorStats(shared.emulator.url);
    const again = await workspace.run(['apply', '--target', 'local']);
    expectExit(again, 1, 'second apply');
    expect((await emulatorStats(shared.emulator.url)).writes).toBe(0);
    expect(again.stdout).toMatch(/Pipe\/broken-feed is degraded: its live state is Failed/);
    expect(again.stdout).toMatch(
      /failed: local\/Pipe\/broken-feed: E_RESOURCE_FAILED: pipe \S+ is Failed and its manifest wants it Running/,
    );
    expect(again.stdout).not.toMatch(/0 failed/);
  }, 120_000);

  it('never calls a Failed pipe its manifest wants running unchanged: plan exits 2 with a row for it, apply exits 1 with its state, each time, with no start', async () => {
    const workspace = await workspaceWith([{ key: 'broken-again', family: 'kafka' }]);
    expectExit(await workspace.run(['apply', '--target', 'local']), 1, 'apply of the create');
    await resetEmulatorStats(shared.emulator.url);
    for (const round of [1, 2]) {
      const plan = await workspace.run(['plan', '--target', 'local', '--detailed-exitcode']);
      expectExit(plan, 2, `plan ${round}`);
      expect(plan.stdout).toMatch(/~ update Pipe\/broken-again/);
      expect(plan.stdout).toMatch(/error: E_RESOURCE_FAILED: pipe \S+ is Failed and its manifest wants it Running/);
      expect(plan.stdout).toMatch(/~ state: "Failed" → "Running"/);
      const json = await workspace.run(['plan', '--target', 'local', '--output', 'json']);
      expect(parseJsonOutput(json).changes.find((each) => each.name === 'broken-again')).toMatchObject({
        action: 'update',
        code: 'E_RESOURCE_FAILED',
      });
      const applied = await workspace.run(['apply', '--target', 'local', '--output', 'json']);
      expectExit(applied, 1, `apply ${round}`);
      const change = parseJsonOutput(applied).changes.find((each) => each.name === 'broken-again');
      expect(change).toMatchObject({ result: 'failed', code: 'E_RESOURCE_FAILED' });
      expect(change?.error).toMatch(/is Failed/);
    }
    // Two plans and two applies: not one write (no start again for this revision).
    expect((await emulatorStats(shared.emulator.url)).writes).toBe(0);
    expect((await livePipeNamed(shared.emulator.url, 'broken-again')).state).toBe('Failed');
  }, 120_000);

  it('applies a table mapping added to a running postgres pipe as stop, patch, start, ending Running', async () => {
    const pipe: BornPipe = { key: 'mapped', family: 'postgres' };
    const workspace = await workspaceWith([pipe]);
    await applyThenQuiet(workspace);
    const block = postgresBlock();
    block['tableMappings'] = [
      ...(block['tableMappings'] as object[]),
      { sourceSchemaName: 'public', sourceTable: 'orders', targetTable: 'orders' },
    ];
    await write(workspace, [{ ...pipe, block }]);
    const plan = await workspace.run(['plan', '--target', 'local']);
    expect(plan.stdout).toContain('~ update Pipe/mapped');
    expect(plan.stdout).toMatch(
      /stop the pipe \(now Running\), wait until it is paused, edit its table mappings, then start it again/,
    );
    await resetEmulatorStats(shared.emulator.url);
    expectExit(await workspace.run(['apply', '--target', 'local']), 0, 'apply of the mapping');
    const writes = writesByRoute(await emulatorStats(shared.emulator.url));
    // The stop, the edit, and the start (which the service may answer "already running": it resumes a pipe after an edit).
    expect(writes).toEqual({ [`PATCH ${STATE}`]: 2, [`PATCH ${PIPES}/{pipeId}`]: 1 });
    const live = await livePipeNamed(shared.emulator.url, 'mapped');
    expect(live.state).toBe('Running');
    expect((live.source['postgres']?.['tableMappings'] as { sourceTable: string }[]).map((m) => m.sourceTable)).toEqual(
      ['users', 'orders'],
    );
    await applyThenQuiet(workspace);
  }, 120_000);

  it('creates a pipe born Stopped and stops it in the same apply', async () => {
    const workspace = await workspaceWith([
      { key: 'born-stopped', family: 'kafka', spec: { state: 'Stopped' } },
      { key: 'born-paused', family: 'postgres', spec: { state: 'Stopped' } },
    ]);
    await resetEmulatorStats(shared.emulator.url);
    expectExit(await workspace.run(['apply', '--target', 'local']), 0, 'apply');
    expect(writesByRoute(await emulatorStats(shared.emulator.url))).toEqual({
      [`POST ${PIPES}`]: 2,
      [`PATCH ${STATE}`]: 2,
    });
    expect((await livePipeNamed(shared.emulator.url, 'born-stopped')).state).toBe('Stopped');
    expect((await livePipeNamed(shared.emulator.url, 'born-paused')).state).toBe('Paused');
    await applyThenQuiet(workspace);
  }, 120_000);

  it('exports every pipe as a manifest born in Git (credentials as placeholders) that plans clean', async () => {
    const workspace = await workspaceWith(
      PIPE_FAMILIES.map(
        (family): BornPipe => ({
          key: `exp-${family.toLowerCase()}`,
          family,
          ...(family === 'kafka' ? { spec: { state: 'Stopped' } } : {}),
        }),
      ),
    );
    expectExit(await workspace.run(['apply', '--target', 'local']), 0, 'apply');
    const onboarding = await shared.workspace({ apiProfile: 'current' });
    expectExit(await onboarding.run(['export', '--target', 'local', '--out', 'exported', '--adopt']), 0, 'export');
    const plan = await onboarding.run([
      'plan',
      '--target',
      'local',
      '-m',
      'exported',
      '--output',
      'json',
      '--detailed-exitcode',
    ]);
    expectExit(plan, 0, 'plan of the export');
    const exported = await onboarding.run(['plan', '--target', 'local', '-m', 'exported', '--output', 'json']);
    for (const family of PIPE_FAMILIES)
      expect(actionOf(exported, `exp-${family.toLowerCase()}`), family).toBe('unchanged');
    const kafka = await import('node:fs/promises').then((fs) =>
      fs.readFile(`${onboarding.dir}/exported/pipes/exp-kafka.yaml`, 'utf8'),
    );
    expect(kafka).not.toContain('pipeId');
    expect(kafka).toContain('state: Stopped');
    expect(kafka).toMatch(/#\s+password: \{ fromEnv: PIPE_EXP_KAFKA_PASSWORD \}/);
  }, 180_000);
});
