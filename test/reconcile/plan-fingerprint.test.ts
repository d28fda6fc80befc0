import { describe, expect, it } from 'vitest';
import { planTarget } from '../../src/diff/index.js';
import type { Config } from '../../src/model/config.js';
import { buildPlan } from '../../src/plan/build.js';
import { fingerprintRun } from '../../src/reconcile/plan-fingerprint.js';
import { specDigest } from '../../src/reconcile/spec.js';
import type { RunPlan } from '../../src/reconcile/reconcile.js';
import { createSecretHasher } from '../../src/state/hmac.js';
import { openStateStore } from '../../src/state/store.js';
import { desiredDashboard, desiredPipe, type liveState, planInput } from '../diff/factories.js';

const hasher = createSecretHasher(Buffer.alloc(32, 7));
const secret = (value: string) => ({ value, hmac: hasher(value) });
const pipe = (password: string, line = 1) =>
  desiredPipe({
    key: 'orders',
    pipeId: 'p-1',
    location: { file: 'manifests/orders.yaml', line },
    source: { kind: 'kafka', block: {}, secrets: [{ member: 'credentials', fields: { password: secret(password) } }] },
  });

describe('the spec digest of a manifest', () => {
  it('does not depend on where the manifest is written, nor on the order of its keys', () => {
    const a = desiredDashboard({ key: 'api', name: 'API', tags: ['x'], tiles: [{ name: 'p99' }] });
    const moved = { ...a, location: { file: 'manifests/elsewhere.yaml', line: 40 } };
    const reordered = Object.fromEntries(Object.entries(a).reverse()) as typeof a;
    expect(specDigest(moved)).toBe(specDigest(a));
    expect(specDigest(reordered)).toBe(specDigest(a));
    expect(specDigest({ ...a, tags: ['y'] })).not.toBe(specDigest(a));
  });

  it('changes with a secret value, without the value being part of what is digested', () => {
    expect(specDigest(pipe('one', 1))).toBe(specDigest(pipe('one', 7)));
    expect(specDigest(pipe('one'))).not.toBe(specDigest(pipe('two')));
  });
});

describe('fingerprintRun', () => {
  const config = {
    targets: [{ name: 'prod', variant: 'managed', baseUrl: 'http://api', organizationId: 'o', serviceId: 's' }],
    sync: {},
  } as unknown as Config;

  async function fingerprintOf(live: Parameters<typeof liveState>[0], password = 'one') {
    const desired = [pipe(password)];
    const input = planInput({ live });
    const changes = planTarget({ ...input, desired });
    const run = {
      plan: buildPlan(changes, []),
      load: { resources: desired, problems: [], warnings: [], blockedTargets: new Set() },
      targets: [{ target: config.targets[0], changes, blocked: false, live: input.live }],
      request: { prune: false, adopt: false },
    } as unknown as RunPlan;
    const store = await openStateStore('/nonexistent/stacksync-test/state.json');
    return fingerprintRun(run, { config, store, hasher, version: '9.9.9' });
  }

  const livePipe = (state: string) => ({
    pipes: [{ id: 'p-1', name: 'orders', state, source: { kind: 'kafka', block: {} }, destination: {} }],
  });

  it('records each planned write with its live digest and the HMACs of its secrets, never a value', async () => {
    const print = await fingerprintOf(livePipe('Running'));
    expect(Object.keys(print.changes)).toEqual(['prod/Pipe/orders']);
    const change = print.changes['prod/Pipe/orders'];
    expect(change).toMatchObject({
      action: 'update',
      id: 'p-1',
      secrets: { 'source.kafka.credentials.password': hasher('one') },
    });
    expect(change?.live).toMatch(/^[0-9a-f]{64}$/);
    expect(change?.writes).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(print)).not.toContain('"one"');
    expect(print.request).toEqual({ targets: ['prod'], prune: false, adopt: false });
    expect(print.stacksync).toBe('9.9.9');
  });

  it('ignores status the service changes on its own (a pipe pausing), not what the plan relies on', async () => {
    const running = await fingerprintOf(livePipe('Running'));
    const paused = await fingerprintOf(livePipe('Paused'));
    expect(paused.changes['prod/Pipe/orders']?.live).toBe(running.changes['prod/Pipe/orders']?.live);
    const renamed = await fingerprintOf({
      pipes: [
        { id: 'p-1', name: 'orders-renamed', state: 'Running', source: { kind: 'kafka', block: {} }, destination: {} },
      ],
    });
    expect(renamed.changes['prod/Pipe/orders']?.live).not.toBe(running.changes['prod/Pipe/orders']?.live);
  });

  it('digests the requests under the key: another secret value, other writes', async () => {
    const one = await fingerprintOf(livePipe('Running'), 'one');
    const two = await fingerprintOf(livePipe('Running'), 'two');
    expect(two.changes['prod/Pipe/orders']?.writes).not.toBe(one.changes['prod/Pipe/orders']?.writes);
    expect(two.manifests['prod/Pipe/orders']).not.toBe(one.manifests['prod/Pipe/orders']);
  });
});
