/** Per-target variables and manifests applied to several targets, through the loader. */
import { afterAll, describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifests/load.js';
import { substituteVariables } from '../../src/manifests/vars.js';
import type { Config } from '../../src/model/config.js';
import type { DesiredAlert } from '../../src/kinds/alert/model.js';
import { specOf } from '../../src/reconcile/spec.js';
import { config as baseConfig, hmac, removeTrees, writeTree } from './helpers.js';

afterAll(removeTrees);

const [prod, sh] = baseConfig.targets as [Config['targets'][number], Config['targets'][number]];
const config: Config = {
  ...baseConfig,
  targets: [
    { ...prod, vars: { ENV: 'prod', THRESHOLD_NOTE: 'page', HOOK: { fromEnv: 'HOOK_PROD' } } },
    { ...sh, name: 'staging', vars: { ENV: 'staging', THRESHOLD_NOTE: 'ticket', HOOK: 'hook-staging' } },
  ],
};
const env = { HOOK_PROD: 's3cr3t-hook' };

const alertDoc = (
  metadata: string,
  message = 'on ${ENV}: ${THRESHOLD_NOTE} via ${HOOK}',
): string => `apiVersion: stacksync/v1
kind: Alert
metadata:
  name: slow
${metadata}
spec:
  name: slow-\${ENV}
  message: "${message}"
  threshold: 1
  thresholdType: above
  interval: 5m
  source: search
  savedSearchId: search-1
  channel: { type: webhook, webhookId: "\${ENV}-oncall" }
`;

async function load(tree: Record<string, string>) {
  return loadManifests(await writeTree(tree), { config, env, hmac });
}

describe('substituteVariables', () => {
  const context = { target: 'prod', vars: { A: 'x', S: { fromEnv: 'HOOK_PROD' } }, secretIo: { env }, hmac };
  it('replaces ${NAME}, keeps $${…} as a literal ${…}, and collects secret values', () => {
    const out = substituteVariables({ a: '${A}-${A}', b: ['$${A}', 2], c: 'k=${S}' }, context);
    expect(out.value).toEqual({ a: 'x-x', b: ['${A}', 2], c: 'k=s3cr3t-hook' });
    expect(out.problems).toEqual([]);
    expect(out.sensitive).toEqual([{ value: 's3cr3t-hook', hmac: hmac('s3cr3t-hook') }]);
  });

  it('an unset variable is a problem at its node, never an empty string', () => {
    const out = substituteVariables({ spec: { name: 'a-${NOPE}' } }, context);
    expect(out.value).toEqual({ spec: { name: 'a-${NOPE}' } });
    expect(out.problems).toEqual([
      {
        code: 'E_MANIFEST_INVALID',
        pointer: ['spec', 'name'],
        message: expect.stringContaining('${NOPE} is not set for target prod (its vars are A, S)'),
      },
    ]);
  });
});

describe('vars and several targets', () => {
  it('one manifest with a target list is a resource per target, each with its own values', async () => {
    const result = await load({ 'slow.yaml': alertDoc('  target: [prod, staging]') });
    expect(result.problems).toEqual([]);
    const alerts = result.resources as DesiredAlert[];
    expect(alerts.map((a) => [a.target, a.name, a.message, a.channel])).toEqual([
      ['prod', 'slow-prod', 'on prod: page via s3cr3t-hook', { type: 'webhook', webhookId: 'prod-oncall' }],
      [
        'staging',
        'slow-staging',
        'on staging: ticket via hook-staging',
        { type: 'webhook', webhookId: 'staging-oncall' },
      ],
    ]);
    expect(alerts[0]?.sensitive?.map((s) => s.value)).toEqual(['s3cr3t-hook']);
    expect(alerts[1]?.sensitive).toBeUndefined();
    expect(JSON.stringify(specOf(alerts[0] as DesiredAlert)), 'the spec digest never sees the secret').not.toContain(
      's3cr3t-hook',
    );
  });

  it('targets: all applies to every configured target', async () => {
    const result = await load({ 'slow.yaml': alertDoc('  targets: all') });
    expect(result.problems).toEqual([]);
    expect(result.resources.map((r) => r.target)).toEqual(['prod', 'staging']);
  });

  it('an unset variable is an error with file and line, for each target that lacks it', async () => {
    const result = await load({ 'slow.yaml': alertDoc('  target: [prod, staging]', 'on ${ENV} in ${REGION}') });
    expect(result.problems.map((p) => [p.target, p.location.line, p.message])).toEqual([
      ['prod', 8, expect.stringContaining('${REGION} is not set for target prod')],
      ['staging', 8, expect.stringContaining('${REGION} is not set for target staging')],
    ]);
    expect(result.problems[0]?.location.file).toMatch(/slow\.yaml$/);
    expect(result.resources).toEqual([]);
    expect([...result.blockedTargets].sort()).toEqual(['prod', 'staging']);
  });

  it('a manifest expanded to a target that another manifest also names for it is a duplicate there', async () => {
    const result = await load({ 'a.yaml': alertDoc('  targets: all'), 'b.yaml': alertDoc('  target: staging') });
    expect(result.problems.map((p) => [p.code, p.target])).toEqual([
      ['E_MANIFEST_DUPLICATE', 'staging'],
      ['E_MANIFEST_DUPLICATE', 'staging'],
    ]);
    expect(result.resources.map((r) => r.target)).toEqual(['prod']);
  });

  it('a secret variable that cannot be read is E_SECRET_MISSING at the node, naming the variable', async () => {
    const result = await loadManifests(await writeTree({ 'slow.yaml': alertDoc('  target: prod') }), {
      config,
      env: {},
      hmac,
    });
    expect(result.problems.map((p) => [p.code, p.location.line])).toEqual([['E_SECRET_MISSING', 8]]);
    expect(result.problems[0]?.message).toContain('${HOOK} of target prod');
  });
});
