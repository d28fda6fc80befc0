/**
 * Table-driven differ tests: every document of `test/fixtures/diff/*.yaml` is one case
 * `{name, target?, desired, live, state, options, now?, want}`. Besides what a case wants, every case
 * checks the invariants any plan must keep: dependencies point at changes of the plan and have
 * no cycle, every write body is valid for the API, and no secret value reaches any rendering.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { planTarget } from '../../src/diff/index.js';
import type { DesiredResource } from '../../src/kinds/index.js';
import { buildPlan, renderPlanGithub, renderPlanJson, renderPlanText } from '../../src/plan/index.js';
import type { Change, Operation } from '../../src/model/plan.js';
import type { ApiSchemaName } from '../../src/kinds/wire.js';
import { validateApi } from '../../src/kinds/wire.js';
import { planInput } from './factories.js';

interface WantChange {
  kind: string;
  name: string;
  action: string;
  id?: string;
  diff?: unknown[];
  diffPaths?: string[];
  operations?: unknown[];
  dependsOn?: string[];
  warnings?: string[];
  error?: string;
  secretHashes?: Record<string, string>;
  reclaimed?: boolean;
  liveName?: string;
  waitUntil?: string;
}

interface Case {
  name: string;
  target?: { name?: string; variant?: 'managed' | 'self-hosted'; profile?: 'seed' | 'current' };
  desired?: Record<string, unknown>[];
  live?: Record<string, unknown>;
  state?: Record<string, unknown>;
  options?: { prune?: boolean; adopt?: boolean; blocked?: boolean };
  /** ISO time the plan is made (default `PLAN_NOW` of the factories). */
  now?: string;
  want: { changes: WantChange[]; ordered?: boolean; absent?: string[] };
}

const FIXTURES = new URL('../fixtures/diff/', import.meta.url).pathname;

function loadCases(): { file: string; cases: Case[] }[] {
  return readdirSync(FIXTURES)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file) => {
      const documents = parseAllDocuments(readFileSync(join(FIXTURES, file), 'utf8'));
      const cases = (Array.isArray(documents) ? documents : [documents]).map((doc) => {
        if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]?.message ?? ''}`);
        return doc.toJS() as Case;
      });
      return { file, cases };
    });
}

const suites = loadCases();

it('has fixture files to run', () => {
  expect(suites.length).toBeGreaterThan(5);
});

for (const { file, cases } of suites) {
  describe(file, () => {
    it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, testCase) => {
      const input = planInput(testCase);
      const changes = planTarget(input);
      expectWanted(changes, testCase.want);
      expectDependenciesSound(changes);
      expectValidBodies(changes);
      expectNoSecrets(changes, [...secretValues(input.desired), ...(testCase.want.absent ?? [])]);
    });
  });
}

function expectWanted(changes: Change[], want: Case['want']): void {
  const summary = changes.map((c) => `${c.kind}/${c.name}:${c.action}`);
  const wanted = want.changes.map((c) => `${c.kind}/${c.name}:${c.action}`);
  if (want.ordered) expect(summary).toEqual(wanted);
  else expect([...summary].sort()).toEqual([...wanted].sort());
  for (const wantChange of want.changes) {
    const change = changes.find((c) => c.kind === wantChange.kind && c.name === wantChange.name);
    expect(change, `${wantChange.kind}/${wantChange.name}`).toBeDefined();
    if (change) expectChange(change, wantChange);
  }
}

function expectChange(change: Change, want: WantChange): void {
  const label = `${change.kind}/${change.name}`;
  const exact = [
    'id',
    'diff',
    'operations',
    'dependsOn',
    'secretHashes',
    'reclaimed',
    'liveName',
    'waitUntil',
  ] as const;
  for (const key of exact) if (want[key] !== undefined) expect(change[key], `${label} ${key}`).toEqual(want[key]);
  if (want.diffPaths)
    expect(
      change.diff.map((d) => d.path),
      `${label} diff paths`,
    ).toEqual(want.diffPaths);
  if (want.error !== undefined) expect(change.error, `${label} error`).toContain(want.error);
  if (want.warnings) {
    expect(change.warnings, `${label} warnings`).toHaveLength(want.warnings.length);
    want.warnings.forEach((text, i) => {
      expect(change.warnings[i], `${label} warning ${i}`).toContain(text);
    });
  }
  if (
    change.action === 'unchanged' ||
    change.action === 'error' ||
    change.action === 'orphan' ||
    change.action === 'waiting'
  )
    expect(change.operations, `${label} operations`).toEqual([]);
  if (change.action === 'delete' || change.action === 'orphan') expect(change.file, `${label} file`).toBeUndefined();
  else expect(change.file, `${label} file`).toMatch(/^manifests\//);
}

function expectDependenciesSound(changes: Change[]): void {
  const byKey = new Map(changes.map((c) => [`${c.kind}/${c.name}`, c]));
  for (const change of changes)
    for (const dep of change.dependsOn) expect(byKey.has(dep), `${change.name} → ${dep}`).toBe(true);
  const visiting = new Set<string>();
  const done = new Set<string>();
  const visit = (key: string): void => {
    if (done.has(key)) return;
    expect(visiting.has(key), `dependency cycle through ${key}`).toBe(false);
    visiting.add(key);
    for (const dep of byKey.get(key)?.dependsOn ?? []) visit(dep);
    visiting.delete(key);
    done.add(key);
  };
  for (const key of byKey.keys()) visit(key);
}

const BODY_SCHEMAS: Partial<Record<Operation['type'], ApiSchemaName>> = {
  updatePipe: 'pipePatchBody',
  createDashboard: 'dashboardCreateBody',
  updateDashboard: 'dashboardUpdateBody',
  createAlert: 'alertWriteBody',
  updateAlert: 'alertWriteBody',
};

function expectValidBodies(changes: Change[]): void {
  for (const operation of changes.flatMap((c) => c.operations)) {
    const schema = BODY_SCHEMAS[operation.type];
    if (!schema || !('body' in operation || 'patch' in operation)) continue;
    let body: unknown = 'patch' in operation ? operation.patch : operation.body;
    // Ids behind refs are filled in by the executor from the dashboard write's result.
    if ('refs' in operation && operation.refs)
      body = { dashboardId: 'from-refs', tileId: 'from-refs', ...(body as object) };
    const result = validateApi(schema, body);
    expect(result.ok ? [] : result.issues, `${operation.type} body`).toEqual([]);
  }
}

function secretValues(desired: readonly DesiredResource[]): string[] {
  return desired.flatMap((r) =>
    r.kind === 'Pipe'
      ? (r.source?.secrets ?? [])
          .flatMap((member) => [...Object.values(member.fields ?? {}), ...(member.value ? [member.value] : [])])
          .map((s) => s.value)
      : [],
  );
}

function expectNoSecrets(changes: Change[], secrets: string[]): void {
  if (secrets.length === 0) return;
  const plan = buildPlan(changes, []);
  const outputs = [
    renderPlanText(plan),
    renderPlanText(plan, { color: true }),
    renderPlanJson(plan),
    renderPlanGithub(plan),
  ];
  const visible = JSON.stringify(changes.map(({ operations: _sent, ...rest }) => rest));
  for (const secret of secrets) {
    for (const output of [...outputs, visible])
      expect(output.includes(secret), `secret "${secret}" leaked`).toBe(false);
  }
}
