import { describe, expect, it } from 'vitest';
import { buildPlan, GITHUB_COMMENT_LIMIT, MARKDOWN_MARKER, renderPlanMarkdown } from '../../src/plan/index.js';
import type { Change } from '../../src/model/plan.js';
import { samplePlan } from './sample.js';

const BASE = 'https://github.com/acme/dashboards/blob/0123abc/';

function change(fields: Partial<Change> & Pick<Change, 'kind' | 'name' | 'action'>): Change {
  return { target: 'prod', diff: [], operations: [], dependsOn: [], warnings: [], ...fields };
}

/** `n` dashboard updates, each with a few field diffs, spread over two targets. */
function bigPlan(n: number): ReturnType<typeof buildPlan> {
  const changes = Array.from({ length: n }, (_, i) =>
    change({
      target: i % 2 === 0 ? 'prod' : 'staging',
      kind: 'Dashboard',
      name: `dashboard-${String(i).padStart(4, '0')}`,
      action: 'update',
      id: `d-${i}`,
      file: `manifests/team-${i % 7}/dashboard-${i}.yaml`,
      line: 5,
      diff: [
        { path: 'tiles[p99].w', before: 4, after: 6 },
        { path: 'tags', before: ['a'], after: ['a', 'b'] },
      ],
    }),
  );
  return buildPlan(changes, []);
}

describe('renderPlanMarkdown', () => {
  const markdown = renderPlanMarkdown(samplePlan(), { linkBase: BASE });

  it('starts with the hidden marker a CI job finds its comment by, then the counts', () => {
    const lines = markdown.split('\n');
    expect(lines[0]).toBe(MARKDOWN_MARKER);
    expect(MARKDOWN_MARKER).toBe('<!-- stacksync-plan -->');
    expect(markdown).toContain(
      '**Plan: 2 to create, 2 to update, 1 to delete, 1 to adopt, 1 orphaned (apply --prune deletes them), 1 unchanged, 2 errors.**',
    );
  });

  it('lists errors first: the manifest error and the change that cannot be planned, before any block', () => {
    const errors = markdown.indexOf('#### :x: 2 errors');
    expect(errors).toBeGreaterThan(0);
    expect(errors).toBeLessThan(markdown.indexOf('<details'));
    expect(markdown).toContain(
      `- [\`manifests/bad.yaml:3:7\`](${BASE}manifests/bad.yaml#L3): spec.tiles\\[0\\].w: must be &lt;= 24 (\`E_MANIFEST_INVALID\`)`,
    );
    expect(markdown).toContain(
      `- **prod** \`Pipe/ghost\` ([\`manifests/ghost.yaml:4\`](${BASE}manifests/ghost.yaml#L4)): pipe x does not exist`,
    );
  });

  it('has one collapsible block per target and kind, with the counts of what it holds', () => {
    expect(markdown).toContain('<details open><summary><b>prod</b> · Pipe: 1 to update</summary>');
    expect(markdown).toContain(
      '<details open><summary><b>prod</b> · Dashboard: 1 to create, 1 to update, 1 to adopt, 1 orphaned</summary>',
    );
    expect(markdown).toContain('<details open><summary><b>prod</b> · Alert: 1 to create, 1 to delete</summary>');
    expect(markdown.match(/<details/g)).toHaveLength(3);
    expect(markdown.match(/<\/details>/g)).toHaveLength(3);
  });

  it('shows each change with a link to its manifest line and its field diff as -/+ lines', () => {
    expect(markdown).toContain(
      `**\`~ update\`** \`Dashboard/web\` · [\`manifests/web.yaml:1\`](${BASE}manifests/web.yaml#L1) · id \`d-2\`\n\`\`\`diff\n- tiles[p99].w: 4\n+ tiles[p99].w: 6\n- tiles[old]: {"name":"old"}\n\`\`\``,
    );
    expect(markdown).toContain('**`- delete`** `Alert/gone` · id `a-9`');
    expect(markdown).toContain(
      '**`? orphan`** `Dashboard/old` · id `d-5`\n_no manifest names it; apply --prune deletes it_',
    );
    // Unchanged resources are counted, not listed.
    expect(markdown).not.toContain('Dashboard/same');
  });

  it('shows write-only values as (sensitive) and never what is sent', () => {
    expect(markdown).toContain('- source.kafka.credentials: (sensitive)\n+ source.kafka.credentials: (sensitive)');
    expect(markdown).not.toContain('TOP-SECRET');
    expect(markdown).not.toContain('abc123');
  });

  it('shows locations as text, not links, without a link base; paths go through repoPath', () => {
    const plain = renderPlanMarkdown(samplePlan(), { repoPath: (file) => `deploy/${file}` });
    expect(plain).toContain('· `deploy/manifests/web.yaml:1` ·');
    expect(plain).not.toMatch(/\]\(/);
  });

  it('keeps names and messages from breaking out of their markup', () => {
    const plan = buildPlan(
      [
        change({
          kind: 'Dashboard',
          name: 'x',
          action: 'update',
          id: 'd',
          file: 'manifests/a b#(1).yaml',
          line: 2,
          diff: [{ path: 'name', before: 'a', after: 'ends ``` here' }],
        }),
      ],
      [{ file: 'manifests/x.yaml', code: 'E_MANIFEST_PARSE', message: '<img src=x onerror=alert(1)> **bold** | pipe' }],
    );
    const text = renderPlanMarkdown(plan, { linkBase: BASE });
    expect(text).toContain('&lt;img src=x onerror=alert(1)&gt; \\*\\*bold\\*\\* \\| pipe');
    expect(text).toContain('````diff\n- name: "a"\n+ name: "ends ``` here"\n````');
    expect(text).toContain(`(${BASE}manifests/a%20b%23%281%29.yaml#L2)`);
  });

  it('groups the blocks under a heading per tenant, by name, with changes of no tenant last', () => {
    const plan = buildPlan(
      [
        change({
          kind: 'Dashboard',
          name: 'search-board',
          action: 'create',
          tenant: 'search',
          file: 'manifests/teams/search/a.yaml',
          line: 1,
        }),
        change({ kind: 'Dashboard', name: 'old', action: 'orphan', id: 'd0' }),
        change({
          kind: 'Alert',
          name: 'pay-alert',
          action: 'create',
          tenant: 'payments',
          file: 'manifests/teams/payments/b.yaml',
          line: 1,
        }),
        change({
          kind: 'Dashboard',
          name: 'pay-board',
          action: 'update',
          id: 'd1',
          tenant: 'payments',
          file: 'manifests/teams/payments/a.yaml',
          line: 1,
        }),
        change({
          target: 'staging',
          kind: 'Dashboard',
          name: 'search-staging',
          action: 'create',
          tenant: 'search',
          file: 'manifests/teams/search/s.yaml',
          line: 1,
        }),
      ],
      [],
    );
    const text = renderPlanMarkdown(plan);
    const lines = text.split('\n').filter((line) => line.startsWith('### ') || line.startsWith('<details'));
    expect(lines).toEqual([
      '### stacksync plan',
      '### Tenant payments',
      '<details open><summary><b>prod</b> · Alert: 1 to create</summary>',
      '<details open><summary><b>prod</b> · Dashboard: 1 to update</summary>',
      '### Tenant search',
      '<details open><summary><b>prod</b> · Dashboard: 1 to create</summary>',
      '<details open><summary><b>staging</b> · Dashboard: 1 to create</summary>',
      '### No tenant',
      '<details open><summary><b>prod</b> · Dashboard: 1 orphaned</summary>',
    ]);
    // Without tenants, no heading.
    expect(renderPlanMarkdown(samplePlan())).not.toMatch(/^### (Tenant|No tenant)/m);
  });

  it('says there is nothing to do when the plan is empty', () => {
    const text = renderPlanMarkdown(
      buildPlan([change({ kind: 'Dashboard', name: 'same', action: 'unchanged', id: 'd' })], []),
    );
    expect(text).toBe(
      `${MARKDOWN_MARKER}\n### stacksync plan\n\n**Plan: 0 to create, 0 to update, 0 to delete, 0 to adopt, 1 unchanged, 0 errors.**\n\nNo changes. Live state matches the manifests.\n`,
    );
  });

  it('closes the blocks of a plan with many changes', () => {
    const text = renderPlanMarkdown(bigPlan(30));
    expect(text).toContain('<details><summary><b>prod</b> · Dashboard: 15 to update</summary>');
    expect(text).not.toContain('<details open>');
  });
});

describe('renderPlanMarkdown at scale', () => {
  it('1,000 changes stay under GitHub’s comment limit, with every count and the rows that fit', () => {
    const text = renderPlanMarkdown(bigPlan(1000), { linkBase: BASE, fullPlan: 'in the saved plan `plan.json`' });
    expect(text.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(text.startsWith(MARKDOWN_MARKER)).toBe(true);
    expect(text).toContain('**Plan: 0 to create, 1000 to update,');
    expect(text).toContain('<summary><b>prod</b> · Dashboard: 500 to update</summary>');
    expect(text).toContain('<summary><b>staging</b> · Dashboard: 500 to update</summary>');
    const shown = text.match(/^- \*\*`~ update`\*\*/gm)?.length ?? 0;
    expect(shown).toBeGreaterThan(300);
    // In the compact rows the resource name links to its manifest line.
    expect(text).toContain(
      `- **\`~ update\`** [\`Dashboard/dashboard-0000\`](${BASE}manifests/team-0/dashboard-0.yaml#L5) · 2 fields\n`,
    );
    // Both blocks get their share of the room.
    const perBlock = text
      .split('<details>')
      .slice(1)
      .map((part) => part.match(/^- /gm)?.length ?? 0);
    expect(Math.abs((perBlock[0] ?? 0) - (perBlock[1] ?? 0))).toBeLessThanOrEqual(1);
    const footer = /\*\*(\d+) changes not shown\*\*.*The full plan is in the saved plan `plan\.json`\./.exec(text);
    expect(footer, text.slice(-800)).not.toBeNull();
    expect(Number(footer?.[1]) + shown).toBe(1000);
    // Cut between rows, never inside one: every block is closed.
    expect(text.match(/<details/g)).toHaveLength(2);
    expect(text.match(/<\/details>/g)).toHaveLength(2);
  });

  it('drops the field diffs before dropping rows', () => {
    const full = renderPlanMarkdown(bigPlan(40));
    const compact = renderPlanMarkdown(bigPlan(40), { maxLength: full.length - 1 });
    expect(compact.length).toBeLessThan(full.length);
    expect(compact).not.toContain('```diff');
    expect(compact.match(/^- \*\*`~ update`\*\*/gm)).toHaveLength(40);
    expect(compact).toContain(
      '- **`~ update`** `Dashboard/dashboard-0000` · `manifests/team-0/dashboard-0.yaml:5` · 2 fields\n',
    );
    expect(compact).not.toContain('not shown');
  });

  it('without a saved plan, points at the JSON output for the rest', () => {
    const text = renderPlanMarkdown(bigPlan(200), { maxLength: 8000 });
    expect(text.length).toBeLessThanOrEqual(8000);
    expect(text).toContain('The full plan is the output of `stacksync plan --output json`.');
  });

  it('keeps the errors first and cuts them too when there are very many', () => {
    const errors = Array.from({ length: 3000 }, (_, i) => ({
      file: `manifests/f${i}.yaml`,
      line: 1,
      column: 1,
      code: 'E_MANIFEST_INVALID' as const,
      message: 'spec.tiles[0].w: must be <= 24',
    }));
    const text = renderPlanMarkdown(buildPlan(bigPlan(100).changes, errors));
    expect(text.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(text).toContain('#### :x: 3000 errors');
    expect(text).toMatch(/- … and \d+ more, in the full plan/);
    expect(text.indexOf(':x:')).toBeLessThan(text.indexOf('<details'));
  });
});
