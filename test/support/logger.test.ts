import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { REDACTED, childForSync, createLogger, newSyncId } from '../../src/support/logger.js';

/** An in-memory sink that keeps every line pino writes. */
function memorySink(): { stream: { write(chunk: string): void }; lines: () => Record<string, unknown>[]; text: () => string } {
  const chunks: string[] = [];
  return {
    stream: { write: (chunk: string) => void chunks.push(chunk) },
    lines: () => chunks.join('').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>),
    text: () => chunks.join(''),
  };
}

const SECRET = 'hunter2-very-secret';

describe('createLogger', () => {
  it('writes JSON lines with level, time, message and fields', () => {
    const sink = memorySink();
    const log = createLogger({ destination: sink.stream, isTty: false });
    log.info({ target: 'prod', count: 3 }, 'synced');
    const [line] = sink.lines();
    expect(line).toMatchObject({ level: 30, msg: 'synced', target: 'prod', count: 3, name: 'stacksync' });
    expect(typeof line?.['time']).toBe('string');
  });

  it('respects the level', () => {
    const sink = memorySink();
    const log = createLogger({ destination: sink.stream, level: 'warn', isTty: false });
    log.info('hidden');
    log.warn('shown');
    expect(sink.lines().map((line) => line['msg'])).toEqual(['shown']);
  });

  it.each([
    ['top-level password', { password: SECRET }],
    ['nested keySecret', { auth: { keySecret: SECRET } }],
    ['deep secretKey', { pipe: { source: { accessKey: { accessKeyId: 'AKIA', secretKey: SECRET } } } }],
    ['deep password', { body: { source: { kafka: { credentials: { username: 'u', password: SECRET } } } } }],
    ['token', { connection: { token: SECRET } }],
    ['authorization header', { headers: { authorization: `Bearer ${SECRET}` } }],
    ['nested Authorization header', { req: { headers: { Authorization: `Basic ${SECRET}` } } }],
    ['six levels deep', { a: { b: { c: { d: { e: { f: { password: SECRET } } } } } } }],
    ['credentials object', { credentials: { variant: 'managed', keyId: 'k', keySecret: SECRET } }],
  ])('never prints a secret passed as %s', (_name, fields) => {
    const sink = memorySink();
    const log = createLogger({ destination: sink.stream, isTty: false });
    log.error(fields, 'request failed');
    expect(sink.text()).not.toContain(SECRET);
    expect(sink.text()).toContain(REDACTED);
  });

  it('redacts on child loggers too', () => {
    const sink = memorySink();
    const log = childForSync(createLogger({ destination: sink.stream, isTty: false }), 'prod');
    log.warn({ auth: { token: SECRET } }, 'x');
    expect(sink.text()).not.toContain(SECRET);
  });

  it('prints human-readable lines when pretty, still redacted', async () => {
    const chunks: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk.toString());
        done();
      },
    });
    const log = createLogger({ destination, pretty: true, isTty: false });
    log.info({ target: 'prod', auth: { password: SECRET } }, 'pretty hello');
    await expect.poll(() => chunks.join('')).toContain('pretty hello');
    const text = chunks.join('');
    expect(text).toContain('INFO');
    expect(text).not.toContain(SECRET);
    expect(() => JSON.parse(text)).toThrow();
  });
});

describe('childForSync', () => {
  it('adds the target and a fresh sync id to every line', () => {
    const sink = memorySink();
    const root = createLogger({ destination: sink.stream, isTty: false });
    childForSync(root, 'prod').info('one');
    childForSync(root, 'prod').info('two');
    const [one, two] = sink.lines();
    expect(one).toMatchObject({ target: 'prod', msg: 'one' });
    expect(one?.['syncId']).toMatch(/^[0-9a-f]{12}$/);
    expect(two?.['syncId']).not.toBe(one?.['syncId']);
  });

  it('uses a given sync id', () => {
    const sink = memorySink();
    childForSync(createLogger({ destination: sink.stream, isTty: false }), 'lab', 'abc').info('x');
    expect(sink.lines()[0]).toMatchObject({ target: 'lab', syncId: 'abc' });
  });

  it('makes distinct ids', () => {
    expect(new Set(Array.from({ length: 100 }, () => newSyncId())).size).toBe(100);
  });
});
