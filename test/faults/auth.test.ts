/**
 * Auth faults (issue 8): wrong, unknown ("expired"), other-organization and missing credentials.
 * Each must give a clear error naming the target and never the secret, exit 1, send at most one
 * read per collection of the refused target (no retry storm on a 401/403: waiting does not fix a
 * credential), and write nothing there. The other target, whose credentials are good, still syncs.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accessOf } from '../../src/kinds/index.js';
import { KINDS } from '../../src/kinds/registry.js';
import { DEFAULT_SEED_IDS, defaultSeed, type RunningEmulator, type Seed } from '../../src/emulator/index.js';
import { crashOf } from '../helpers/cli-checks.js';
import { metricSum, startDaemon, waitUntil } from '../helpers/daemon.js';
import { dashboardYaml, describeRun, documents, parseJsonOutput } from '../helpers/e2e.js';
import {
  createWorkspace,
  emulatorStats,
  resetEmulatorStats,
  startTestEmulator,
  type EmulatorStats,
  type Workspace,
} from '../helpers/workspace.js';

/** A second organization with its own key and service, and a second self-hosted team. */
const OTHER = {
  organizationId: '3c5d7e9f-1a2b-4c3d-8e4f-5a6b7c8d9e01',
  serviceId: '3c5d7e9f-1a2b-4c3d-8e4f-5a6b7c8d9e02',
  keyId: 'other-org-key',
  keySecret: 'other-org-secret-Zk41qW',
  team: 'team-2',
  token: 'team-2-token-Vb83pX',
};

function twoOrganizations(): Seed {
  const seed = defaultSeed();
  seed.organizations?.push({
    id: OTHER.organizationId,
    keys: [{ id: OTHER.keyId, secret: OTHER.keySecret }],
    services: [{ id: OTHER.serviceId, state: 'running' }],
  });
  seed.teams?.push({ id: OTHER.team, tokens: [OTHER.token] });
  return seed;
}

type Variant = 'managed' | 'self-hosted';
const TARGET_OF: Record<Variant, string> = { managed: 'local', 'self-hosted': 'local-selfhosted' };
/** Collections one read of a target lists under the seed profile: every kind its variant offers (managed: pipes, sources, dashboards, alerts; self-hosted: dashboards, alerts). */
const COLLECTIONS: Record<Variant, number> = {
  managed: KINDS.filter((kind) => accessOf(kind, 'managed', 'seed') !== 'none').length,
  'self-hosted': KINDS.filter((kind) => accessOf(kind, 'self-hosted', 'seed') !== 'none').length,
};

interface AuthCase {
  name: string;
  refused: Variant;
  env: Record<string, string | undefined>;
  code: 'E_API_AUTH' | 'E_SECRET_MISSING';
  /** HTTP status the emulator answered, for API refusals. */
  status?: 401 | 403;
  /** Strings that must not appear anywhere in the output. */
  secrets: string[];
}

const WRONG_SECRET = 'wrong-secret-Qm27vL';
const EXPIRED_KEY = 'revoked-key-2024';
const EXPIRED_TOKEN = 'expired-token-Hc55tR';

const CASES: AuthCase[] = [
  {
    name: 'wrong key secret',
    refused: 'managed',
    env: { STACKSYNC_KEY_SECRET: WRONG_SECRET },
    code: 'E_API_AUTH',
    status: 401,
    secrets: [WRONG_SECRET, basic(DEFAULT_SEED_IDS.keyId, WRONG_SECRET)],
  },
  {
    name: 'expired (unknown) key id',
    refused: 'managed',
    env: { STACKSYNC_KEY_ID: EXPIRED_KEY },
    code: 'E_API_AUTH',
    status: 401,
    secrets: [DEFAULT_SEED_IDS.keySecret, basic(EXPIRED_KEY, DEFAULT_SEED_IDS.keySecret)],
  },
  {
    name: "another organization's key",
    refused: 'managed',
    env: { STACKSYNC_KEY_ID: OTHER.keyId, STACKSYNC_KEY_SECRET: OTHER.keySecret },
    code: 'E_API_AUTH',
    status: 403,
    secrets: [OTHER.keySecret, basic(OTHER.keyId, OTHER.keySecret)],
  },
  {
    name: 'wrong (expired) token',
    refused: 'self-hosted',
    env: { STACKSYNC_TOKEN: EXPIRED_TOKEN },
    code: 'E_API_AUTH',
    status: 401,
    secrets: [EXPIRED_TOKEN],
  },
  {
    name: 'missing key secret',
    refused: 'managed',
    env: { STACKSYNC_KEY_SECRET: undefined },
    code: 'E_SECRET_MISSING',
    secrets: [],
  },
  { name: 'empty token', refused: 'self-hosted', env: { STACKSYNC_TOKEN: '' }, code: 'E_SECRET_MISSING', secrets: [] },
];

function basic(id: string, secret: string): string {
  return Buffer.from(`${id}:${secret}`).toString('base64');
}

function isVariantRoute(route: string, variant: Variant): boolean {
  return variant === 'managed' ? route.startsWith('/v1/') : route.startsWith('/api/v2/');
}

/** Requests to the refused target, and the most any one route of it got. */
function refusedTraffic(
  stats: EmulatorStats,
  variant: Variant,
): { total: number; writes: number; perRoute: number; statuses: Set<string> } {
  const routes = stats.routes.filter((route) => isVariantRoute(route.route, variant));
  return {
    total: routes.reduce((sum, route) => sum + route.count, 0),
    writes: routes.filter((route) => route.method !== 'GET').reduce((sum, route) => sum + route.count, 0),
    perRoute: Math.max(0, ...routes.map((route) => route.count)),
    statuses: new Set(routes.flatMap((route) => Object.keys(route.statuses))),
  };
}

const MANIFESTS = documents([
  dashboardYaml({ key: 'auth-managed', target: 'local', tiles: ['main'] }),
  dashboardYaml({ key: 'auth-selfhosted', target: 'local-selfhosted', tiles: ['main'] }),
]);

describe('auth faults', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  beforeEach(async () => {
    emulator = await startTestEmulator({ seed: twoOrganizations() });
    workspace = await createWorkspace(emulator.url, { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    await workspace.write('manifests/dashboards.yaml', MANIFESTS);
  });
  afterEach(async () => {
    await workspace.dispose();
    await emulator.close();
  });

  function applyEnv(env: AuthCase['env']): void {
    for (const [name, value] of Object.entries(env)) {
      if (value === undefined) delete workspace.env[name];
      else workspace.env[name] = value;
    }
  }

  describe.each(CASES)('$name', (spec) => {
    const target = TARGET_OF[spec.refused];
    const healthy: Variant = spec.refused === 'managed' ? 'self-hosted' : 'managed';

    it.each([
      ['plan', ['plan', '--output', 'json']],
      ['apply --prune', ['apply', '--prune', '--output', 'json']],
    ])(
      '%s: exit 1, a clear error for that target only, one read per collection at most, nothing written there',
      async (_label, args) => {
        applyEnv(spec.env);
        await resetEmulatorStats(emulator.url);
        const result = await workspace.run(args, { timeoutMs: 30_000 });
        expect(crashOf(result), describeRun(result)).toBeUndefined();
        expect(result.code, describeRun(result)).toBe(1);

        const plan = parseJsonOutput(result);
        const errors = plan.errors ?? [];
        expect(errors, describeRun(result)).toHaveLength(1);
        expect(errors[0]).toMatchObject({ code: spec.code, target });
        expect(errors[0]?.message).toContain(`target ${target}`);
        if (spec.status)
          expect(errors[0]?.message).toMatch(
            spec.status === 401
              ? /401|unauthori[sz]ed|credentials/i
              : /403|forbidden|another organi[sz]ation|permission/i,
          );
        for (const secret of [
          ...spec.secrets,
          DEFAULT_SEED_IDS.keySecret,
          DEFAULT_SEED_IDS.token,
          OTHER.keySecret,
          OTHER.token,
        ]) {
          expect(
            result.stdout.includes(secret) || result.stderr.includes(secret),
            `output holds a secret (${secret.slice(0, 4)}…)`,
          ).toBe(false);
        }

        const stats = await emulatorStats(emulator.url);
        const refused = refusedTraffic(stats, spec.refused);
        expect(refused.writes).toBe(0);
        expect(refused.total).toBeLessThanOrEqual(COLLECTIONS[spec.refused]);
        expect(refused.perRoute).toBeLessThanOrEqual(1);
        if (spec.status) {
          expect(refused.total).toBeGreaterThanOrEqual(1);
          expect([...refused.statuses]).toEqual([String(spec.status)]);
        } else {
          // A credential that cannot be read is never sent: the refusal happens before any request.
          expect(refused.total).toBe(0);
        }
        // The target with good credentials is planned (and applied) as usual.
        expect(
          plan.changes.filter((change) => change.target === TARGET_OF[healthy]).map((change) => change.action),
        ).toEqual(['create']);
        if (args[0] === 'apply') expect(refusedTraffic(stats, healthy).writes).toBe(1);
      },
    );
  });

  it('plan text names the refused target and does not claim the live state matches', async () => {
    applyEnv({ STACKSYNC_KEY_SECRET: WRONG_SECRET });
    const result = await workspace.run(['plan', '--target', 'local']);
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stdout).toMatch(/\[local\].*target local: .*HTTP 401/);
    expect(result.stdout).not.toContain('Live state matches');
  });

  describe.each(CASES.filter((spec) => spec.status !== undefined))('daemon, $name', (spec) => {
    it('reports the refusal in /status and /metrics, reads once per sync, writes nothing, stops cleanly', async () => {
      applyEnv(spec.env);
      const target = TARGET_OF[spec.refused];
      await resetEmulatorStats(emulator.url);
      const daemon = await startDaemon(workspace, ['--log-level', 'debug']);
      try {
        let status: { targets?: Record<string, { lastResult?: string; lastError?: string }> } = {};
        await waitUntil(async () => {
          status = JSON.parse((await daemon.get('/status')).text) as typeof status;
          return status.targets?.[target]?.lastResult === 'failure';
        }, 20_000);
        // Time for a retry storm to show, if there were one.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const metrics = (await daemon.get('/metrics')).text;
        const stats = await emulatorStats(emulator.url);
        const syncs = metricSum(metrics, 'stacksync_reconcile_total', { target, result: 'failure' });
        expect(syncs).toBeGreaterThanOrEqual(1);
        expect(syncs).toBeLessThanOrEqual(2);
        const refused = refusedTraffic(stats, spec.refused);
        expect(refused.writes).toBe(0);
        expect(refused.total).toBeLessThanOrEqual(COLLECTIONS[spec.refused] * syncs);
        expect(metricSum(metrics, 'stacksync_api_requests_total', { target, code: String(spec.status) })).toBe(
          refused.total,
        );
        expect(metricSum(metrics, 'stacksync_api_retries_total', { target })).toBe(0);
        expect(status.targets?.[target]?.lastError).toContain(`target ${target}`);
        const everything = `${JSON.stringify(status)}\n${metrics}\n${daemon.output().stdout}\n${daemon.output().stderr}`;
        for (const secret of spec.secrets)
          expect(everything.includes(secret), `daemon output holds a secret (${secret.slice(0, 4)}…)`).toBe(false);
      } finally {
        const exit = await daemon.stop();
        expect(exit.code).toBe(0);
      }
    });
  });
});
