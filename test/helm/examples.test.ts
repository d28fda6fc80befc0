/**
 * The shipped examples: every YAML file under examples/ (and the chart's values.yaml) parses;
 * the Prometheus rules name only metrics and labels stacksync exposes; the GitHub Actions plan
 * step treats exit 2 (changes) as success and exit 1 as failure, run for real with a stand-in CLI.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { createMetrics } from '../../src/daemon/metrics.js';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

async function yamlFilesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && /\.ya?ml$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .sort();
}

const files = [...(await yamlFilesUnder(join(ROOT, 'examples'))), 'helm/stacksync/values.yaml'];

describe('example YAML files', () => {
  it('include the workflow, the git-sync values and the Prometheus rules', () => {
    expect(files).toEqual(
      expect.arrayContaining(['examples/github-actions/stacksync.yml', 'examples/helm/git-sync-values.yaml', 'examples/prometheus/stacksync-rules.yaml']),
    );
  });

  it.each(files)('%s parses as YAML', async (file) => {
    const docs = parseAllDocuments(await readFile(join(ROOT, file), 'utf8'), { uniqueKeys: true });
    for (const doc of docs) expect(doc.errors.map((error) => error.message), file).toEqual([]);
    expect(docs.length).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------- Prometheus rules

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const PROMQL_KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/** Metric names in a PromQL expression, each with the label names its matchers use. */
function metricsIn(expr: string): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  const cleaned = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ');
  for (const match of cleaned.matchAll(/([A-Za-z_:][A-Za-z0-9_:]*)\s*(\{[^}]*\})?\s*(\()?/g)) {
    const [, name, matchers, call] = match;
    if (!name || call || PROMQL_KEYWORDS.has(name.toLowerCase())) continue;
    const labels = found.get(name) ?? new Set<string>();
    for (const label of (matchers ?? '').matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)/g)) labels.add(label[1] as string);
    found.set(name, labels);
  }
  return found;
}

/** Every series name the registry exposes (histograms as _bucket/_sum/_count), with label names. */
async function exposedMetrics(): Promise<Map<string, Set<string>>> {
  const { registry } = createMetrics();
  const exposed = new Map<string, Set<string>>();
  for (const metric of await registry.getMetricsAsJSON()) {
    const single = registry.getSingleMetric(metric.name) as unknown as { labelNames?: string[] } | undefined;
    const labels = new Set(single?.labelNames ?? []);
    const names = (metric.type as unknown as string) === 'histogram' ? ['_bucket', '_sum', '_count'].map((suffix) => `${metric.name}${suffix}`) : [metric.name];
    for (const name of names) exposed.set(name, name.endsWith('_bucket') ? new Set([...labels, 'le']) : labels);
  }
  return exposed;
}

describe('examples/prometheus/stacksync-rules.yaml', async () => {
  const rulesFile = parse(await readFile(join(ROOT, 'examples/prometheus/stacksync-rules.yaml'), 'utf8')) as { groups: { name: string; rules: Rule[] }[] };
  const rules = rulesFile.groups.flatMap((group) => group.rules);
  const exposed = await exposedMetrics();

  it('the metric-name reader finds names, labels, and skips functions, groupings and ranges', () => {
    const found = metricsIn('sum by (target) (rate(foo_total{result="x", kind=~"a|b"}[5m])) > 0 unless on (instance) bar > time()');
    expect(Object.fromEntries([...found].map(([name, labels]) => [name, [...labels]]))).toEqual({ foo_total: ['result', 'kind'], bar: [] });
  });

  it('covers the alerts the issue asks for', () => {
    const exprs = rules.map((rule) => rule.expr).join('\n');
    for (const metric of ['stacksync_reconcile_total', 'stacksync_last_successful_sync_timestamp_seconds', 'stacksync_drift_seconds', 'stacksync_rate_limit_wait_seconds_total', 'stacksync_manifest_errors']) {
      expect(exprs).toContain(metric);
    }
  });

  it.each(rules.map((rule) => [rule.alert ?? rule.record ?? '?', rule] as const))('%s names only exposed metrics and their labels', (_name, rule) => {
    const used = metricsIn(rule.expr);
    expect(used.size).toBeGreaterThan(0);
    for (const [metric, labels] of used) {
      const known = exposed.get(metric);
      expect(known, `${metric} is not a metric stacksync exposes`).toBeDefined();
      for (const label of labels) expect(known?.has(label), `${metric} has no label ${label}`).toBe(true);
    }
  });

  it.each(rules.map((rule) => [rule.alert ?? '?', rule] as const))('%s has a severity, a summary and a description', (_name, rule) => {
    expect(rule.alert).toMatch(/^Stacksync[A-Za-z]+$/);
    expect(['critical', 'warning', 'info']).toContain(rule.labels?.['severity']);
    expect(rule.annotations?.['summary']).toBeTruthy();
    expect(rule.annotations?.['description']).toBeTruthy();
  });

  it('label values in matchers are ones stacksync uses', () => {
    const values = rules.flatMap((rule) => [...rule.expr.matchAll(/(result|reason)="([^"]+)"/g)].map((match) => `${match[1]}=${match[2]}`));
    const allowed = new Set(['result=success', 'result=failure', 'result=ok', 'result=failed', 'result=skipped', 'reason=throttled', 'reason=server_error', 'reason=connection', 'reason=timeout']);
    for (const value of values) expect(allowed.has(value), value).toBe(true);
  });
});

// ---------------------------------------------------------------- GitHub Actions

interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<string, { if?: string; steps: { name?: string; id?: string; run?: string; uses?: string }[]; concurrency?: { 'cancel-in-progress'?: boolean } }>;
}

describe('examples/github-actions/stacksync.yml', async () => {
  const workflow = parse(await readFile(join(ROOT, 'examples/github-actions/stacksync.yml'), 'utf8')) as Workflow;

  it('plans on pull requests and applies on main, never cancelling an apply', () => {
    expect(Object.keys(workflow.on).sort()).toEqual(['pull_request', 'push']);
    expect(workflow.jobs['plan']?.if).toContain('pull_request');
    expect(workflow.jobs['apply']?.if).toContain("refs/heads/main");
    expect(workflow.jobs['apply']?.concurrency?.['cancel-in-progress']).toBe(false);
    const applyRuns = workflow.jobs['apply']?.steps.map((step) => step.run ?? '').join('\n');
    expect(applyRuns).toMatch(/stacksync apply/);
  });

  const planStep = workflow.jobs['plan']?.steps.find((step) => step.id === 'plan');

  it.each([
    [0, 0, 'false'],
    [2, 0, 'true'],
    [1, 1, undefined],
  ])('the plan step turns stacksync exit %i into step exit %i', async (cliExit, stepExit, changes) => {
    expect(planStep?.run).toContain('--output github --detailed-exitcode');
    const dir = await mkdtemp(join(tmpdir(), 'stacksync-gha-'));
    try {
      // A stand-in `stacksync` that exits as told: the step's shell logic is what is under test.
      await writeFile(join(dir, 'stacksync'), `#!/bin/sh\necho "plan output"\nexit ${cliExit}\n`);
      await chmod(join(dir, 'stacksync'), 0o755);
      const output = join(dir, 'github-output');
      await writeFile(output, '');
      const run = exec('bash', ['-e', '-c', planStep?.run ?? 'exit 99'], { env: { PATH: `${dir}:/usr/bin:/bin`, GITHUB_OUTPUT: output } });
      if (stepExit === 0) await run;
      else await expect(run).rejects.toMatchObject({ code: stepExit });
      const written = await readFile(output, 'utf8');
      if (changes === undefined) expect(written).not.toContain('changes=true');
      else expect(written).toContain(`changes=${changes}`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
