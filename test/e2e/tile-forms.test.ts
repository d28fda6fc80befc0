/**
 * A tile the target's servers would refuse is found before any write, where it is written:
 * - a series a current server cannot take (its data named only by `dataSource`, a quantile without
 *   its level), or a `config` tile for a seed-profile target: `validate` with the config (offline)
 *   and `plan` name the series' (or member's) line, not the document's first line;
 * - a new tile with neither series nor config (every server refuses it): `plan` refuses it, and
 *   `apply` writes nothing; a tile of that name the live dashboard has may give only its place.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { describeRun } from '../helpers/e2e.js';
import {
  createWorkspace,
  emulatorStats,
  resetEmulatorStats,
  startTestEmulator,
  type Workspace,
} from '../helpers/workspace.js';
import type { RunningEmulator } from '../../src/emulator/index.js';

const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 };

/** The dashboard of the old getting-started page: a series naming its data by dataSource only, a quantile without level. */
const OLD_SERIES = `apiVersion: stacksync/v1
kind: Dashboard
metadata:
  name: api-latency
spec:
  name: API latency
  tiles:
    - name: p99
      x: 0
      y: 0
      w: 12
      h: 4
      series:
        - { type: time, dataSource: events, aggFn: quantile, field: duration_ms }
`;

const CONFIG_TILE = `apiVersion: stacksync/v1
kind: Dashboard
metadata: { name: traces }
spec:
  name: Traces
  tiles:
    - name: p99
      x: 0
      y: 0
      w: 12
      h: 4
      config: { displayType: line, source: traces, select: [{ aggFn: count }] }
`;

const chartless = (tiles: string): string => `apiVersion: stacksync/v1
kind: Dashboard
metadata: { name: layout }
spec:
  name: Layout
  tiles:
${tiles}`;

const emulators: RunningEmulator[] = [];
const workspaces: Workspace[] = [];
afterAll(async () => {
  await Promise.all(workspaces.map((workspace) => workspace.dispose()));
  await Promise.all(emulators.map((emulator) => emulator.close()));
});

async function open(profile: 'seed' | 'current'): Promise<{ emulator: RunningEmulator; workspace: Workspace }> {
  const emulator = await startTestEmulator({ profile });
  emulators.push(emulator);
  const workspace = await createWorkspace(emulator.url, { apiProfile: profile, rateLimit: FAST });
  workspaces.push(workspace);
  return { emulator, workspace };
}

describe('tile forms a target refuses', () => {
  it('a series a current server cannot take is an error at the series line in validate and plan', async () => {
    const { workspace } = await open('current');
    await workspace.write('manifests/a.yaml', OLD_SERIES);
    const validate = await workspace.run(['validate']);
    expect(validate.code, describeRun(validate)).toBe(1);
    expect(validate.stdout + validate.stderr).toMatch(
      /manifests\/a\.yaml:14:\d+: E_MANIFEST_INVALID: spec\.tiles\[0\]\.series\[0\]: tile p99: a current server names a tile's data by source, not dataSource/,
    );
    await workspace.write(
      'manifests/a.yaml',
      OLD_SERIES.replace('dataSource: events,', 'dataSource: events, source: logs,'),
    );
    const plan = await workspace.run(['plan']);
    expect(plan.code, describeRun(plan)).toBe(1);
    expect(plan.stdout + plan.stderr).toMatch(
      /manifests\/a\.yaml:14:\d+: E_MANIFEST_INVALID: spec\.tiles\[0\]\.series\[0\]: tile p99: a quantile series needs its level on a current server/,
    );
  }, 60_000);

  it('a config tile for a seed-profile target is an error at its config line', async () => {
    const { workspace } = await open('seed');
    await workspace.write('manifests/traces.yaml', CONFIG_TILE);
    const validate = await workspace.run(['validate']);
    expect(validate.code, describeRun(validate)).toBe(1);
    expect(validate.stdout + validate.stderr).toMatch(
      /manifests\/traces\.yaml:12:\d+: E_MANIFEST_INVALID: spec\.tiles\[0\]\.config: tile p99: the target speaks api profile seed, which takes tiles as series, not config/,
    );
  }, 60_000);

  it.each(['seed', 'current'] as const)(
    'a new tile without series or config is refused by plan on %s, and apply writes nothing',
    async (profile) => {
      const { emulator, workspace } = await open(profile);
      await workspace.write('manifests/layout.yaml', chartless('    - { name: notes, x: 0, y: 0, w: 12, h: 4 }\n'));
      const plan = await workspace.run(['plan']);
      expect(plan.code, describeRun(plan)).toBe(1);
      expect(plan.stdout, describeRun(plan)).toContain('tile notes: a new tile needs series or config');
      await resetEmulatorStats(emulator.url);
      const apply = await workspace.run(['apply']);
      expect(apply.code, describeRun(apply)).not.toBe(0);
      expect(apply.stdout, describeRun(apply)).not.toContain('HTTP 400');
      expect((await emulatorStats(emulator.url)).writes).toBe(0);
    },
    60_000,
  );

  it('a tile the live dashboard has may give only its place: its live chart is kept', async () => {
    const { workspace } = await open('seed');
    const charted = '    - { name: notes, x: 0, y: 0, w: 12, h: 4, series: [{ type: markdown, content: hello }] }\n';
    await workspace.write('manifests/layout.yaml', chartless(charted));
    const created = await workspace.run(['apply']);
    expect(created.code, describeRun(created)).toBe(0);
    await workspace.write('manifests/layout.yaml', chartless('    - { name: notes, x: 0, y: 0, w: 6, h: 4 }\n'));
    const resized = await workspace.run(['apply']);
    expect(resized.code, describeRun(resized)).toBe(0);
    // Only the place changes: the chart the live tile has is neither diffed nor dropped.
    expect(resized.stdout, describeRun(resized)).toContain('tiles[notes].w: 12 → 6');
    expect(resized.stdout, describeRun(resized)).not.toMatch(/tiles\[notes\]\.(series|config)/);
  }, 60_000);
});
