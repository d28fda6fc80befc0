import { describe, expect, it } from 'vitest';
import { REDACTED, childForSync, createLogger, newSyncId } from '../../src/support/logger.js';

/** An in-memory sink that keeps every line pino writes. */
function memorySink(): {
  stream: { write(chunk: string): void };
  lines: () => Record<string, unknown>[];
  text: () => string;
} {
  const chunks: string[] = [];
  return {
    stream: { write: (chunk: string) => void chunks.push(chunk) },
    lines: () =>
      chunks
        .join('')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
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

  it('prints one human line per record: time, level, target, message, fields; still redacted', () => {
    const sink = memorySink();
    const log = createLogger({ destination: sink.stream, format: 'human' });
    log.info({ target: 'prod', auth: { password: SECRET }, count: 3, note: 'two words' }, 'human hello');
    childForSync(log, 'lab', 'abc').error({ err: new Error('kaboom'), code: 'E_INTERNAL' }, 'sync failed');
    log.warn('plain');
    const lines = sink.text().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(
      /^\d\d:\d\d:\d\d INFO {2}prod: human hello auth=\{"password":"\[redacted\]"\} count=3 note="two words"$/,
    );
    expect(lines[1]).toMatch(/^\d\d:\d\d:\d\d ERROR lab: sync failed err="Error: kaboom" code=E_INTERNAL$/);
    expect(lines[2]).toMatch(/^\d\d:\d\d:\d\d WARN {2}plain$/);
    expect(sink.text()).not.toContain(SECRET);
    expect(sink.text()).not.toContain('{"level"');
  });

  it('defaults to human lines on a terminal and JSON elsewhere', () => {
    const tty = memorySink();
    createLogger({ destination: tty.stream, isTty: true }).info('x');
    expect(tty.text()).toMatch(/^\d\d:\d\d:\d\d INFO {2}x\n$/);
    const pipe = memorySink();
    createLogger({ destination: pipe.stream, isTty: false }).info('x');
    expect(pipe.lines()[0]).toMatchObject({ msg: 'x', level: 30 });
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
