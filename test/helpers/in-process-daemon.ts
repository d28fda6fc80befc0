/**
 * A daemon in this process, opened as `stacksync run` opens it (state guarded by the lock per
 * sync), on a workspace, with the API hooks counted in `metrics`; resolves once it is ready.
 */
import { openSession } from '../../src/cli/context.js';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.js';
import { apiHooksFor, type Metrics } from '../../src/daemon/metrics.js';
import { createLogger } from '../../src/support/logger.js';
import { waitFor } from './e2e.js';
import type { Workspace } from './workspace.js';

export interface InProcessDaemon {
  daemon: Daemon;
  /** Stops the daemon, then closes its session (clients, state, lock): what `run` does on SIGTERM. */
  stop(): Promise<void>;
}

export async function startInProcessDaemon(
  workspace: Workspace,
  options: { metrics: Metrics; env?: Record<string, string>; listen?: boolean },
): Promise<InProcessDaemon> {
  const { metrics } = options;
  const logger = createLogger({ level: 'silent' });
  const session = await openSession(
    { config: workspace.configPath, manifests: workspace.manifestsDir },
    {
      writeKey: true,
      state: { mode: 'guarded', command: 'run', lockTimeoutMs: 5_000 },
      env: { ...workspace.env, ...options.env },
      logger,
      clientOptions: { hooksFor: (target) => apiHooksFor(metrics, target) },
    },
  );
  const listen = options.listen === false ? {} : { listen: { host: '127.0.0.1', port: 0 } };
  const daemon = await startDaemon({
    context: session.context,
    metrics,
    logger,
    dryRun: false,
    ...listen,
    watch: false,
    drainMs: 300,
    closeClients: () => session.clients.close(),
    stateGuard: session.guard,
  });
  await waitFor(() => daemon.ready(), 30_000, 50);
  return {
    daemon,
    async stop() {
      await daemon.stop();
      await session.close();
    },
  };
}
