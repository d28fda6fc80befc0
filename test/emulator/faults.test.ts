import { afterEach, describe, expect, it } from 'vitest';
import { isStacksyncError } from '../../src/errors.js';
import { decideFault, parseFaults, NO_FAULTS, type FaultSpec } from '../../src/emulator/faults.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { call, IDS, SERVICE_PATH, start, basic, bearer } from './helpers.js';

describe('parseFaults', () => {
  const valid: { spec: string; want: Partial<FaultSpec> }[] = [
    {
      spec: 'error=0.1,throttle=0.05,latency=20ms,reset=0.02,spike=0.05:200ms',
      want: { error: 0.1, throttle: 0.05, latencyMs: 20, reset: 0.02, spike: { share: 0.05, delayMs: 200 } },
    },
    { spec: 'latency=1.5s', want: { latencyMs: 1500 } },
    { spec: 'latency=15', want: { latencyMs: 15 } },
    { spec: ' error = 1 , ', want: { error: 1 } },
    { spec: 'throttle=.5,reset=0.5', want: { throttle: 0.5, reset: 0.5 } },
    { spec: '', want: {} },
  ];
  it.each(valid)('"$spec"', ({ spec, want }) => {
    expect(parseFaults(spec)).toEqual({ ...NO_FAULTS, ...want });
  });

  const invalid: { spec: string; message: string }[] = [
    { spec: 'error=2', message: 'error must be a share from 0 to 1, got "2"' },
    { spec: 'error=lots', message: 'error must be a share from 0 to 1' },
    { spec: 'error=-0.1', message: 'error must be a share from 0 to 1' },
    { spec: 'boom=0.1', message: 'unknown fault "boom"' },
    { spec: 'error', message: '"error" is not name=value' },
    { spec: 'spike=0.1', message: 'spike delay must be a duration' },
    { spec: 'latency=fast', message: 'latency must be a duration like 20ms or 1s, got "fast"' },
    { spec: 'error=0.6,throttle=0.6', message: 'error + throttle + reset must not exceed 1' },
    { spec: 'error=0.1,error=0.2', message: 'error is given twice' },
  ];
  it.each(invalid)('rejects "$spec"', ({ spec, message }) => {
    let thrown: unknown;
    try {
      parseFaults(spec);
    } catch (error) {
      thrown = error;
    }
    expect(isStacksyncError(thrown, 'E_USAGE')).toBe(true);
    expect((thrown as Error).message).toContain(message);
    expect((thrown as Error).message).toContain('grammar: ');
  });
});

/** A scripted random: each call takes the next value. */
function scripted(values: number[]): () => number {
  const queue = [...values];
  return () => {
    const next = queue.shift();
    if (next === undefined) throw new Error('random called more often than scripted');
    return next;
  };
}

describe('decideFault', () => {
  const spec = parseFaults('reset=0.1,error=0.2,throttle=0.3,latency=5ms,spike=0.5:100ms');
  const rows: { draws: number[]; want: ReturnType<typeof decideFault> }[] = [
    { draws: [0.05, 0.9], want: { outcome: 'reset', delayMs: 5 } },
    { draws: [0.15, 0.9, 0.2], want: { outcome: 'error500', delayMs: 5 } },
    { draws: [0.25, 0.1, 0.7], want: { outcome: 'error503', delayMs: 105 } },
    { draws: [0.45, 0.9], want: { outcome: 'throttle', delayMs: 5 } },
    { draws: [0.65, 0.4], want: { outcome: 'none', delayMs: 105 } },
  ];
  it.each(rows)('draws $draws → $want.outcome after $want.delayMs ms', ({ draws, want }) => {
    const random = scripted(draws);
    expect(decideFault(spec, random)).toEqual(want);
    expect(() => random()).toThrow();
  });

  it('draws nothing when there are no faults', () => {
    expect(decideFault(NO_FAULTS, scripted([]))).toEqual({ outcome: 'none', delayMs: 0 });
  });
});

describe('fault injection over HTTP', () => {
  let emulator: RunningEmulator | undefined;
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it('answers reset, 500, 503, 429 and success as scripted, and faulted writes change nothing', async () => {
    const draws = [0.1, /* reset */ 0.3, 0.2 /* 500 */, 0.3, 0.8 /* 503 */, 0.5 /* throttle */, 0.9 /* ok */];
    ({ emulator } = await start({ faults: 'reset=0.2,error=0.2,throttle=0.2', random: scripted(draws) }));
    const before = (await call(emulator.url, 'GET', '/_emulator/dump')).json;
    const patch = () =>
      call(emulator!.url, 'PATCH', `${SERVICE_PATH}/pipes/${IDS.pipes.kafka}`, {
        auth: basic(),
        body: { name: 'renamed' },
      });

    await expect(patch()).rejects.toThrow();
    const internal = await patch();
    expect(internal.status).toBe(500);
    expect(internal.json).toEqual({
      status: 500,
      error: 'INTERNAL_SERVER_ERROR: injected fault',
      requestId: expect.any(String),
    });
    const unavailable = await patch();
    expect(unavailable.status).toBe(503);
    expect(unavailable.json.error).toBe('SERVICE_UNAVAILABLE: injected fault');
    const throttled = await patch();
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('1');
    expect(throttled.headers.get('x-ratelimit-reset')).toBe('1');
    expect(throttled.json.error).toBe('TOO_MANY_REQUESTS: injected throttle');
    expect((await call(emulator.url, 'GET', '/_emulator/dump')).json).toEqual(before);

    const ok = await patch();
    expect(ok.status).toBe(200);
    expect(ok.json.result.name).toBe('renamed');

    const stats = (await call(emulator.url, 'GET', '/_emulator/stats')).json;
    expect(stats).toMatchObject({ total: 5, writes: 5, throttled: 1 });
    expect(stats.routes).toEqual([
      {
        method: 'PATCH',
        route: '/v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}',
        count: 5,
        statuses: { reset: 1, '500': 1, '503': 1, '429': 1, '200': 1 },
      },
    ]);
  });

  it('answers self-hosted faults in the self-hosted shape', async () => {
    ({ emulator } = await start({ faults: 'error=0.5,throttle=0.5', random: scripted([0.1, 0.1, 0.9]) }));
    const first = await call(emulator.url, 'GET', '/api/v2/dashboards', { auth: bearer() });
    expect(first.status).toBe(500);
    expect(first.text).toBe('Internal Server Error');
    const second = await call(emulator.url, 'GET', '/api/v2/dashboards', { auth: bearer() });
    expect(second.status).toBe(429);
    expect(second.text).toBe('Too many requests, please try again later.');
    expect(
      Object.fromEntries(
        ['retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'].map((h) => [
          h,
          second.headers.get(h),
        ]),
      ),
    ).toEqual({
      'retry-after': '1',
      'ratelimit-limit': '100',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '1',
    });
  });

  it('delays by latency on every request and by the spike on its share, through the injected sleep', async () => {
    const slept: number[] = [];
    ({ emulator } = await start({
      faults: 'latency=20ms,spike=0.5:200ms',
      random: scripted([0.4, 0.6]),
      sleep: async (ms) => void slept.push(ms),
    }));
    expect((await call(emulator.url, 'GET', `${SERVICE_PATH}/pipes`, { auth: basic() })).status).toBe(200);
    expect((await call(emulator.url, 'GET', `${SERVICE_PATH}/pipes`, { auth: basic() })).status).toBe(200);
    expect(slept).toEqual([220, 20]);
  });

  it('waits for real when no sleep is injected', async () => {
    ({ emulator } = await start({ faults: 'latency=30ms' }));
    const started = performance.now();
    await call(emulator.url, 'GET', '/api/v2/dashboards', { auth: bearer() });
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('never applies to /_emulator/*', async () => {
    ({ emulator } = await start({ faults: 'error=1', random: () => 0 }));
    for (let i = 0; i < 5; i++) expect((await call(emulator.url, 'GET', '/_emulator/stats')).status).toBe(200);
    expect((await call(emulator.url, 'GET', '/_emulator/dump')).status).toBe(200);
    expect((await call(emulator.url, 'GET', '/api/v2/alerts', { auth: bearer() })).status).toBe(500);
  });

  it('rejects a bad spec at start', async () => {
    await expect(start({ faults: 'error=0.1,chaos=1' })).rejects.toMatchObject({ code: 'E_USAGE' });
  });
});
