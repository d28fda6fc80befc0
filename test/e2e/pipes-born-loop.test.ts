/**
 * Issue 21's core loop, end to end through the built CLI on the current profile, with every write
 * seen on the wire (a pass-through proxy records the bodies): a pipe manifest without `pipeId` plans
 * `create`; apply creates it and records it; the next plan is clean; an edited member goes out as a
 * PATCH of that member alone (no credentials again); `state: Stopped` goes out as the state
 * operation; with the manifest gone, `apply --prune` deletes the pipe, and only it — a pipe no
 * manifest made (not in the inventory) and a `pipeId` pipe are left alone.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeRun, parseJsonOutput } from '../helpers/e2e.js';
import { bornPipesYaml, livePipeNamed, livePipes, type BornPipe } from '../helpers/pipes.js';
import { startProxy, type ProxiedRequest, type RunningProxy } from '../helpers/proxy.js';
import {
  emulatorStats,
  resetEmulatorStats,
  sharedEmulator,
  type CliResult,
  type Workspace,
} from '../helpers/workspace.js';
import { DEFAULT_SEED_IDS } from '../../src/emulator/index.js';
import { fixtureSeed, pipeBody, postgresBlock, type Body } from '../emulator/pipe-fixtures.js';

const shared = sharedEmulator({ profile: 'current', seed: fixtureSeed(), pipeTransitionMs: 0 });

let proxy: RunningProxy;
/** Every write the CLI sent, in order. */
let writes: ProxiedRequest[] = [];

beforeAll(async () => {
  proxy = await startProxy(shared.emulator.url);
  proxy.intercept((request) => {
    if (request.method !== 'GET') writes.push(request);
    return undefined;
  });
});
afterAll(async () => proxy.close());

const ids = DEFAULT_SEED_IDS;
const PIPES_PATH = `/v1/organizations/${ids.organizationId}/services/${ids.serviceId}/pipes`;

function expectExit(result: CliResult, code: number, what: string): void {
  expect(result.code, `${what}\n${describeRun(result)}`).toBe(code);
}

async function write(workspace: Workspace, pipes: readonly BornPipe[]): Promise<void> {
  const { yaml, env } = bornPipesYaml(pipes.map((pipe) => ({ target: 'local', ...pipe })));
  Object.assign(workspace.env, env);
  await workspace.write('manifests/pipes.yaml', yaml);
}

/** The writes of one CLI run, as `METHOD path` (ids replaced by `{id}`) and parsed body. */
async function writesOf(
  run: () => Promise<CliResult>,
  what: string,
  code = 0,
): Promise<{ route: string; body: Body }[]> {
  writes = [];
  expectExit(await run(), code, what);
  return writes.map((request) => ({
    route: `${request.method} ${request.path.replace(PIPES_PATH, '…/pipes').replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '{id}')}`,
    body: request.body === '' ? {} : (JSON.parse(request.body) as Body),
  }));
}

/** Creates a pipe through the API, as someone in the console would; its id. */
async function createOutOfBand(body: Body): Promise<string> {
  const response = await fetch(`${shared.emulator.url}${PIPES_PATH}`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${ids.keyId}:${ids.keySecret}`).toString('base64')}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: { id: string } }).result.id;
}

describe('a pipe born in Git, its whole loop, on the wire', () => {
  it('plans create, creates, plans clean, patches one member, stops by the state operation, and prunes only what it made', async () => {
    const workspace = await shared.workspace(
      {
        apiProfile: 'current',
        rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
        sync: { maxDeletes: 100, maxDeletePercent: 100 },
      },
      proxy.url,
    );
    const loop: BornPipe = { key: 'loop', family: 'kafka', spec: { settings: { streaming_max_insert_wait_ms: 1000 } } };
    await write(workspace, [loop]);

    const planned = await workspace.run(['plan', '--target', 'local', '--output', 'json']);
    expect(parseJsonOutput(planned).changes.find((change) => change.name === 'loop')?.action).toBe('create');
    expect(await livePipes(shared.emulator.url)).not.toContainEqual(expect.objectContaining({ name: 'loop' }));

    const created = await writesOf(() => workspace.run(['apply', '--target', 'local']), 'apply of the new manifest');
    expect(created.map((each) => each.route)).toEqual(['POST …/pipes']);
    expect(created[0]?.body).toMatchObject({
      name: 'loop',
      settings: { streaming_max_insert_wait_ms: 1000 },
      source: { kafka: { topics: 'orders', credentials: { username: 'consumer', password: 'kafka-secret' } } },
    });
    const live = await livePipeNamed(shared.emulator.url, 'loop');
    expect(live.state).toBe('Running');
    expectExit(await workspace.run(['plan', '--target', 'local', '--detailed-exitcode']), 0, 'plan after the create');

    // A description, which the service's API does not offer (docs/manifests/pipe.md), is refused
    // at its line before anything is sent.
    await write(workspace, [{ ...loop, spec: { ...loop.spec, description: 'orders' } }]);
    const refused = await writesOf(() => workspace.run(['apply', '--target', 'local']), 'apply of a description', 1);
    expect(refused).toEqual([]);

    const edited = { settings: { streaming_max_insert_wait_ms: 3000 } };
    await write(workspace, [{ ...loop, spec: edited }]);
    const patched = await writesOf(() => workspace.run(['apply', '--target', 'local']), 'apply of the edited member');
    // The member that changed, and nothing else: no name, no source, no credentials sent again.
    expect(patched).toEqual([
      { route: 'PATCH …/pipes/{id}', body: { settings: { streaming_max_insert_wait_ms: 3000 } } },
    ]);
    expect((await livePipeNamed(shared.emulator.url, 'loop')).id).toBe(live.id);

    await write(workspace, [{ ...loop, spec: { ...edited, state: 'Stopped' } }]);
    const stopped = await writesOf(() => workspace.run(['apply', '--target', 'local']), 'apply of state: Stopped');
    expect(stopped).toEqual([{ route: 'PATCH …/pipes/{id}/state', body: { command: 'stop' } }]);
    expect((await livePipeNamed(shared.emulator.url, 'loop')).state).toBe('Stopped');
    expectExit(await workspace.run(['plan', '--target', 'local', '--detailed-exitcode']), 0, 'plan after the stop');

    // A pipe no manifest made, and one managed by id: neither is stacksync's to delete.
    const unmanaged = await createOutOfBand(pipeBody('kinesis', 'made-in-console'));
    const byId = await createOutOfBand(pipeBody('kinesis', 'managed-by-id'));
    await workspace.write(
      'manifests/pipes.yaml',
      `apiVersion: stacksync/v1\nkind: Pipe\nmetadata: { name: by-id, target: local }\nspec:\n  pipeId: ${byId}\n`,
    );
    expectExit(await workspace.run(['apply', '--target', 'local']), 0, 'apply of the pipeId manifest');
    await workspace.remove('manifests');
    await workspace.write('manifests/none.yaml', '# every manifest gone\n');

    const pruned = await writesOf(
      () => workspace.run(['apply', '--target', 'local', '--prune', '--force']),
      'apply --prune',
    );
    expect(pruned).toEqual([{ route: 'DELETE …/pipes/{id}', body: {} }]);
    expect(writes[0]?.path.endsWith(`/pipes/${live.id}`)).toBe(true);
    const names = (await livePipes(shared.emulator.url)).map((pipe) => pipe.name);
    expect(names).not.toContain('loop');
    expect(names).toEqual(expect.arrayContaining(['made-in-console', 'managed-by-id']));
    expect((await livePipes(shared.emulator.url)).map((pipe) => pipe.id)).toEqual(
      expect.arrayContaining([unmanaged, byId]),
    );
  }, 180_000);

  it('validate checks scaling bounds offline, each a located error, and scaling on a database pipe', async () => {
    const workspace = await shared.workspace({ apiProfile: 'current' });
    await write(workspace, [
      { key: 'too-many', family: 'kafka', spec: { scaling: { replicas: 41 } } },
      { key: 'kafka-concurrency', family: 'kafka', spec: { scaling: { concurrency: 2 } } },
      { key: 'too-small', family: 'kinesis', spec: { scaling: { replicaCpuMillicores: 100, replicaMemoryGb: 9 } } },
      {
        key: 'in-bounds',
        family: 'objectStorage',
        spec: { scaling: { replicas: 40, replicaCpuMillicores: 2000, replicaMemoryGb: 0.5 } },
      },
      { key: 'cdc', family: 'postgres', spec: { scaling: { replicas: 2 } } },
    ]);
    await resetEmulatorStats(shared.emulator.url);
    const result = await workspace.run(['validate']);
    expectExit(result, 1, 'validate');
    expect((await emulatorStats(shared.emulator.url)).total, 'requests of validate').toBe(0);
    const out = result.stdout + result.stderr;
    expect(out).toMatch(/pipes\.yaml:\d+:\d+: .*spec\.scaling\.replicas.*<= 40/);
    expect(out).toMatch(/pipes\.yaml:\d+:\d+: .*spec\.scaling\.concurrency: is only for objectStorage pipes/);
    expect(out).toMatch(/pipes\.yaml:\d+:\d+: .*spec\.scaling\.replicaCpuMillicores.*>= 125/);
    expect(out).toMatch(/pipes\.yaml:\d+:\d+: .*spec\.scaling\.replicaMemoryGb.*<= 8/);
    expect(out).toMatch(
      /pipes\.yaml:\d+:\d+: .*spec\.scaling: is only for kafka, kinesis, objectStorage pipes; postgres pipes share the service's CDC scaling/,
    );
    expect(out).not.toMatch(/in-bounds/);
  });

  it('starts a Failed pipe again once per new revision of its manifest, never in a loop', async () => {
    // The fixture seed fails every provisioning of a pipe named broken-* (failPipes).
    const workspace = await shared.workspace(
      { apiProfile: 'current', rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } },
      proxy.url,
    );
    const broken: BornPipe = {
      key: 'broken-loop',
      family: 'kafka',
      spec: { settings: { streaming_max_insert_wait_ms: 1000 } },
    };
    await write(workspace, [broken]);
    const first = await workspace.run(['apply', '--target', 'local', '--output', 'json']);
    expectExit(first, 1, 'apply of the create');
    expect(parseJsonOutput(first).changes.find((change) => change.name === 'broken-loop')).toMatchObject({
      action: 'create',
      result: 'failed',
      code: 'E_RESOURCE_FAILED',
    });
    // Still Failed, so still a failure (exit 1), but nothing is sent.
    expect(
      await writesOf(() => workspace.run(['apply', '--target', 'local']), 'apply of the same revision', 1),
    ).toEqual([]);

    // A new revision: its edit, and one start.
    await write(workspace, [{ ...broken, spec: { settings: { streaming_max_insert_wait_ms: 2000 } } }]);
    writes = [];
    const again = await workspace.run(['apply', '--target', 'local', '--output', 'json']);
    expectExit(again, 1, 'apply of a new revision');
    expect(parseJsonOutput(again).changes.find((change) => change.name === 'broken-loop')?.error).toMatch(/Failed/);
    const routes = writes.map(
      (request) => `${request.method} ${request.path.replace(/^.*\/pipes\/[0-9a-f-]{36}/, '…/pipes/{id}')}`,
    );
    expect(routes.filter((route) => route === 'PATCH …/pipes/{id}/state')).toHaveLength(1);
    expect(writes.find((request) => request.path.endsWith('/state'))?.body).toBe(JSON.stringify({ command: 'start' }));
    expect(routes).toContain('PATCH …/pipes/{id}');
    expect((await livePipeNamed(shared.emulator.url, 'broken-loop')).state).toBe('Failed');

    // That revision's one attempt is spent.
    expect(
      await writesOf(() => workspace.run(['apply', '--target', 'local']), 'apply of the same revision again', 1),
    ).toEqual([]);
  }, 120_000);

  it('restores a paused pipe to Running when its mapping edit fails, and the next run applies the edit', async () => {
    const workspace = await shared.workspace(
      { apiProfile: 'current', rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } },
      proxy.url,
    );
    const pipe: BornPipe = { key: 'mapped-refused', family: 'postgres' };
    await write(workspace, [pipe]);
    expectExit(await workspace.run(['apply', '--target', 'local']), 0, 'apply of the create');
    const block = postgresBlock();
    block['tableMappings'] = [
      ...(block['tableMappings'] as object[]),
      { sourceSchemaName: 'public', sourceTable: 'orders', targetTable: 'orders' },
    ];
    await write(workspace, [{ ...pipe, block }]);

    // The service refuses the edit itself (once): the pipe was stopped for it, so it is started again.
    let refusals = 1;
    proxy.intercept((request) => {
      if (request.method !== 'GET') writes.push(request);
      if (request.method === 'PATCH' && /\/pipes\/[0-9a-f-]{36}$/.test(request.path) && refusals-- > 0) {
        return {
          status: 400,
          contentType: 'application/json',
          body: JSON.stringify({
            status: 400,
            error: 'BAD_REQUEST: table public.orders is not in the publication',
            requestId: 'r-1',
          }),
        };
      }
      return undefined;
    });
    writes = [];
    const failed = await workspace.run(['apply', '--target', 'local', '--output', 'json']);
    proxy.intercept((request) => {
      if (request.method !== 'GET') writes.push(request);
      return undefined;
    });
    expectExit(failed, 1, 'apply of the refused edit');
    expect(parseJsonOutput(failed).changes.find((change) => change.name === 'mapped-refused')?.error).toMatch(
      /not in the publication/,
    );
    const states = writes
      .filter((request) => request.path.endsWith('/state'))
      .map((request) => (JSON.parse(request.body) as { command: string }).command);
    expect(states).toEqual(['stop', 'start']);
    expect((await livePipeNamed(shared.emulator.url, 'mapped-refused')).state).toBe('Running');

    expectExit(await workspace.run(['apply', '--target', 'local']), 0, 'apply of the edit again');
    const live = await livePipeNamed(shared.emulator.url, 'mapped-refused');
    expect(live.state).toBe('Running');
    expect((live.source['postgres']?.['tableMappings'] as { sourceTable: string }[]).map((m) => m.sourceTable)).toEqual(
      ['users', 'orders'],
    );
    expectExit(await workspace.run(['plan', '--target', 'local', '--detailed-exitcode']), 0, 'plan after the edit');
  }, 120_000);

  it('finishes, on the next run, a mapping edit whose apply was killed while the pipe was paused for it', async () => {
    const workspace = await shared.workspace(
      { apiProfile: 'current', rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } },
      proxy.url,
    );
    const pipe: BornPipe = { key: 'mapped-killed', family: 'postgres' };
    await write(workspace, [pipe]);
    expectExit(await workspace.run(['apply', '--target', 'local']), 0, 'apply of the create');
    const block = postgresBlock();
    block['tableMappings'] = [
      ...(block['tableMappings'] as object[]),
      { sourceSchemaName: 'public', sourceTable: 'orders', targetTable: 'orders' },
    ];
    await write(workspace, [{ ...pipe, block }]);

    // The apply is killed the moment its edit reaches the service (after the stop): the edit never lands.
    let child: ChildProcess | undefined;
    proxy.intercept((request) => {
      if (request.method === 'PATCH' && /\/pipes\/[0-9a-f-]{36}$/.test(request.path)) {
        child?.kill('SIGKILL');
        return { status: 503, body: 'gone' };
      }
      return undefined;
    });
    child = workspace.spawn(['apply', '--target', 'local']);
    const { signal } = await new Promise<{ signal: NodeJS.Signals | null }>((resolve) =>
      child?.once('exit', (_code, exitSignal) => resolve({ signal: exitSignal })),
    );
    proxy.intercept((request) => {
      if (request.method !== 'GET') writes.push(request);
      return undefined;
    });
    expect(signal).toBe('SIGKILL');
    expect((await livePipeNamed(shared.emulator.url, 'mapped-killed')).state).toBe('Paused');

    const plan = await workspace.run(['plan', '--target', 'local']);
    expect(plan.stdout).toContain('~ update Pipe/mapped-killed');
    writes = [];
    expectExit(await workspace.run(['apply', '--target', 'local']), 0, 'apply after the kill');
    const states = writes
      .filter((request) => request.path.endsWith('/state'))
      .map((request) => (JSON.parse(request.body) as { command: string }).command);
    expect(states).toEqual(['start']);
    const live = await livePipeNamed(shared.emulator.url, 'mapped-killed');
    expect(live.state).toBe('Running');
    expect((live.source['postgres']?.['tableMappings'] as { sourceTable: string }[]).map((m) => m.sourceTable)).toEqual(
      ['users', 'orders'],
    );
    expectExit(
      await workspace.run(['plan', '--target', 'local', '--detailed-exitcode']),
      0,
      'plan after the run that finished it',
    );
  }, 120_000);
});
