/**
 * The stage the late-create tests share: an emulator behind a proxy that can hold a request, and
 * a workspace on the proxy whose manifests are one dashboard (tile `lag`) and an alert on it, on
 * the self-hosted target. The first dashboard create can be held: the proxy takes it whole and
 * the client never hears back, until the test releases it.
 */
import { afterAll, beforeAll } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { alertYaml, dashboardYaml, documents, liveTarget } from './e2e.js';
import { startProxy, type RunningProxy } from './proxy.js';
import { createWorkspace, startTestEmulator, type CliResult, type Workspace } from './workspace.js';

export const LATE_TARGET = 'local-selfhosted';

export interface LateCreateStage {
  readonly emulator: RunningEmulator;
  readonly proxy: RunningProxy;
  readonly workspace: Workspace;
  /** Ids of the live dashboards of the target named `name`. */
  dashboardsNamed(name: string): Promise<string[]>;
  /** `apply --output json` on the target, with its first dashboard create held by the proxy. */
  applyWithCreateHeld(): Promise<CliResult>;
}

/** Registers the hooks that build the stage before the file's tests and take it down after; `key` names the dashboard manifest (`manifests/<key>.yaml`) and its alert (`<key>-lag`). */
export function lateCreateStage(key: string): LateCreateStage {
  let emulator: RunningEmulator | undefined;
  let proxy: RunningProxy | undefined;
  let workspace: Workspace | undefined;
  beforeAll(async () => {
    emulator = await startTestEmulator();
    proxy = await startProxy(emulator.url);
    workspace = await createWorkspace(proxy.url, { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    await workspace.write(
      `manifests/${key}.yaml`,
      documents([
        dashboardYaml({ key, target: LATE_TARGET, tiles: ['lag'] }),
        alertYaml({ key: `${key}-lag`, target: LATE_TARGET, dashboard: key, tile: 'lag' }),
      ]),
    );
  });
  afterAll(async () => {
    await workspace?.dispose();
    await proxy?.close();
    await emulator?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the late-create stage is built in beforeAll');
    return value;
  };
  return {
    get emulator() {
      return started(emulator);
    },
    get proxy() {
      return started(proxy);
    },
    get workspace() {
      return started(workspace);
    },
    async dashboardsNamed(name) {
      return (await liveTarget(started(emulator).url, LATE_TARGET)).dashboards
        .filter((d) => d.name === name)
        .map((d) => d.id);
    },
    async applyWithCreateHeld() {
      const held = started(proxy);
      let first = true;
      held.intercept((request) => {
        if (request.method !== 'POST' || request.path !== '/api/v2/dashboards' || !first) return undefined;
        first = false;
        return 'hold';
      });
      try {
        return await started(workspace).run(['apply', '--target', LATE_TARGET, '--output', 'json']);
      } finally {
        held.intercept(undefined);
      }
    },
  };
}
