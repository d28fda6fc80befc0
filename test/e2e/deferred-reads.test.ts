/**
 * Lists a plan reads only when it asks for them (`deferredKinds`): a kind the target lists but
 * cannot write (the seed's managed sources; the current managed API has none such: it has no
 * connection list at all) is read when a plan looks at it — a name to resolve, evidence of tiles a GET hides before an update
 * — and then the target is planned again with it. Every other plan makes no call for it. Through
 * the built CLI against the seed profile, counting the emulator's list calls.
 */
import { describe, expect, it } from 'vitest';
import { defaultSeed, type Profile } from '../../src/emulator/index.js';
import { describeRun, parseJsonOutput } from '../helpers/e2e.js';
import { emulatorStats, resetEmulatorStats, sharedEmulator } from '../helpers/workspace.js';

const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 } as const;

/** The list the managed target reads only when asked, by profile (the current profile has none). */
const DEFERRED: Partial<Record<Profile, { route: string; evidence?: string }>> = {
  seed: { route: '/stack/sources' },
};

function dashboardYaml(profile: Profile, width: number, extra = ''): string {
  const chart =
    profile === 'seed'
      ? 'series: [{ type: time, dataSource: events, aggFn: count }]'
      : 'config: { displayType: line, source: logs, select: [{ aggFn: count }] }';
  return `apiVersion: stacksync/v1
kind: Dashboard
metadata: { name: ops, target: local }
spec:
  name: Ops
${extra}  tiles:
    - { name: volume, x: 0, y: 0, w: ${width}, h: 4, ${chart} }
`;
}

async function listsOf(url: string, route: string): Promise<number> {
  const stats = await emulatorStats(url);
  return stats.routes
    .filter((each) => each.method === 'GET' && each.route.endsWith(route))
    .reduce((sum, each) => sum + each.count, 0);
}

describe.each(['seed'] as const)('against the %s profile', (profile) => {
  const shared = sharedEmulator({ profile, seed: defaultSeed(profile) });
  const { route, evidence } = DEFERRED[profile] ?? { route: '' };

  it('reads the list only for a plan that asks for it: not to create, not in sync; before an update, once', async () => {
    const { url } = shared.emulator;
    const workspace = await shared.workspace({ rateLimit: FAST, apiProfile: profile });
    await workspace.write('manifests/ops.yaml', dashboardYaml(profile, 12));

    await resetEmulatorStats(url);
    const create = await workspace.run(['apply']);
    expect(create.code, describeRun(create)).toBe(0);
    expect(await listsOf(url, route)).toBe(0);

    await resetEmulatorStats(url);
    const inSync = await workspace.run(['plan', '--detailed-exitcode']);
    expect(inSync.code, describeRun(inSync)).toBe(0);
    expect(await listsOf(url, route)).toBe(0);

    // An update replaces the whole tile list: the plan asks what tells of tiles its GET hides.
    await workspace.write('manifests/ops.yaml', dashboardYaml(profile, 24));
    await resetEmulatorStats(url);
    const update = await workspace.run(['plan', '--detailed-exitcode', '--output', 'json']);
    expect(await listsOf(url, route)).toBe(1);
    const [change] = parseJsonOutput(update).changes;
    if (evidence === undefined) {
      expect(update.code, describeRun(update)).toBe(2);
      expect(change).toMatchObject({ kind: 'Dashboard', name: 'ops', action: 'update' });
    } else {
      // What the deferred list held decided the plan: the update is refused, naming it.
      expect(update.code, describeRun(update)).toBe(1);
      expect(change).toMatchObject({ kind: 'Dashboard', name: 'ops', action: 'error', code: 'E_CONFLICT' });
      expect(change?.error).toContain(evidence);
      await workspace.write('manifests/ops.yaml', dashboardYaml(profile, 24, '  ownsAllTiles: true\n'));
    }

    await resetEmulatorStats(url);
    const apply = await workspace.run(['apply']);
    expect(apply.code, describeRun(apply)).toBe(0);
    expect((await emulatorStats(url)).writes).toBe(1);
    await resetEmulatorStats(url);
    expect((await workspace.run(['plan', '--detailed-exitcode'])).code).toBe(0);
    expect(await listsOf(url, route)).toBe(0);
  }, 60_000);
});
