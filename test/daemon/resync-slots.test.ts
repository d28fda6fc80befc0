import { describe, expect, it } from 'vitest';
import type { ManagedTarget, SelfHostedTarget, Target } from '../../src/model/config.js';
import {
  budgetGroups,
  delayToSlot,
  groupIntervalMs,
  READS_PER_RESYNC,
  RESYNC_BUDGET_SHARE,
  resyncSlots,
} from '../../src/daemon/resync-slots.js';

const ORG = '0b4f6c1e-4d2a-4f6b-9a51-7c3d2e1f0a01';
const MINUTE = 60_000;
const KEY = { keyId: { fromEnv: 'KEY_ID' }, keySecret: { fromEnv: 'KEY_SECRET' } };
const MANAGED_BUDGET = { requests: 10, perSeconds: 10, concurrency: 2 };

function managed(name: string, extra: Partial<ManagedTarget> = {}): ManagedTarget {
  return {
    name,
    variant: 'managed',
    baseUrl: 'https://api.example.com',
    organizationId: ORG,
    serviceId: ORG,
    auth: KEY,
    rateLimit: MANAGED_BUDGET,
    ...extra,
  };
}

function selfHosted(name: string, extra: Partial<SelfHostedTarget> = {}): SelfHostedTarget {
  return {
    name,
    variant: 'self-hosted',
    baseUrl: 'http://obs.internal:8000',
    auth: { token: { fromFile: '/run/token' } },
    rateLimit: { requests: 100, perSeconds: 60, concurrency: 4 },
    ...extra,
  };
}

const names = (groups: Target[][]): string[][] => groups.map((group) => group.map((target) => target.name));

describe('budgetGroups', () => {
  it('groups targets by origin and secret references, in config order', () => {
    const targets = [
      managed('a'),
      selfHosted('obs'),
      managed('b', { baseUrl: 'https://api.example.com/v1/' }),
      managed('other-key', { auth: { keyId: { fromEnv: 'OTHER_ID' }, keySecret: { fromEnv: 'OTHER_SECRET' } } }),
      managed('other-host', { baseUrl: 'https://eu.api.example.com' }),
      managed('c'),
    ];
    expect(names(budgetGroups(targets))).toEqual([['a', 'b', 'c'], ['obs'], ['other-key'], ['other-host']]);
  });

  it('groups by what the credentials resolve to when it is known: two references to one key are one budget', () => {
    const targets = [
      managed('a'),
      managed('same-key', { auth: { keyId: { fromFile: '/run/id' }, keySecret: { fromFile: '/run/secret' } } }),
      managed('unreadable', { auth: { keyId: { fromEnv: 'UNSET' }, keySecret: { fromEnv: 'UNSET' } } }),
    ];
    const resolved: Record<string, string> = { a: 'fingerprint-1', 'same-key': 'fingerprint-1' };
    expect(names(budgetGroups(targets, (target) => resolved[target.name]))).toEqual([
      ['a', 'same-key'],
      ['unreadable'],
    ]);
    expect(names(budgetGroups(targets))).toEqual([['a'], ['same-key'], ['unreadable']]);
    // A key both hold, but on another host, is another budget.
    const elsewhere = [managed('a'), managed('eu', { baseUrl: 'https://eu.api.example.com' })];
    expect(names(budgetGroups(elsewhere, () => 'fingerprint-1'))).toEqual([['a'], ['eu']]);
  });
});

describe('resyncSlots', () => {
  it('gives no slot to a target alone on its budget', () => {
    expect(resyncSlots([managed('a'), selfHosted('obs')], 5 * MINUTE).size).toBe(0);
  });

  it('spreads the targets of a group evenly over the interval when a round fits', () => {
    const targets = Array.from({ length: 20 }, (_, index) => managed(`svc-${index}`));
    const slots = resyncSlots(targets, 5 * MINUTE);
    // 20 × 3 reads at 1 per second take 60 s of the budget; at most half of 5 minutes: it fits.
    expect(slots.get('svc-0')).toEqual({ intervalMs: 5 * MINUTE, offsetMs: 0 });
    expect(slots.get('svc-1')).toEqual({ intervalMs: 5 * MINUTE, offsetMs: 15_000 });
    expect(slots.get('svc-19')).toEqual({ intervalMs: 5 * MINUTE, offsetMs: 285_000 });
  });

  it('stretches the interval, never shortens it, until a round takes at most its share of the budget', () => {
    const group = Array.from({ length: 100 }, (_, index) => managed(`svc-${index}`));
    // 300 reads at 1 per second: 5 minutes of budget, which may be at most half of the interval.
    expect(groupIntervalMs(group, 5 * MINUTE)).toBe(10 * MINUTE);
    expect(groupIntervalMs(group, 30 * MINUTE)).toBe(30 * MINUTE);
    expect((READS_PER_RESYNC.managed * 100 * 1000) / RESYNC_BUDGET_SHARE).toBe(10 * MINUTE);
    const slots = resyncSlots(group, 5 * MINUTE);
    expect(slots.get('svc-1')).toEqual({ intervalMs: 10 * MINUTE, offsetMs: 6_000 });
  });

  it('takes the strictest budget of a group whose targets disagree', () => {
    const group = [
      managed('a', { rateLimit: { requests: 100, perSeconds: 1, concurrency: 8 } }),
      managed('b', { rateLimit: { requests: 1, perSeconds: 10, concurrency: 1 } }),
    ];
    // 6 reads at 1 per 10 s: 60 s of budget, so at least 2 minutes.
    expect(groupIntervalMs(group, 30_000)).toBe(2 * MINUTE);
  });
});

describe('delayToSlot', () => {
  const slot = { intervalMs: 60_000, offsetMs: 15_000 };
  it.each([
    ['at the start, the slot of the next cycle (less than half an interval away is too soon)', 0, 75_000],
    ['just after the own slot ran, the next cycle', 15_500, 59_500],
    ['after a sync that ended half an interval before the slot', 45_000, 30_000],
    ['after a sync that ended just later, the cycle after', 45_001, 89_999],
  ])('%s', (_name, now, want) => {
    expect(delayToSlot(slot, 0, now)).toBe(want);
  });
});
