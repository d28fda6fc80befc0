/**
 * `pullEdits` (src/pull/): a table of manifest files × live edits, each with the exact text
 * expected. Only the lines of changed members change; comments, key order, quoting, flow and
 * block style, anchors, blank lines, line endings, a BOM and the other documents stay byte for
 * byte. Members written with `${VAR}` and members of a forEach template are conflicts.
 */
import { describe, expect, it } from 'vitest';
import { pullEdits, unifiedDiff, type ResourceEdit } from '../../src/pull/index.js';

const DASHBOARD = `# Dashboards of the API team.
apiVersion: stacksync/v1
kind: Dashboard
metadata: { name: api }   # matched by name
spec:
  name: 'API latency'
  tags: [api, slo]
  tiles:
    # the one people look at
    - name: p99
      x: 0
      y: 0
      w: 12   # half the grid
      h: 4
      series:
        - { type: time, dataSource: events, aggFn: count, where: "route:/api" }

    - name: errors
      x: 12
      y: 0
      w: 12
      h: 4
      series: [{ type: time, dataSource: events, aggFn: count }]
`;

const TILES = [
  {
    name: 'p99',
    x: 0,
    y: 0,
    w: 12,
    h: 4,
    series: [{ type: 'time', dataSource: 'events', aggFn: 'count', where: 'route:/api' }],
  },
  { name: 'errors', x: 12, y: 0, w: 12, h: 4, series: [{ type: 'time', dataSource: 'events', aggFn: 'count' }] },
];
const LIVE = { name: 'API latency', tags: ['api', 'slo'], tiles: TILES };

function tile(name: string, changes: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...(TILES.find((each) => each.name === name) ?? {}), ...changes };
}

interface Case {
  name: string;
  text: string;
  /** The document's start line (as the loader gives it). */
  line?: number;
  live: Record<string, unknown>;
  paths: string[];
  item?: string;
  ignore?: string[];
  targets?: string[];
  expected: string;
  conflicts?: { line: number; path: string; live: unknown; reason: string }[];
}

const CASES: Case[] = [
  {
    name: 'a resized tile: only its w, the comment on the line kept',
    text: DASHBOARD,
    live: { ...LIVE, tiles: [tile('p99', { w: 18 }), tile('errors')] },
    paths: ['tiles[p99].w'],
    expected: DASHBOARD.replace('w: 12   # half the grid', 'w: 18   # half the grid'),
  },
  {
    name: 'a renamed dashboard keeps its single quotes',
    text: DASHBOARD,
    live: { ...LIVE, name: 'API p99' },
    paths: ['name'],
    expected: DASHBOARD.replace("name: 'API latency'", "name: 'API p99'"),
  },
  {
    name: 'a value inside a flow mapping keeps its double quotes and the flow line',
    text: DASHBOARD,
    live: {
      ...LIVE,
      tiles: [tile('p99', { series: [{ ...TILES[0]!.series[0], where: 'route:/v2' }] }), tile('errors')],
    },
    paths: ['tiles[p99].series[0].where'],
    expected: DASHBOARD.replace('where: "route:/api"', 'where: "route:/v2"'),
  },
  {
    name: 'a flow list of tags is written again on its one line, unpadded as it was',
    text: DASHBOARD,
    live: { ...LIVE, tags: ['api', 'slo', 'tier-1'] },
    paths: ['tags'],
    expected: DASHBOARD.replace('tags: [api, slo]', 'tags: [api, slo, tier-1]'),
  },
  {
    name: 'a renamed tile is its name line only (matched by place: no manifest holds tile ids)',
    text: DASHBOARD,
    live: { ...LIVE, tiles: [tile('p99'), tile('errors', { name: 'failures' })] },
    paths: ['tiles[errors]', 'tiles[failures]'],
    expected: DASHBOARD.replace('    - name: errors', '    - name: failures'),
  },
  {
    name: 'ignoreDifferences hold inside a tile rewritten member by member',
    text: DASHBOARD,
    live: { ...LIVE, tiles: [tile('p99'), tile('errors', { name: 'failures', h: 9 })] },
    paths: ['tiles[errors]', 'tiles[failures]'],
    ignore: ['tiles[failures].h'],
    expected: DASHBOARD.replace('    - name: errors', '    - name: failures'),
  },
  {
    name: 'a tile added live lands at its place in the list, in block style',
    text: DASHBOARD,
    live: {
      ...LIVE,
      tiles: [
        tile('p99'),
        {
          name: 'notes',
          x: 0,
          y: 4,
          w: 24,
          h: 2,
          asRatio: false,
          series: [{ type: 'markdown', content: 'Runbook: see wiki' }],
        },
        tile('errors'),
      ],
    },
    paths: ['tiles[notes]'],
    expected: DASHBOARD.replace(
      '    - name: errors',
      [
        '    - name: notes',
        '      x: 0',
        '      y: 4',
        '      w: 24',
        '      h: 2',
        '      series:',
        '        - type: markdown',
        '          content: "Runbook: see wiki"',
        '    - name: errors',
      ].join('\n'),
    ),
  },
  {
    name: 'a tile removed live is removed, its lines only',
    text: DASHBOARD,
    live: { ...LIVE, tiles: [tile('p99')] },
    paths: ['tiles[errors]'],
    expected: DASHBOARD.slice(0, DASHBOARD.indexOf('    - name: errors')),
  },
  {
    name: 'several documents: only the named one changes',
    text: `${DASHBOARD}---\n# another\napiVersion: stacksync/v1\nkind: Dashboard\nmetadata: { name: ops }\nspec:\n  name: Ops\n  tiles: []\n`,
    line: 26,
    live: { name: 'Ops board', tiles: [] },
    paths: ['name'],
    expected: `${DASHBOARD}---\n# another\napiVersion: stacksync/v1\nkind: Dashboard\nmetadata: { name: ops }\nspec:\n  name: Ops board\n  tiles: []\n`,
  },
  {
    name: 'CRLF line endings stay CRLF, also in the lines written',
    text: DASHBOARD.replace(/\n/g, '\r\n'),
    live: {
      ...LIVE,
      tiles: [
        tile('p99', { h: 6 }),
        tile('errors'),
        { name: 'notes', x: 0, y: 4, w: 24, h: 2, series: [{ type: 'markdown', content: 'x' }] },
      ],
    },
    paths: ['tiles[p99].h', 'tiles[notes]'],
    expected: DASHBOARD.replace('      h: 4\n      series:\n        - {', '      h: 6\n      series:\n        - {')
      .concat(
        '    - name: notes\n      x: 0\n      y: 4\n      w: 24\n      h: 2\n      series:\n        - type: markdown\n          content: x\n',
      )
      .replace(/\n/g, '\r\n'),
  },
  {
    name: 'a BOM stays at the start',
    text: `\uFEFF${DASHBOARD}`,
    line: 2,
    live: { ...LIVE, tiles: [tile('p99', { x: 1 }), tile('errors')] },
    paths: ['tiles[p99].x'],
    expected: `\uFEFF${DASHBOARD.replace('      x: 0\n', '      x: 1\n')}`,
  },
  {
    name: 'anchors and aliases stay; the member edited beside them is the only change',
    text: 'apiVersion: stacksync/v1\nkind: Dashboard\nmetadata: { name: api }\nspec:\n  name: API\n  tiles:\n    - &half { name: a, x: 0, y: 0, w: 12, h: 4 }\n    - name: b\n      x: 12\n      y: 0\n      w: 12\n      h: &height 4\n    - { name: c, x: 0, y: 4, w: 12, h: *height }\n',
    live: {
      name: 'API',
      tiles: [
        { name: 'a', x: 0, y: 0, w: 12, h: 4 },
        { name: 'b', x: 12, y: 0, w: 6, h: 4 },
        { name: 'c', x: 0, y: 4, w: 12, h: 4 },
      ],
    },
    paths: ['tiles[b].w'],
    expected:
      'apiVersion: stacksync/v1\nkind: Dashboard\nmetadata: { name: api }\nspec:\n  name: API\n  tiles:\n    - &half { name: a, x: 0, y: 0, w: 12, h: 4 }\n    - name: b\n      x: 12\n      y: 0\n      w: 6\n      h: &height 4\n    - { name: c, x: 0, y: 4, w: 12, h: *height }\n',
  },
  {
    name: 'a flow-style tile: the scalar changed inside the flow line',
    text: 'apiVersion: stacksync/v1\nkind: Dashboard\nmetadata: { name: api }\nspec:\n  name: API\n  tiles:\n    - { name: a, x: 0, y: 0, w: 12, h: 4 }\n    - { name: b, x: 12, y: 0, w: 12, h: 4 }\n',
    live: {
      name: 'API',
      tiles: [
        { name: 'a', x: 0, y: 0, w: 12, h: 4 },
        { name: 'b', x: 12, y: 0, w: 12, h: 8 },
        { name: 'c', x: 0, y: 4, w: 24, h: 2 },
      ],
    },
    paths: ['tiles[b].h', 'tiles[c]'],
    expected:
      'apiVersion: stacksync/v1\nkind: Dashboard\nmetadata: { name: api }\nspec:\n  name: API\n  tiles:\n    - { name: a, x: 0, y: 0, w: 12, h: 4 }\n    - { name: b, x: 12, y: 0, w: 12, h: 8 }\n    - { name: c, x: 0, y: 4, w: 24, h: 2 }\n',
  },
  {
    name: 'a ${VAR} member is a conflict at its line; the rest of the resource is pulled',
    text: 'apiVersion: stacksync/v1\nkind: Dashboard\nmetadata: { name: api }\nspec:\n  name: "API ${ENV}"\n  tiles:\n    - name: p99\n      x: 0\n      y: 0\n      w: 12\n      h: 4\n',
    live: { name: 'API renamed', tiles: [{ name: 'p99', x: 0, y: 0, w: 12, h: 6 }] },
    paths: ['name', 'tiles[p99].h'],
    expected:
      'apiVersion: stacksync/v1\nkind: Dashboard\nmetadata: { name: api }\nspec:\n  name: "API ${ENV}"\n  tiles:\n    - name: p99\n      x: 0\n      y: 0\n      w: 12\n      h: 6\n',
    conflicts: [{ line: 5, path: 'name', live: 'API renamed', reason: 'variable' }],
  },
  {
    name: 'a forEach template: every member is a conflict, nothing written',
    text: 'apiVersion: stacksync/v1\nkind: Dashboard\nmetadata:\n  name: svc-${service}\n  forEach: { service: [a, b] }\nspec:\n  name: "Service ${service}"\n  tiles:\n    - { name: p99, x: 0, y: 0, w: 12, h: 4 }\n',
    item: 'service=a',
    live: { name: 'Service a', tiles: [{ name: 'p99', x: 0, y: 0, w: 24, h: 4 }] },
    paths: ['tiles[p99].w'],
    expected:
      'apiVersion: stacksync/v1\nkind: Dashboard\nmetadata:\n  name: svc-${service}\n  forEach: { service: [a, b] }\nspec:\n  name: "Service ${service}"\n  tiles:\n    - { name: p99, x: 0, y: 0, w: 12, h: 4 }\n',
    conflicts: [{ line: 9, path: 'tiles[p99].w', live: 24, reason: 'forEach' }],
  },
  {
    name: 'a document applied to several targets: a member one of them changed is a conflict, nothing written',
    text: DASHBOARD,
    targets: ['staging', 'prod'],
    live: { ...LIVE, tiles: [tile('p99', { w: 18 }), tile('errors')] },
    paths: ['tiles[p99].w'],
    expected: DASHBOARD,
    conflicts: [{ line: 13, path: 'tiles[p99].w', live: 18, reason: 'targets' }],
  },
  {
    name: 'a secret reference is never written; defaults the manifest left out are not added',
    text: 'apiVersion: stacksync/v1\nkind: Webhook\nmetadata: { name: hook }\nspec:\n  name: hook\n  url: { fromEnv: HOOK_URL }\n  description: old\n',
    live: { name: 'hook', description: 'new', headers: {} },
    paths: ['url', 'description'],
    expected:
      'apiVersion: stacksync/v1\nkind: Webhook\nmetadata: { name: hook }\nspec:\n  name: hook\n  url: { fromEnv: HOOK_URL }\n  description: new\n',
  },
  {
    name: 'a block scalar stays a block scalar, indented as it was',
    text: 'apiVersion: stacksync/v1\nkind: Dashboard\nmetadata: { name: api }\nspec:\n  name: API\n  tiles:\n    - name: notes\n      x: 0\n      y: 0\n      w: 24\n      h: 2\n      series:\n        - type: markdown\n          content: |\n            Runbook\n            step 1\n    # after\n',
    live: {
      name: 'API',
      tiles: [
        {
          name: 'notes',
          x: 0,
          y: 0,
          w: 24,
          h: 2,
          series: [{ type: 'markdown', content: 'Runbook\nstep 1\nstep 2\n' }],
        },
      ],
    },
    paths: ['tiles[notes].series[0].content'],
    expected:
      'apiVersion: stacksync/v1\nkind: Dashboard\nmetadata: { name: api }\nspec:\n  name: API\n  tiles:\n    - name: notes\n      x: 0\n      y: 0\n      w: 24\n      h: 2\n      series:\n        - type: markdown\n          content: |\n            Runbook\n            step 1\n            step 2\n    # after\n',
  },
  {
    name: 'a member set live that the manifest left out is added at the end of its mapping',
    text: 'apiVersion: stacksync/v1\nkind: Dashboard\nmetadata: { name: api }\nspec:\n  name: API\n  tiles: []\n',
    live: { name: 'API', tiles: [], tags: ['new'] },
    paths: ['tags'],
    expected:
      'apiVersion: stacksync/v1\nkind: Dashboard\nmetadata: { name: api }\nspec:\n  name: API\n  tiles: []\n  tags:\n    - new\n',
  },
];

describe('pullEdits: a table of files × live edits', () => {
  it.each(CASES)('$name', (example) => {
    const edit: ResourceEdit = {
      kind: 'Dashboard' as ResourceEdit['kind'],
      key: 'api',
      file: 'manifests/api.yaml',
      line: example.line ?? (example.text.startsWith('#') ? 2 : 1),
      paths: example.paths,
      live: example.live,
      ...(example.item !== undefined ? { item: example.item } : {}),
      ...(example.ignore !== undefined ? { ignore: example.ignore } : {}),
      ...(example.targets !== undefined ? { targets: example.targets } : {}),
    };
    const result = pullEdits({ edits: [edit], texts: new Map([[edit.file, example.text]]) });
    expect(result.errors).toEqual([]);
    const after = result.files[0]?.after ?? example.text;
    expect(after).toBe(example.expected);
    expect(result.files).toHaveLength(after === example.text ? 0 : 1);
    expect(result.conflicts.map(({ line, path, live, reason }) => ({ line, path, live, reason }))).toEqual(
      example.conflicts ?? [],
    );
  });

  it('reports a document that is no longer where it was loaded, and a file that cannot be read', () => {
    const edit: ResourceEdit = {
      kind: 'Dashboard' as ResourceEdit['kind'],
      key: 'api',
      file: 'a.yaml',
      line: 40,
      paths: ['name'],
      live: LIVE,
    };
    const result = pullEdits({
      edits: [edit, { ...edit, file: 'gone.yaml' }],
      texts: new Map([['a.yaml', DASHBOARD]]),
    });
    expect(result.files).toEqual([]);
    expect(result.errors.map((error) => [error.file, error.line])).toEqual([
      ['a.yaml', 40],
      ['gone.yaml', undefined],
    ]);
  });

  it('passes deleted resources through, and writes nothing for them', () => {
    const result = pullEdits({
      edits: [],
      deleted: [{ kind: 'Dashboard' as ResourceEdit['kind'], key: 'api', file: 'a.yaml', line: 2 }],
      texts: new Map(),
    });
    expect(result).toEqual({
      files: [],
      conflicts: [],
      errors: [],
      deleted: [{ kind: 'Dashboard', key: 'api', file: 'a.yaml', line: 2 }],
    });
  });
});

describe('unifiedDiff', () => {
  it('prints hunks with three lines of context, as patch reads them', () => {
    const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', ''].join('\n');
    const after = before.replace('e\n', 'E\n');
    expect(unifiedDiff('m.yaml', before, after)).toBe(
      ['--- a/m.yaml', '+++ b/m.yaml', '@@ -2,7 +2,7 @@', ' b', ' c', ' d', '-e', '+E', ' f', ' g', ' h', ''].join(
        '\n',
      ),
    );
  });

  it('is empty when nothing differs, and shows CRLF lines as text', () => {
    expect(unifiedDiff('m.yaml', 'a\n', 'a\n')).toBe('');
    expect(unifiedDiff('m.yaml', 'a\r\nb\r\n', 'a\r\nc\r\n')).toBe(
      ['--- a/m.yaml', '+++ b/m.yaml', '@@ -1,2 +1,2 @@', ' a', '-b', '+c', ''].join('\n'),
    );
  });

  it('keeps two distant changes in two hunks', () => {
    const lines = Array.from({ length: 20 }, (_, index) => `line ${index + 1}`);
    const before = `${lines.join('\n')}\n`;
    const after = before.replace('line 2\n', 'line two\n').replace('line 19\n', 'line nineteen\n');
    const diff = unifiedDiff('m.yaml', before, after);
    expect(diff.match(/^@@ .* @@$/gm)).toEqual(['@@ -1,5 +1,5 @@', '@@ -16,5 +16,5 @@']);
  });
});
