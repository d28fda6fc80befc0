/**
 * Every plan says how many requests its apply makes and how long they take: checked against
 * what the apply then sends to the emulator, request for request, per target, for creates, an
 * alert on a dashboard the same apply creates, updates, a pipe whose table mappings change (two
 * PATCHes) and a pruned delete. The text, markdown and JSON plans all say it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertYaml, billingPipe, dashboardYaml, documents, parseJsonOutput, type TargetName } from '../helpers/e2e.js';
import {
  emulatorStats,
  resetEmulatorStats,
  sharedEmulator,
  type EmulatorStats,
  type Workspace,
} from '../helpers/workspace.js';

const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 };

interface EstimateJson {
  requests: number;
  writes: number;
  reads: number;
  seconds: number;
  targets: {
    target: string;
    requests: number;
    writes: number;
    reads: number;
    seconds: number;
    rateLimit: typeof FAST;
  }[];
}

function stack(target: TargetName, version: { wide?: boolean; second?: boolean }): string {
  return documents([
    dashboardYaml({ key: 'api', target, tiles: [{ name: 'p99', w: version.wide ? 18 : 12 }, 'errors'] }),
    alertYaml({ key: 'api-slow', target, dashboard: 'api', tile: 'p99' }),
    ...(version.second ? [] : [alertYaml({ key: 'api-failing', target, dashboard: 'api', tile: 'errors' })]),
    ...(version.second
      ? [
          dashboardYaml({ key: 'db', target, tiles: ['qps'] }),
          alertYaml({ key: 'db-busy', target, dashboard: 'db', tile: 'qps' }),
        ]
      : []),
  ]);
}

/** Requests the emulator answered per target: managed routes under /v1, self-hosted under /api/v2. */
function requestsPerTarget(stats: EmulatorStats): Record<string, number> {
  const counts: Record<string, number> = { local: 0, 'local-selfhosted': 0 };
  for (const route of stats.routes) {
    const target = route.route.startsWith('/v1/')
      ? 'local'
      : route.route.startsWith('/api/v2/')
        ? 'local-selfhosted'
        : undefined;
    if (target) counts[target] = (counts[target] ?? 0) + route.count;
  }
  return counts;
}

// Each test runs several CLI commands in a row; on a loaded 2-core machine one takes seconds.
describe('the estimate of an apply', { timeout: 120_000 }, () => {
  const shared = sharedEmulator();
  let workspace: Workspace;
  beforeAll(async () => {
    workspace = await shared.workspace({ rateLimit: FAST, sync: { prune: true, maxDeletePercent: 100 } });
  });
  afterAll(async () => workspace.dispose());

  /** Plans (JSON), applies, and checks the apply sent exactly what the plan said, per target. */
  async function planThenApply(): Promise<EstimateJson> {
    const planned = await workspace.run(['plan', '--output', 'json']);
    expect(planned.code, planned.stderr).toBe(0);
    const estimate = (parseJsonOutput(planned) as unknown as { estimate: EstimateJson }).estimate;
    await resetEmulatorStats(shared.emulator.url);
    const applied = await workspace.run(['apply']);
    expect(applied.code, applied.stderr).toBe(0);
    const sent = requestsPerTarget(await emulatorStats(shared.emulator.url));
    for (const target of estimate.targets) expect(sent[target.target], target.target).toBe(target.requests);
    expect(sent['local']! + sent['local-selfhosted']!).toBe(estimate.requests);
    return estimate;
  }

  it('counts the requests of a first apply: creates, and alerts on the dashboards it creates', async () => {
    await workspace.write('manifests/local.yaml', stack('local', {}));
    await workspace.write('manifests/selfhosted.yaml', stack('local-selfhosted', {}));
    const estimate = await planThenApply();
    // Per target: the dashboard and its two alerts; managed reads pipes, dashboards, alerts (not its sources, which the
    // seed lets it list, not write, and nothing here asks for); self-hosted dashboards and a page of alerts.
    expect(estimate.targets).toEqual([
      expect.objectContaining({ target: 'local', writes: 3, reads: 3, requests: 6, rateLimit: FAST }),
      expect.objectContaining({ target: 'local-selfhosted', writes: 3, reads: 2, requests: 5, rateLimit: FAST }),
    ]);
  });

  it('counts updates, a pipe mapping change (remove, then add) and a pruned delete', async () => {
    await workspace.write(
      'manifests/local.yaml',
      documents([stack('local', { wide: true, second: true }), billingPipe('customers_v2')]),
    );
    await workspace.write('manifests/selfhosted.yaml', stack('local-selfhosted', { wide: true }));
    const estimate = await planThenApply();
    // local: two pipe PATCHes, the dashboard update, the alert delete, the new dashboard and its alert.
    expect(estimate.targets.find((target) => target.target === 'local')).toMatchObject({ writes: 2 + 4 });
    expect(estimate.targets.find((target) => target.target === 'local-selfhosted')).toMatchObject({ writes: 1 });
  });

  it('says it in the text, markdown and github plans', async () => {
    await workspace.write('manifests/selfhosted.yaml', stack('local-selfhosted', { second: true }));
    const text = await workspace.run(['plan']);
    expect(text.stdout).toMatch(
      /^Apply: \d+ requests \(\d+ writes?, \d+ reads?\), (< 1 s|≈ \d+ s) at 1,000 requests \/ 1 s, 4 at a time\.$/m,
    );
    const markdown = await workspace.run(['plan', '--output', 'markdown']);
    expect(markdown.stdout).toMatch(
      /^Apply: \d+ requests \(\d+ writes?, \d+ reads?\), .* at 1,000 requests \/ 1 s, 4 at a time\.$/m,
    );
    const github = await workspace.run(['plan', '--output', 'github']);
    expect(github.stdout).toContain('\nApply: ');
  });

  it('says it in apply --output json', async () => {
    const applied = await workspace.run(['apply', '--output', 'json']);
    expect(applied.code, applied.stderr).toBe(0);
    const json = JSON.parse(applied.stdout) as { estimate: EstimateJson };
    expect(json.estimate.writes).toBeGreaterThan(0);
    expect(json.estimate.targets.map((target) => target.target)).toEqual(['local', 'local-selfhosted']);
  });
});
