/**
 * `stacksync export` checks what it writes as `validate` would (docs/export.md#what-validate-would-refuse),
 * through the built CLI against the emulator's `current` profile, on both variants:
 * - a live table tile whose drill-down (`onClick`) lacks what the services' documents require of
 *   its type (an external link-out with `url` and no `urlTemplate`, as an older console wrote
 *   one) is written all the same, and export says on stderr, at the file's line, which member
 *   `validate` refuses, and what to do; `validate` of the output then refuses the same line;
 * - on the managed variant, a chart with `formulas`, which HyperDX's document has and the managed
 *   one lacks (a member the documents lack), likewise;
 * - a link-out that holds what its type requires is exported, validates, and plans clean once
 *   adopted: the drill-down round-trips; edited live, `pull` writes the edit into the file and
 *   a plan is clean again.
 * A clean export says nothing of the kind (the test that the check can stay silent).
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_CURRENT_IDS, defaultSeed, type RunningEmulator, type Seed } from '../../src/emulator/index.js';
import { describeRun } from '../helpers/e2e.js';
import { stackClient } from '../emulator/current-helpers.js';
import { createWorkspace, startTestEmulator, type CliResult, type Workspace } from '../helpers/workspace.js';

const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 };
const PLACEMENT = { x: 0, y: 0, w: 12, h: 4 };

type Variant = 'local' | 'local-selfhosted';

/** The default current seed, with two dashboards of table tiles on the variant's stack: one link-out whole, one as the documents refuse it. */
function seedWith(variant: Variant): Seed {
  const seed = defaultSeed('current');
  const ids = variant === 'local' ? DEFAULT_CURRENT_IDS.service : DEFAULT_CURRENT_IDS.team;
  const table = (name: string, onClick: Record<string, unknown>) => ({
    id: `${name}-tile`,
    name,
    ...PLACEMENT,
    config: {
      displayType: 'table',
      sourceId: ids.sources.log,
      select: [{ aggFn: 'count' }],
      groupBy: 'ServiceName',
      onClick,
    },
  });
  const dashboards = [
    {
      name: 'Drill down',
      tiles: [
        table('by-service', {
          type: 'search',
          target: { mode: 'id', id: ids.sources.log },
          whereTemplate: "ServiceName = '{{ServiceName}}'",
          whereLanguage: 'sql',
        }),
      ],
    },
    { name: 'Old link', tiles: [table('to-grafana', { type: 'external', url: 'https://grafana.example.com/d/svc' })] },
  ];
  if (variant === 'local') {
    const select = [
      { aggFn: 'count', alias: 'a' },
      { aggFn: 'count', alias: 'b' },
    ];
    dashboards.push({
      name: 'Ratios',
      tiles: [
        {
          id: 'ratio-tile',
          name: 'ratio',
          ...PLACEMENT,
          config: { displayType: 'line', sourceId: ids.sources.log, select, formulas: [{ expression: 'a / b' }] },
        } as never,
      ],
    });
  }
  const stack = variant === 'local' ? seed.organizations?.[0]?.services?.[0] : seed.teams?.[0];
  if (!stack) throw new Error('the default seed has no stack for the variant');
  Object.assign(stack, { dashboards });
  return seed;
}

describe.each<Variant>(['local', 'local-selfhosted'])(
  'export checks what it writes as validate does (%s, current profile)',
  (target) => {
    let emulator: RunningEmulator;
    let workspace: Workspace;
    let exported: CliResult;

    beforeAll(async () => {
      emulator = await startTestEmulator({ profile: 'current', seed: seedWith(target) });
      workspace = await createWorkspace(emulator.url, { apiProfile: 'current', rateLimit: FAST });
      exported = await workspace.run([
        'export',
        '--target',
        target,
        '--out',
        'exported',
        '--kind',
        'Dashboard',
        '--adopt',
      ]);
    }, 120_000);
    afterAll(async () => {
      await workspace?.dispose();
      await emulator?.close();
    });

    const text = (file: string): Promise<string> => readFile(join(workspace.dir, 'exported', file), 'utf8');
    /** The 1-based line of the first line of `file` holding `needle`. */
    const lineOf = async (file: string, needle: string): Promise<number> =>
      (await text(file)).split('\n').findIndex((line) => line.includes(needle)) + 1;

    it('writes every dashboard, the one validate refuses included, and exits 0 (export has no partial exit code)', async () => {
      expect(exported.code, describeRun(exported)).toBe(0);
      expect(exported.stdout).toContain('wrote dashboards/drill-down.yaml');
      expect(exported.stdout).toContain('wrote dashboards/old-link.yaml');
      // Nothing lost: the link-out as the live tile has it.
      const spec = (
        parse(await text('dashboards/old-link.yaml')) as { spec: { tiles: { config: Record<string, unknown> }[] } }
      ).spec;
      expect(spec.tiles[0]?.config['onClick']).toEqual({ type: 'external', url: 'https://grafana.example.com/d/svc' });
    });

    it('says on stderr, at the file and line, which member validate refuses, and what to do', async () => {
      const line = await lineOf('dashboards/old-link.yaml', 'onClick:');
      expect(line).toBeGreaterThan(0);
      const warnings = exported.stderr.split('\n').filter((each) => each.startsWith('stacksync: warning: '));
      expect(warnings.find((each) => each.includes('dashboards/old-link.yaml'))).toMatch(
        new RegExp(
          `^stacksync: warning: exported/dashboards/old-link\\.yaml:${line}:\\d+: E_MANIFEST_INVALID: .*config\\.onClick\\.urlTemplate: is required`,
        ),
      );
      expect(exported.stderr).toContain(
        `${target === 'local' ? '2 exported files' : '1 exported file'} would not pass \`stacksync validate\``,
      );
      expect(exported.stderr).toMatch(
        /Fix the member named in the file \(or the resource in the console, then export again with --force\)/,
      );
      expect(exported.stderr).not.toContain('drill-down.yaml');
    });

    it.runIf(target === 'local')('says so of a member the managed document lacks (formulas), at its line', async () => {
      expect(exported.stdout).toContain('wrote dashboards/ratios.yaml');
      const line = await lineOf('dashboards/ratios.yaml', 'expression: a / b');
      expect(line).toBeGreaterThan(0);
      expect(exported.stderr).toMatch(
        new RegExp(
          `^stacksync: warning: exported/dashboards/ratios\\.yaml:${line}:\\d+: E_MANIFEST_INVALID: .*formulas`,
          'm',
        ),
      );
    });

    it('is what validate then says of the output, at the same lines', async () => {
      const validated = await workspace.run(['validate', '-m', 'exported']);
      expect(validated.code, describeRun(validated)).toBe(1);
      const refusals = validated.stdout.split('\n').filter((each) => each.includes(': E_'));
      const warned = exported.stderr
        .split('\n')
        .filter((each) => each.includes(': E_'))
        .map((each) => each.replace('stacksync: warning: ', ''));
      expect(refusals).toEqual(warned);
      expect(refusals).toHaveLength(target === 'local' ? 2 : 1);
      const line = await lineOf('dashboards/old-link.yaml', 'onClick:');
      expect(refusals).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^exported/dashboards/old-link\\.yaml:${line}:\\d+: E_MANIFEST_INVALID: .*config\\.onClick\\.urlTemplate: is required`,
          ),
        ),
      );
    });

    it('round-trips a whole link-out: exported by id, valid, and a plan of it changes nothing', async () => {
      const spec = (
        parse(await text('dashboards/drill-down.yaml')) as { spec: { tiles: { config: Record<string, unknown> }[] } }
      ).spec;
      const ids = target === 'local' ? DEFAULT_CURRENT_IDS.service : DEFAULT_CURRENT_IDS.team;
      expect(spec.tiles[0]?.config['onClick']).toEqual({
        type: 'search',
        target: { mode: 'id', id: ids.sources.log },
        whereTemplate: "ServiceName = '{{ServiceName}}'",
        whereLanguage: 'sql',
      });
      await rm(join(workspace.dir, 'exported', 'dashboards', 'old-link.yaml'));
      await rm(join(workspace.dir, 'exported', 'dashboards', 'ratios.yaml'), { force: true });
      const validated = await workspace.run(['validate', '-m', 'exported']);
      expect(validated.code, describeRun(validated)).toBe(0);
      const planned = await workspace.run(['plan', '-m', 'exported', '--target', target, '--detailed-exitcode']);
      expect(planned.code, describeRun(planned)).toBe(0);
    });

    it('pulls a live edit of the link-out into the exported file, and plans clean after it', async () => {
      const client = stackClient(emulator, target === 'local' ? 'managed' : 'self-hosted');
      const listed = await client.request('GET', 'dashboards');
      const live = (listed.data as { id: string; name: string }[]).find((each) => each.name === 'Drill down');
      expect(live, JSON.stringify(listed.data)).toBeDefined();
      const { id, ...body } = (await client.request('GET', `dashboards/${live!.id}`)).data as {
        id: string;
        tiles: { config: { onClick: Record<string, unknown> } }[];
      };
      const edited = "ServiceName = '{{ServiceName}}' AND SeverityText = 'error'";
      (body.tiles[0] as { config: { onClick: Record<string, unknown> } }).config.onClick['whereTemplate'] = edited;
      const put = await client.request('PUT', `dashboards/${id}`, body);
      expect(put.status, JSON.stringify(put.data ?? put.error)).toBe(200);
      const pulled = await workspace.run(['pull', '-m', 'exported', '--target', target]);
      expect(pulled.code, describeRun(pulled)).toBe(2);
      const spec = (
        parse(await text('dashboards/drill-down.yaml')) as { spec: { tiles: { config: Record<string, unknown> }[] } }
      ).spec;
      expect(spec.tiles[0]?.config['onClick']).toMatchObject({ type: 'search', whereTemplate: edited });
      const planned = await workspace.run(['plan', '-m', 'exported', '--target', target, '--detailed-exitcode']);
      expect(planned.code, describeRun(planned)).toBe(0);
    });

    it('says nothing of validate when everything it writes is valid', async () => {
      const again = await workspace.run(['export', '--target', target, '--out', 'again', '--kind', 'Source']);
      expect(again.code, describeRun(again)).toBe(0);
      expect(again.stdout).toContain('wrote sources/');
      expect(again.stderr).not.toContain('validate');
      expect(again.stderr).not.toContain('E_MANIFEST');
    });
  },
);
