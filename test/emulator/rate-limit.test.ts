import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator, Seed } from '../../src/emulator/index.js';
import { RateLimiter } from '../../src/emulator/rate-limit.js';
import { basic, bearer, call, IDS, SERVICE_PATH, start } from './helpers.js';

describe('RateLimiter', () => {
  it('allows N per key per clock second, and forgets past windows', () => {
    let now = 10_000_400;
    const limiter = new RateLimiter(2, () => now);
    expect(limiter.take('a')).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 1 });
    expect(limiter.take('a')).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiter.take('a')).toEqual({ allowed: false, limit: 2, remaining: 0, resetSeconds: 1 });
    expect(limiter.take('b')).toMatchObject({ allowed: true });
    now += 600;
    expect(limiter.take('a')).toMatchObject({ allowed: true, remaining: 1 });
  });
});

describe('RateLimiter with a sliding window', () => {
  it('refuses the 11th request of any 10-second window, wherever the clock seconds fall', () => {
    let now = 5_000_700;
    const limiter = new RateLimiter(10, () => now, 10_000);
    const first = now;
    for (let i = 0; i < 10; i++) {
      expect(limiter.take('a')).toMatchObject({ allowed: true, remaining: 9 - i });
      now += 100;
    }
    // 9.994 s after the first: a fixed window of clock seconds would have let it through.
    now = first + 9_994;
    expect(limiter.take('a')).toEqual({ allowed: false, limit: 10, remaining: 0, resetSeconds: 1 });
    expect(limiter.take('b')).toMatchObject({ allowed: true });
    now = first + 10_000;
    expect(limiter.take('a')).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiter.take('a')).toMatchObject({ allowed: false, resetSeconds: 1 });
    expect(limiter.describe()).toBe('10 requests per 10 s');
    expect(new RateLimiter(2, () => now).describe()).toBe('2 requests per second');
  });

  it('says in Retry-After when the oldest request leaves the window', () => {
    let now = 0;
    const limiter = new RateLimiter(1, () => now, 60_000);
    limiter.take('a');
    now = 15_500;
    expect(limiter.take('a')).toMatchObject({ allowed: false, resetSeconds: 45 });
  });
});

describe('--rate-limit over HTTP', () => {
  const seed: Seed = {
    organizations: [
      {
        id: IDS.organizationId,
        keys: [
          { id: IDS.keyId, secret: IDS.keySecret },
          { id: 'key-2', secret: 'secret-2' },
        ],
        services: [{ id: IDS.serviceId }],
      },
    ],
    teams: [{ id: 'team-1', tokens: [IDS.token, 'token-2'] }],
  };
  let emulator: RunningEmulator | undefined;
  let now = 1_800_000_000_250;
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it('answers the managed variant 429 with Retry-After and X-RateLimit-Reset, per key, until the window ends', async () => {
    ({ emulator } = await start({ seed, rateLimit: 2, clock: () => now }));
    const list = (auth = basic()) => call(emulator!.url, 'GET', `${SERVICE_PATH}/pipes`, { auth });
    expect((await list()).status).toBe(200);
    expect((await list()).status).toBe(200);
    const throttled = await list();
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('1');
    expect(throttled.headers.get('x-ratelimit-reset')).toBe('1');
    expect(throttled.json).toEqual({
      status: 429,
      error: 'TOO_MANY_REQUESTS: rate limit of 2 requests per second exceeded',
      requestId: expect.any(String),
    });
    expect((await list(basic('key-2', 'secret-2'))).status).toBe(200);

    const before = (await call(emulator.url, 'GET', '/_emulator/dump')).json;
    const write = await call(emulator.url, 'POST', `${SERVICE_PATH}/stack/dashboards`, {
      auth: basic(),
      body: { name: 'throttled' },
    });
    expect(write.status).toBe(429);
    expect((await call(emulator.url, 'GET', '/_emulator/dump')).json).toEqual(before);

    now += 1000;
    expect((await list()).status).toBe(200);
    const stats = (await call(emulator.url, 'GET', '/_emulator/stats')).json;
    expect(stats).toMatchObject({ total: 6, throttled: 2, writes: 1 });
  });

  it('answers the self-hosted variant 429 with RateLimit-* headers and a plain-text body', async () => {
    ({ emulator } = await start({ seed, rateLimit: 1, clock: () => now }));
    const first = await call(emulator.url, 'GET', '/api/v2/alerts', { auth: bearer() });
    expect(first.status).toBe(200);
    expect([first.headers.get('ratelimit-limit'), first.headers.get('ratelimit-remaining')]).toEqual(['1', '0']);
    const throttled = await call(emulator.url, 'GET', '/api/v2/alerts', { auth: bearer() });
    expect(throttled.status).toBe(429);
    expect(throttled.text).toBe('Too many requests, please try again later.');
    expect(
      ['retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'].map((h) => throttled.headers.get(h)),
    ).toEqual(['1', '1', '0', '1']);
    // Another token of the same team is another credential.
    expect((await call(emulator.url, 'GET', '/api/v2/alerts', { auth: bearer('token-2') })).status).toBe(200);
  });

  it('counts over a sliding window with rateWindowMs, and says so', async () => {
    ({ emulator } = await start({ seed, rateLimit: 2, rateWindowMs: 10_000, clock: () => now }));
    const list = () => call(emulator!.url, 'GET', `${SERVICE_PATH}/pipes`, { auth: basic() });
    expect((await list()).status).toBe(200);
    now += 5_000;
    expect((await list()).status).toBe(200);
    now += 4_999;
    const throttled = await list();
    expect(throttled.status).toBe(429);
    expect(throttled.json.error).toBe('TOO_MANY_REQUESTS: rate limit of 2 requests per 10 s exceeded');
    now += 1;
    expect((await list()).status).toBe(200);
  });

  it('refuses a rate window without a rate limit', async () => {
    await expect(start({ rateWindowMs: 10_000 })).rejects.toMatchObject({ code: 'E_USAGE' });
  });

  it('never limits /_emulator/*', async () => {
    ({ emulator } = await start({ rateLimit: 1, clock: () => now }));
    for (let i = 0; i < 5; i++) expect((await call(emulator.url, 'GET', '/_emulator/stats')).status).toBe(200);
  });

  it('refuses a rate limit that is not a positive integer', async () => {
    await expect(start({ rateLimit: 0.5 })).rejects.toMatchObject({ code: 'E_USAGE' });
  });
});
