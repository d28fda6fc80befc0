/**
 * The lock scenario every shared state backend passes end to end (docs/ownership.md, "Sharing"):
 * while another process holds the lock, `plan` reads without it and shows the change, `apply`
 * waits `--lock-timeout`, fails naming the lock id and writes nothing; `state unlock <id>` breaks
 * the lock, `apply` then runs, and the holder whose lock was broken can no longer save.
 */
import { expect } from 'vitest';
import type { StateBackend } from '../../src/state/backend.js';
import type { StateLock } from '../../src/state/lock.js';
import { describeRun, liveTarget } from './e2e.js';
import type { CliResult, Workspace } from './workspace.js';

export interface HeldLockScenario {
  ws: Workspace;
  emulatorUrl: string;
  /** The other process's view of the state, holding `held`; released and closed at the end. */
  other: StateBackend;
  held: StateLock;
  /** The key of the dashboard the workspace's manifests add on target `local`. */
  dashboard: string;
  /** More checks while the lock is still held, given the refused apply. */
  whileHeld?: (apply: CliResult) => Promise<void>;
}

export async function expectHeldLockThenUnlock({
  ws,
  emulatorUrl,
  other,
  held,
  dashboard,
  whileHeld,
}: HeldLockScenario): Promise<void> {
  try {
    const plan = await ws.run(['plan', '--detailed-exitcode']);
    expect(plan.code, describeRun(plan)).toBe(2);
    const apply = await ws.run(['apply', '--lock-timeout', '1s']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('E_STATE_LOCKED');
    expect(apply.stderr).toContain(`lock id ${held.holder.token}`);
    expect((await liveTarget(emulatorUrl, 'local')).dashboards.map((d) => d.name)).not.toContain(
      `Dashboard ${dashboard}`,
    );
    await whileHeld?.(apply);

    const unlocked = await ws.run(['state', 'unlock', held.holder.token]);
    expect(unlocked.code, describeRun(unlocked)).toBe(0);
    expect(unlocked.stdout).toContain(`held by stacksync run (pid ${process.pid}`);
    const after = await ws.run(['apply']);
    expect(after.code, describeRun(after)).toBe(0);
    // The holder whose lock was broken can no longer write.
    const store = await other.open();
    store.add('local', { type: 'forgotten', kind: 'Dashboard', key: dashboard });
    await expect(store.save()).rejects.toMatchObject({ code: 'E_STATE_LOCKED' });
  } finally {
    held.releaseSync();
    await other.close();
  }
}
