/**
 * The shipped examples: every YAML file under examples/ (and the chart's values.yaml) parses;
 * the Prometheus rules name only metrics and labels stacksync exposes. (The GitHub Actions
 * workflows are tested in test/workflows/.)
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { createMetrics } from '../../src/daemon/metrics.js';

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
      expect.arrayContaining([
        'examples/github-actions/stacksync.yml',
        'examples/helm/git-sync-values.yaml',
        'examples/prometheus/stacksync-rules.yaml',
      ]),
    );
  });

  it.each(files)('%s parses as YAML', async (file) => {
    const docs = parseAllDocuments(await readFile(join(ROOT, file), 'utf8'), { uniqueKeys: true });
    for (const doc of docs)
      expect(
        doc.errors.map((error) => error.message),
        file,
      ).toEqual([]);
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

const PROMQL_KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'inf',
  'nan',
]);

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
    for (const label of (matchers ?? '').matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)/g))
      labels.add(label[1] as string);
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
    const names =
      (metric.type as unknown as string) === 'histogram'
        ? ['_bucket', '_sum', '_count'].map((suffix) => `${metric.name}${suffix}`)
        : [metric.name];
    for (const name of names) exposed.set(name, name.endsWith('_bucket') ? new Set([...labels, 'le']) : labels);
  }
  return exposed;
}

describe('examples/prometheus/stacksync-rules.yaml', async () => {
  const rulesFile = parse(await readFile(join(ROOT, 'examples/prometheus/stacksync-rules.yaml'), 'utf8')) as {
    groups: { name: string; rules: Rule[] }[];
  };
  const rules = rulesFile.groups.flatMap((group) => group.rules);
  const exposed = await exposedMetrics();

  it('the metric-name reader finds names, labels, and skips functions, groupings and ranges', () => {
    const found = metricsIn(
      'sum by (target) (rate(foo_total{result="x", kind=~"a|b"}[5m])) > 0 unless on (instance) bar > time()',
    );
    expect(Object.fromEntries([...found].map(([name, labels]) => [name, [...labels]]))).toEqual({
      foo_total: ['result', 'kind'],
      bar: [],
    });
  });

  it('covers the alerts the issue asks for', () => {
    const exprs = rules.map((rule) => rule.expr).join('\n');
    for (const metric of [
      'stacksync_reconcile_total',
      'stacksync_last_successful_sync_timestamp_seconds',
      'stacksync_drift_seconds',
      'stacksync_rate_limit_wait_seconds_total',
      'stacksync_manifest_errors',
    ]) {
      expect(exprs).toContain(metric);
    }
  });

  it.each(rules.map((rule) => [rule.alert ?? rule.record ?? '?', rule] as const))(
    '%s names only exposed metrics and their labels',
    (_name, rule) => {
      const used = metricsIn(rule.expr);
      expect(used.size).toBeGreaterThan(0);
      for (const [metric, labels] of used) {
        const known = exposed.get(metric);
        expect(known, `${metric} is not a metric stacksync exposes`).toBeDefined();
        for (const label of labels) expect(known?.has(label), `${metric} has no label ${label}`).toBe(true);
      }
    },
  );

  it.each(rules.map((rule) => [rule.alert ?? '?', rule] as const))(
    '%s has a severity, a summary and a description',
    (_name, rule) => {
      expect(rule.alert).toMatch(/^Stacksync[A-Za-z]+$/);
      expect(['critical', 'warning', 'info']).toContain(rule.labels?.['severity']);
      expect(rule.annotations?.['summary']).toBeTruthy();
      expect(rule.annotations?.['description']).toBeTruthy();
    },
  );

  it('label values in matchers are ones stacksync uses', () => {
    const values = rules.flatMap((rule) =>
      [...rule.expr.matchAll(/(result|reason)="([^"]+)"/g)].map((match) => `${match[1]}=${match[2]}`),
    );
    const allowed = new Set([
      'result=success',
      'result=failure',
      'result=ok',
      'result=failed',
      'result=skipped',
      'reason=throttled',
      'reason=server_error',
      'reason=connection',
      'reason=timeout',
    ]);
    for (const value of values) expect(allowed.has(value), value).toBe(true);
  });
});
