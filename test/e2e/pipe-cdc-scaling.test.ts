/**
 * Issue 21, the service-wide CDC scaling, end to end through the built CLI on the current profile:
 * a `PipeCdcScaling` manifest sets the one sizing all database pipes of a service share. It can
 * come in the same commit as the service's first database pipe (the service makes the setting
 * only once such a pipe is provisioned: apply creates the pipe, waits for the setting, then sets
 * it), a changed sizing is sent once, two manifests of it are an error before anything is
 * written, and so are bad bounds and a target that has no such setting. Each test has an emulator
 * of its own whose pipes and CDC scaling take a real (short) while to settle, as the service's do.
 */
import { readdir, readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { DEFAULT_SEED_IDS } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { describeRun, parseJsonOutput, writesByRoute } from '../helpers/e2e.js';
import { startDaemon, waitUntil } from '../helpers/daemon.js';
import { bornPipesYaml, type BornPipe } from '../helpers/pipes.js';
import {
  createWorkspace,
  emulatorStats,
  resetEmulatorStats,
  startTestEmulator,
  type CliResult,
  type Workspace,
} from '../helpers/workspace.js';
import { fixtureSeed } from '../emulator/pipe-fixtures.js';

const ids = DEFAULT_SEED_IDS;
const SERVICE = `/v1/organizations/${ids.organizationId}/services/${ids.serviceId}`;
const CDC_ROUTE = '/v1/organizations/{organizationId}/services/{serviceId}/pipesCdcScaling';
const PIPES_ROUTE = '/v1/organizations/{organizationId}/services/{serviceId}/pipes';
/** Long enough that apply has to wait for it, short enough for a test. */
const TRANSITION_MS = 300;

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((dispose) => dispose()));
});

async function setup(
  options: { apiProfile?: 'seed' | 'current' } = { apiProfile: 'current' },
): Promise<{ emulator: RunningEmulator; workspace: Workspace }> {
  const emulator = await startTestEmulator({
    profile: 'current',
    seed: fixtureSeed(),
    pipeTransitionMs: TRANSITION_MS,
  });
  const workspace = await createWorkspace(emulator.url, {
    ...options,
    rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
  });
  cleanup.push(
    () => workspace.dispose(),
    () => emulator.close(),
  );
  return { emulator, workspace };
}

function cdcYaml(name: string, sizing: Record<string, unknown>, target?: string): string {
  return stringify({
    apiVersion: 'stacksync/v1',
    kind: 'PipeCdcScaling',
    metadata: { name, ...(target ? { target } : {}) },
    spec: sizing,
  });
}

async function writePipes(workspace: Workspace, pipes: readonly BornPipe[]): Promise<void> {
  const { yaml, env } = bornPipesYaml(pipes.map((pipe) => ({ target: 'local', ...pipe })));
  Object.assign(workspace.env, env);
  await workspace.write('manifests/pipes.yaml', yaml);
}

/** The service's CDC scaling as a GET answers it now: its status, and its sizing when there is one. */
async function liveCdcScaling(emulator: RunningEmulator): Promise<{ status: number; sizing?: Record<string, number> }> {
  const response = await fetch(`${emulator.url}${SERVICE}/pipesCdcScaling`, {
    headers: { authorization: `Basic ${Buffer.from(`${ids.keyId}:${ids.keySecret}`).toString('base64')}` },
  });
  const body = (await response.json()) as { result?: Record<string, number> };
  return response.status === 200 ? { status: 200, sizing: body.result ?? {} } : { status: response.status };
}

function expectExit(result: CliResult, code: number, what: string): void {
  expect(result.code, `${what}\n${describeRun(result)}`).toBe(code);
}

function changeOf(result: CliResult, kind: string) {
  return parseJsonOutput(result).changes.find((change) => change.kind === kind);
}

const POSTGRES: BornPipe = { key: 'orders-cdc', family: 'postgres' };

describe('PipeCdcScaling on the current profile', () => {
  it('comes in one commit with the first database pipe: one apply creates the pipe, waits for the setting and sets it; a second apply writes nothing', async () => {
    const { emulator, workspace } = await setup();
    await writePipes(workspace, [POSTGRES]);
    await workspace.write('manifests/cdc.yaml', cdcYaml('cdc', { replicaCpuMillicores: 4000, replicaMemoryGb: 16 }));
    expect((await liveCdcScaling(emulator)).status, 'no database pipe yet, so no CDC scaling').toBe(404);

    const plan = await workspace.run(['plan', '--target', 'local', '--output', 'json']);
    expectExit(plan, 0, 'plan');
    const planned = changeOf(plan, 'PipeCdcScaling');
    expect(planned).toMatchObject({ name: 'cdc', action: 'update', file: 'manifests/cdc.yaml', line: 1 });
    expect(planned?.diff).toEqual([
      { path: 'replicaCpuMillicores', after: 4000 },
      { path: 'replicaMemoryGb', after: 16 },
    ]);
    expect(planned?.warnings?.join('\n')).toContain('Pipe/orders-cdc');

    const applied = await workspace.run(['apply', '--target', 'local'], { timeoutMs: 120_000 });
    expectExit(applied, 0, 'apply');
    expect(await liveCdcScaling(emulator), 'apply waited until a GET shows the asked sizing').toEqual({
      status: 200,
      sizing: { replicaCpuMillicores: 4000, replicaMemoryGb: 16 },
    });

    await resetEmulatorStats(emulator.url);
    expectExit(await workspace.run(['apply', '--target', 'local']), 0, 'second apply');
    expect((await emulatorStats(emulator.url)).writes, 'writes of the second apply').toBe(0);
    const clean = await workspace.run(['plan', '--target', 'local', '--detailed-exitcode']);
    expectExit(clean, 0, 'plan after apply');
    expect(clean.stdout).toContain('No changes.');
  }, 120_000);

  it('applies a changed sizing once, with a plan that shows the field diff', async () => {
    const { emulator, workspace } = await setup();
    await writePipes(workspace, [POSTGRES]);
    await workspace.write('manifests/cdc.yaml', cdcYaml('cdc', { replicaCpuMillicores: 4000, replicaMemoryGb: 16 }));
    expectExit(await workspace.run(['apply', '--target', 'local'], { timeoutMs: 120_000 }), 0, 'first apply');

    await workspace.write('manifests/cdc.yaml', cdcYaml('cdc', { replicaCpuMillicores: 8000, replicaMemoryGb: 32 }));
    const plan = await workspace.run(['plan', '--target', 'local']);
    expectExit(plan, 0, 'plan');
    expect(plan.stdout).toContain('~ update PipeCdcScaling/cdc');
    expect(plan.stdout).toMatch(/replicaCpuMillicores: 4000 → 8000/);
    expect(plan.stdout).toMatch(/replicaMemoryGb: 16 → 32/);

    await resetEmulatorStats(emulator.url);
    expectExit(await workspace.run(['apply', '--target', 'local'], { timeoutMs: 120_000 }), 0, 'apply');
    expect(writesByRoute(await emulatorStats(emulator.url))).toEqual({ [`PATCH ${CDC_ROUTE}`]: 1 });
    expect((await liveCdcScaling(emulator)).sizing).toEqual({ replicaCpuMillicores: 8000, replicaMemoryGb: 32 });

    await resetEmulatorStats(emulator.url);
    expectExit(await workspace.run(['apply', '--target', 'local']), 0, 'second apply');
    expect((await emulatorStats(emulator.url)).writes).toBe(0);
  }, 120_000);

  it('reads the setting only for a target with a manifest of it: a plan without one makes no call for it', async () => {
    const { emulator, workspace } = await setup();
    await writePipes(workspace, [POSTGRES]);
    expectExit(await workspace.run(['apply', '--target', 'local'], { timeoutMs: 120_000 }), 0, 'apply');
    await resetEmulatorStats(emulator.url);
    expectExit(await workspace.run(['plan', '--target', 'local']), 0, 'plan');
    const routes = (await emulatorStats(emulator.url)).routes.map((route) => route.route);
    expect(routes).toContain(PIPES_ROUTE);
    expect(routes).not.toContain(CDC_ROUTE);
  }, 120_000);

  it('two manifests of it for one target: exit 1, an error at each naming the other file, nothing written', async () => {
    const { emulator, workspace } = await setup();
    await writePipes(workspace, [POSTGRES]);
    await workspace.write('manifests/cdc.yaml', cdcYaml('cdc', { replicaCpuMillicores: 4000, replicaMemoryGb: 16 }));
    await workspace.write(
      'manifests/team/cdc-too.yaml',
      cdcYaml('cdc-big', { replicaCpuMillicores: 8000, replicaMemoryGb: 32 }),
    );
    await resetEmulatorStats(emulator.url);
    const applied = await workspace.run(['apply', '--target', 'local']);
    expectExit(applied, 1, 'apply');
    const output = applied.stdout + applied.stderr;
    expect(output).toContain(
      'manifests/cdc.yaml:2:7: E_MANIFEST_DUPLICATE: kind: the CDC scaling (one per service, so at most one PipeCdcScaling manifest per target) is defined again for target local at manifests/team/cdc-too.yaml',
    );
    expect(output).toContain(
      'manifests/team/cdc-too.yaml:2:7: E_MANIFEST_DUPLICATE: kind: the CDC scaling (one per service, so at most one PipeCdcScaling manifest per target) is already defined for target local at manifests/cdc.yaml',
    );
    expect((await emulatorStats(emulator.url)).writes, 'a target with manifest errors gets no writes').toBe(0);
  }, 60_000);

  it.each([
    [
      'CPU off its 1000-millicore steps',
      { replicaCpuMillicores: 2500, replicaMemoryGb: 10 },
      'spec.replicaCpuMillicores: must be multiple of 1000',
      6,
    ],
    [
      'CPU above 24 cores',
      { replicaCpuMillicores: 25000, replicaMemoryGb: 100 },
      'spec.replicaCpuMillicores: must be <= 24000',
      6,
    ],
    [
      'memory not 4 GB per core',
      { replicaCpuMillicores: 4000, replicaMemoryGb: 8 },
      'spec.replicaMemoryGb: must be 4 GB per CPU core: 16 for 4000 millicores',
      7,
    ],
  ])(
    'validate refuses %s, offline, at its line',
    async (_what, sizing, message, line) => {
      const { workspace } = await setup();
      await workspace.write('manifests/cdc.yaml', cdcYaml('cdc', sizing));
      const result = await workspace.run(['validate']);
      expectExit(result, 1, 'validate');
      expect(result.stdout).toMatch(
        new RegExp(
          `manifests/cdc\\.yaml:${line}:\\d+: E_MANIFEST_INVALID: ${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
        ),
      );
    },
    60_000,
  );

  it('on a target that speaks the seed profile, or is self-hosted, a manifest of it is an error at its line that says why', async () => {
    const { emulator, workspace } = await setup({});
    await workspace.write('manifests/cdc.yaml', cdcYaml('cdc', { replicaCpuMillicores: 4000, replicaMemoryGb: 16 }));
    await workspace.write(
      'manifests/self-hosted.yaml',
      cdcYaml('cdc', { replicaCpuMillicores: 4000, replicaMemoryGb: 16 }, 'local-selfhosted'),
    );
    await resetEmulatorStats(emulator.url);
    const plan = await workspace.run(['plan']);
    expectExit(plan, 1, 'plan');
    const output = plan.stdout + plan.stderr;
    expect(output).toContain(
      'manifests/cdc.yaml:2:7: E_MANIFEST_INVALID: kind: a PipeCdcScaling needs a managed target with api profile current, and local speaks api profile seed',
    );
    expect(output).toContain(
      'manifests/self-hosted.yaml:5:11: E_MANIFEST_INVALID: metadata.target: a PipeCdcScaling needs a managed target with api profile current, and local-selfhosted is self-hosted',
    );
    expect((await emulatorStats(emulator.url)).routes.map((route) => route.route)).not.toContain(CDC_ROUTE);
  }, 60_000);

  it('without a database pipe, live or on its way, the change is an error on that manifest alone; the rest applies', async () => {
    const { emulator, workspace } = await setup();
    await writePipes(workspace, [{ key: 'events', family: 'kafka' }]);
    await workspace.write('manifests/cdc.yaml', cdcYaml('cdc', { replicaCpuMillicores: 4000, replicaMemoryGb: 16 }));
    const applied = await workspace.run(['apply', '--target', 'local', '--output', 'json'], { timeoutMs: 120_000 });
    expectExit(applied, 1, 'apply');
    const cdc = changeOf(applied, 'PipeCdcScaling');
    expect(cdc).toMatchObject({ action: 'error', code: 'E_API_NOT_FOUND', file: 'manifests/cdc.yaml', line: 1 });
    expect(cdc?.error).toContain(
      'the service makes it once a database pipe (postgres, mysql, mongodb, bigquery) is provisioned',
    );
    expect(changeOf(applied, 'Pipe')).toMatchObject({ action: 'create', result: 'ok' });
    expect((await liveCdcScaling(emulator)).status).toBe(404);
  }, 120_000);

  it('a run that does not wait (--wait 0, as the daemon) is not held by the setting: it fails that change, and the next run sets it', async () => {
    const { emulator, workspace } = await setup();
    await writePipes(workspace, [POSTGRES]);
    await workspace.write('manifests/cdc.yaml', cdcYaml('cdc', { replicaCpuMillicores: 4000, replicaMemoryGb: 16 }));
    const started = Date.now();
    const first = await workspace.run(['apply', '--target', 'local', '--wait', '0', '--output', 'json']);
    expectExit(first, 1, 'apply --wait 0');
    expect(Date.now() - started, 'not held for the setting').toBeLessThan(30_000);
    const cdc = changeOf(first, 'PipeCdcScaling');
    expect(cdc).toMatchObject({ result: 'failed', code: 'E_WAIT_TIMEOUT' });
    expect(cdc?.error).toContain('the service has no CDC scaling yet');
    expect(changeOf(first, 'Pipe')).toMatchObject({ action: 'create', result: 'ok' });

    expectExit(await workspace.run(['apply', '--target', 'local'], { timeoutMs: 120_000 }), 0, 'next apply');
    expect((await liveCdcScaling(emulator)).sizing).toEqual({ replicaCpuMillicores: 4000, replicaMemoryGb: 16 });
  }, 120_000);

  it('the daemon never holds a sync for it: it sets the sizing over its next syncs, /status lists it in sync, and it is not asked for again', async () => {
    const emulator = await startTestEmulator({
      profile: 'current',
      seed: fixtureSeed(),
      pipeTransitionMs: TRANSITION_MS,
    });
    const workspace = await createWorkspace(emulator.url, {
      apiProfile: 'current',
      rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
      sync: { interval: '2s' },
    });
    cleanup.push(
      () => workspace.dispose(),
      () => emulator.close(),
    );
    await writePipes(workspace, [POSTGRES]);
    await workspace.write('manifests/cdc.yaml', cdcYaml('cdc', { replicaCpuMillicores: 4000, replicaMemoryGb: 16 }));
    const daemon = await startDaemon(workspace, ['--log-format', 'json', '--log-level', 'warn']);
    try {
      type Status = { targets: Record<string, { resources: { kind: string; name: string; status: string }[] }> };
      const cdcStatus = async (): Promise<string | undefined> =>
        (JSON.parse((await daemon.get('/status')).text) as Status).targets['local']?.resources.find(
          (resource) => resource.kind === 'PipeCdcScaling',
        )?.status;
      await waitUntil(
        async () =>
          (await cdcStatus()) === 'in_sync' &&
          (await liveCdcScaling(emulator)).sizing?.['replicaCpuMillicores'] === 4000,
        60_000,
      );
      expect((await liveCdcScaling(emulator)).sizing).toEqual({ replicaCpuMillicores: 4000, replicaMemoryGb: 16 });
      // A few more syncs: nothing is asked for again.
      await resetEmulatorStats(emulator.url);
      await waitUntil(
        async () =>
          ((await emulatorStats(emulator.url)).routes.find(
            (route) => route.route === CDC_ROUTE && route.method === 'GET',
          )?.count ?? 0) >= 2,
        30_000,
      );
      expect(writesByRoute(await emulatorStats(emulator.url))).toEqual({});
      expect(await cdcStatus()).toBe('in_sync');
    } finally {
      await daemon.stop();
    }
  }, 120_000);

  it('export writes it when the target has it, and the export plans clean', async () => {
    const { workspace } = await setup();
    await writePipes(workspace, [POSTGRES]);
    await workspace.write('manifests/cdc.yaml', cdcYaml('cdc', { replicaCpuMillicores: 6000, replicaMemoryGb: 24 }));
    expectExit(await workspace.run(['apply', '--target', 'local'], { timeoutMs: 120_000 }), 0, 'apply');
    const exported = await workspace.run([
      'export',
      '--target',
      'local',
      '--kind',
      'PipeCdcScaling',
      '--out',
      'exported',
    ]);
    expectExit(exported, 0, 'export');
    const files = await readdir(`${workspace.dir}/exported`, { recursive: true });
    const file = files.find((name) => String(name).endsWith('.yaml'));
    expect(file, files.join(', ')).toBeDefined();
    const text = await readFile(`${workspace.dir}/exported/${String(file)}`, 'utf8');
    expect(text).toContain('kind: PipeCdcScaling');
    expect(text).toContain('replicaCpuMillicores: 6000');
    expect(text).toContain('replicaMemoryGb: 24');
    const planned = await workspace.run([
      'plan',
      '--target',
      'local',
      '-m',
      'exported',
      '--output',
      'json',
      '--detailed-exitcode',
    ]);
    expectExit(planned, 0, 'plan of the export');
    expect(changeOf(planned, 'PipeCdcScaling')?.action).toBe('unchanged');
  }, 120_000);
});
