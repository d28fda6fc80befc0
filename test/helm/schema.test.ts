/**
 * The chart's values.schema.json, which Helm checks the merged values against at install,
 * upgrade, template and lint: it accepts every values file we ship and refuses misspelt or
 * misplaced values (the way test/helm/render.ts applies it, as Helm does, with ajv), and its
 * copies of the config schema's target and sync definitions equal schemas/config.json's.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { mergeValues, renderChart, validateValues, ValuesSchemaError } from './render.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHART = join(ROOT, 'helm', 'stacksync');

type Values = Record<string, unknown>;

function yamlFile(path: string): Values {
  return parse(readFileSync(join(ROOT, path), 'utf8')) as Values;
}

function jsonFile(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as Record<string, unknown>;
}

const defaults = yamlFile('helm/stacksync/values.yaml');
const minimal = yamlFile('test/helm/values-minimal.yaml');

/** The problems Helm would list for `override` on top of the chart's defaults and minimal values; [] when accepted. */
function problems(override: Values): string[] {
  try {
    validateValues(
      CHART,
      'stacksync',
      [minimal, override].reduce<unknown>((merged, next) => mergeValues(merged, next), defaults),
    );
    return [];
  } catch (error) {
    if (error instanceof ValuesSchemaError) return error.problems;
    throw error;
  }
}

describe('values.schema.json', () => {
  it.each([
    'test/helm/values-minimal.yaml',
    'test/helm/values-full.yaml',
    'test/helm/values-job.yaml',
    'examples/helm/git-sync-values.yaml',
  ])('accepts %s on top of the defaults', (file) => {
    expect(problems(yamlFile(file))).toEqual([]);
  });

  it.each<[string, Values, string]>([
    [
      'a misspelt sync option',
      { config: { sync: { prun: true } } },
      'config.sync: Additional property prun is not allowed',
    ],
    [
      'a misspelt persistence switch',
      { state: { persistence: { enable: false } } },
      'state.persistence: Additional property enable is not allowed',
    ],
    ['an unknown top-level value', { imagee: { tag: '1.0.0' } }, '(root): Additional property imagee is not allowed'],
    ['an unknown mode', { mode: 'cronjob' }, 'mode: must be equal to one of the allowed values'],
    ['a port given as a string', { port: '9464' }, 'port: must be integer'],
    [
      'a drift mode stacksync does not have',
      { config: { sync: { drift: 'fix' } } },
      'config.sync.drift: must be equal to one of the allowed values',
    ],
    [
      'a git auth type git-sync is not wired for',
      { gitSync: { auth: { type: 'token' } } },
      'gitSync.auth.type: must be equal to one of the allowed values',
    ],
    [
      'a credential that is not a string',
      { credentials: { env: { STACKSYNC_TOKEN: 12345 } } },
      'credentials.env.STACKSYNC_TOKEN: must be string',
    ],
    [
      'a storage size Kubernetes cannot read',
      { state: { persistence: { size: '1 GB' } } },
      'state.persistence.size: must match pattern',
    ],
    [
      'a state name the kubernetes backend refuses (not a DNS label)',
      { state: { kubernetes: { name: 'Team_State' } } },
      'state.kubernetes.name: must match pattern',
    ],
    [
      'a state name longer than the kubernetes backend takes',
      { state: { kubernetes: { name: 'a'.repeat(41) } } },
      'state.kubernetes.name: must NOT have more than 40 characters',
    ],
  ])('refuses %s, naming the value', (_name, override, problem) => {
    expect(problems(override).join('\n')).toContain(problem);
  });

  it('refuses a misspelt member of a target, from the config schema it copies', () => {
    const target = {
      name: 'obs',
      variant: 'self-hosted',
      baseURL: 'http://obs:8000',
      auth: { token: { fromEnv: 'STACKSYNC_TOKEN' } },
    };
    expect(problems({ config: { targets: [target] } }).join('\n')).toContain(
      'config.targets.0: Additional property baseURL is not allowed',
    );
  });

  it('makes rendering fail before any template runs, as helm install does', () => {
    expect(() => renderChart(CHART, [minimal, { config: { sync: { prun: true } } }])).toThrow(ValuesSchemaError);
    expect(() => renderChart(CHART, [minimal, { config: { sync: { prun: true } } }])).toThrow(
      /values don't meet the specifications[\s\S]*config\.sync: Additional property prun/,
    );
  });

  it('holds the config schema’s target and sync definitions unchanged (node scripts/sync-chart-schema.mjs copies them)', () => {
    const config = jsonFile('schemas/config.json') as { properties: { targets: { items: unknown }; sync: unknown } };
    const chart = jsonFile('helm/stacksync/values.schema.json') as {
      properties: { config: { properties: { targets: { items: unknown }; sync: unknown } } };
    };
    expect(chart.properties.config.properties.targets.items).toEqual(config.properties.targets.items);
    expect(chart.properties.config.properties.sync).toEqual(config.properties.sync);
  });

  it('describes exactly the top-level values values.yaml has (plus Helm’s global)', () => {
    const schema = jsonFile('helm/stacksync/values.schema.json') as { properties: Record<string, unknown> };
    expect(
      Object.keys(schema.properties)
        .filter((key) => key !== 'global')
        .sort(),
    ).toEqual(Object.keys(defaults).sort());
  });
});
