import { describe, expect, it } from 'vitest';
import { isStacksyncError } from '../../src/errors.js';
import { createHmac } from 'node:crypto';
import {
  parseSavedPlan,
  renderSavedPlan,
  sealMatches,
  setupReasons,
  staleReasons,
  type PlanFingerprint,
} from '../../src/plan/saved.js';
import { samplePlan } from './sample.js';

function fingerprint(overrides: Partial<PlanFingerprint> = {}): PlanFingerprint {
  return {
    stacksync: '0.1.0',
    keyCheck: 'k1',
    request: { targets: ['prod'], prune: false, adopt: false },
    targets: { prod: 'endpoint-1' },
    manifests: { 'prod/Dashboard/api': 'm1', 'prod/Dashboard/web': 'm2' },
    problems: { 'manifests/bad.yaml': 'p1' },
    changes: {
      'prod/Dashboard/web': { action: 'update', id: 'd-2', live: 'l1', owned: 'd-2', writes: 'w1', dependsOn: [] },
      'prod/Pipe/orders': {
        action: 'update',
        id: 'p-1',
        live: 'l2',
        owned: 'p-1',
        writes: 'w2',
        dependsOn: [],
        secrets: { 'source.kafka.credentials.password': 's1' },
      },
      'prod/Dashboard/api': { action: 'create', writes: 'w3', dependsOn: [] },
    },
    ...overrides,
  };
}

function withChange(ref: string, change: Partial<PlanFingerprint['changes'][string]>): PlanFingerprint {
  const base = fingerprint();
  const current = base.changes[ref];
  if (!current) throw new Error(ref);
  return { ...base, changes: { ...base.changes, [ref]: { ...current, ...change } } };
}

/** An HMAC under a fixed key, as the state key's hasher is. */
function hasherOf(key: string): (value: string) => string {
  return (value) => createHmac('sha256', key).update(value).digest('hex');
}
const HASHER = hasherOf('the-state-key');

describe('the saved plan file', () => {
  const text = renderSavedPlan(samplePlan(), fingerprint(), '2026-03-15T10:00:00.000Z', HASHER);

  it('is the JSON plan, plus the fingerprint under "saved", and reads back', () => {
    const data = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(data)).toEqual(['version', 'summary', 'changes', 'errors', 'warnings', 'saved']);
    expect(data['saved']).toMatchObject({
      format: 'stacksync-saved-plan',
      formatVersion: 2,
      createdAt: '2026-03-15T10:00:00.000Z',
      stacksync: '0.1.0',
    });
    const saved = parseSavedPlan(text, 'plan.json');
    expect(saved.fingerprint).toEqual(fingerprint());
    expect(saved.createdAt).toBe('2026-03-15T10:00:00.000Z');
    expect(saved.plan['summary']).toEqual(samplePlan().summary);
  });

  it('holds no secret value: the sample plan sends one, the file shows (sensitive)', () => {
    expect(text).not.toContain('TOP-SECRET');
    expect(text).toContain('(sensitive)');
  });

  it.each([
    ['not JSON', '{', /is not JSON/],
    [
      'a plain JSON plan',
      JSON.stringify({ version: 1, summary: {} }),
      /is not a saved plan \(no "saved" member\); write one with plan --out/,
    ],
    [
      'another format',
      JSON.stringify({ saved: { format: 'terraform' } }),
      /is not a saved plan \(format "terraform"\)/,
    ],
    [
      'another format version',
      text.replace('"formatVersion": 2', '"formatVersion": 1'),
      /has format version 1; this stacksync reads version 2: run plan --out again/,
    ],
    ['no seal', text.replace(/"seal": "[0-9a-f]+"/, '"sealed": "no"'), /is damaged: seal is missing/],
    [
      'a salt that is not 16 bytes',
      text.replace('"keyCheck": "k1"', '"keyCheck": "k1", "keySalt": "00ff"'),
      /is damaged: keySalt is not 16 bytes of hex/,
    ],
    [
      'a damaged fingerprint',
      text.replace('"writes": "w1"', '"writes": 7'),
      /is damaged: changes\["prod\/Dashboard\/web"\] is not a planned change/,
    ],
    [
      'a damaged request',
      text.replace('"prune": false', '"prune": "no"'),
      /is damaged: request is not \{targets, prune, adopt\}/,
    ],
  ])('refuses %s with E_PLAN_INVALID naming the file', (_what, content, message) => {
    let thrown: unknown;
    try {
      parseSavedPlan(content, 'out/plan.json');
    } catch (error) {
      thrown = error;
    }
    expect(isStacksyncError(thrown, 'E_PLAN_INVALID'), String(thrown)).toBe(true);
    expect((thrown as Error).message).toMatch(/^saved plan out\/plan\.json /);
    expect((thrown as Error).message).toMatch(message);
  });
});

describe('the seal of a saved plan', () => {
  const text = renderSavedPlan(samplePlan(), fingerprint(), '2026-03-15T10:00:00.000Z', HASHER);
  const edited = (
    change: (data: { saved: PlanFingerprint & Record<string, unknown> } & Record<string, unknown>) => void,
  ): string => {
    const data = JSON.parse(text) as { saved: PlanFingerprint & Record<string, unknown> } & Record<string, unknown>;
    change(data);
    return JSON.stringify(data, null, 4);
  };

  it('matches the file as plan wrote it, however it is indented, under the key it was made with only', () => {
    expect(sealMatches(parseSavedPlan(text, 'plan.json'), HASHER)).toBe(true);
    expect(
      sealMatches(
        parseSavedPlan(
          edited(() => undefined),
          'plan.json',
        ),
        HASHER,
      ),
    ).toBe(true);
    expect(sealMatches(parseSavedPlan(text, 'plan.json'), hasherOf('another-key'))).toBe(false);
  });

  it.each([
    ['a planned write dropped', (data: { saved: PlanFingerprint }) => delete data.saved.changes['prod/Dashboard/api']],
    ['the request widened', (data: { saved: PlanFingerprint }) => (data.saved.request.prune = true)],
    [
      'a digest replaced',
      (data: { saved: PlanFingerprint }) => (data.saved.changes['prod/Dashboard/web']!.writes = 'w1-forged'),
    ],
    ['a salt added', (data: { saved: PlanFingerprint }) => (data.saved.keySalt = '00'.repeat(16))],
    ['the plan shown changed', (data: Record<string, unknown>) => (data['summary'] = {})],
    [
      'the creation time changed',
      (data: Record<string, unknown> & { saved: Record<string, unknown> }) =>
        (data.saved['createdAt'] = '2030-01-01T00:00:00.000Z'),
    ],
  ])('fails when the file was edited: %s', (_what, change) => {
    expect(sealMatches(parseSavedPlan(edited(change as (data: unknown) => void), 'plan.json'), HASHER)).toBe(false);
  });
});

describe('what makes a saved plan stale', () => {
  it('nothing, when everything is as planned', () => {
    expect(staleReasons(fingerprint(), fingerprint())).toEqual([]);
  });

  it('a change nobody planned, such as drift elsewhere, is not a reason', () => {
    const now = fingerprint();
    now.changes['prod/Dashboard/other'] = {
      action: 'update',
      id: 'd-9',
      live: 'l9',
      owned: 'd-9',
      writes: 'w9',
      dependsOn: [],
    };
    expect(staleReasons(fingerprint(), now)).toEqual([]);
  });

  it.each([
    [
      'the live resource',
      withChange('prod/Dashboard/web', { live: 'l1-edited' }),
      'prod/Dashboard/web',
      'changed live since the plan (edited outside stacksync?)',
    ],
    [
      'the live resource appearing',
      withChange('prod/Dashboard/api', { live: 'l0' }),
      'prod/Dashboard/api',
      'exists live now; it did not when planned',
    ],
    [
      'the live resource going',
      withChange('prod/Dashboard/web', { live: undefined }),
      'prod/Dashboard/web',
      'is gone from the live state',
    ],
    [
      'the action',
      withChange('prod/Dashboard/api', { action: 'adopt' }),
      'prod/Dashboard/api',
      'would now be adopt, not create as planned',
    ],
    [
      'the state file',
      withChange('prod/Dashboard/web', { owned: undefined }),
      'prod/Dashboard/web',
      'its entry in the state file changed since the plan (another apply ran?)',
    ],
    [
      'a secret',
      withChange('prod/Pipe/orders', { secrets: { 'source.kafka.credentials.password': 's2' } }),
      'prod/Pipe/orders',
      'the secret at source.kafka.credentials.password resolves to another value than the one planned',
    ],
    [
      'the order',
      withChange('prod/Dashboard/web', { dependsOn: ['Alert/x'] }),
      'prod/Dashboard/web',
      'now waits on Alert/x, not nothing',
    ],
    [
      'the requests',
      withChange('prod/Dashboard/web', { writes: 'w1-other' }),
      'prod/Dashboard/web',
      'its requests differ from the planned ones (a resource it refers to changed)',
    ],
  ])('%s of a planned write', (_what, now, subject, what) => {
    expect(staleReasons(fingerprint(), now)).toEqual([{ subject, what }]);
  });

  it('a planned write that is no longer needed', () => {
    const now = fingerprint();
    delete now.changes['prod/Dashboard/api'];
    expect(staleReasons(fingerprint(), now)).toEqual([
      { subject: 'prod/Dashboard/api', what: 'is no longer a change to make (it was planned as create)' },
    ]);
  });

  it('any manifest of the planned targets, and the errors of a broken file', () => {
    const now = fingerprint({
      manifests: { 'prod/Dashboard/api': 'm1-edited', 'prod/Alert/new': 'm3' },
      problems: { 'manifests/bad.yaml': 'p1-other', 'manifests/worse.yaml': 'p2' },
    });
    expect(staleReasons(fingerprint(), now)).toEqual([
      { subject: 'prod/Alert/new', what: 'manifest added since the plan' },
      { subject: 'prod/Dashboard/api', what: 'manifest changed since the plan' },
      { subject: 'prod/Dashboard/web', what: 'manifest removed since the plan' },
      { subject: 'manifests/bad.yaml', what: 'its errors differ from the plan’s' },
      { subject: 'manifests/worse.yaml', what: 'has errors it did not have' },
    ]);
  });

  it('before reading anything live: another stacksync, another state key, a target pointed elsewhere or gone', () => {
    const now = { stacksync: '0.2.0', keyCheck: 'k2', targets: {} };
    expect(
      setupReasons(fingerprint({ targets: { prod: 'e1', staging: 'e2' } }), { ...now, targets: { prod: 'e1-other' } }),
    ).toEqual([
      { subject: 'stacksync', what: 'the plan was made by stacksync 0.1.0; this is 0.2.0' },
      {
        subject: 'state key',
        what: 'the plan was made with another HMAC key than the state file’s (state.key), so its secrets cannot be checked',
      },
      { subject: 'target prod', what: 'points elsewhere now (variant, baseUrl, organizationId or serviceId changed)' },
      { subject: 'target staging', what: 'is not in the config any more' },
    ]);
  });

  it('a plan made before the state had a key, once the state has another', () => {
    expect(
      setupReasons(fingerprint({ keySalt: '00'.repeat(16) }), {
        stacksync: '0.1.0',
        keyCheck: 'k2',
        targets: { prod: 'endpoint-1' },
      }),
    ).toEqual([
      {
        subject: 'state key',
        what: 'the plan was made before the state had a key, and the state has one now that is not this plan’s (another apply ran first)',
      },
    ]);
  });
});
