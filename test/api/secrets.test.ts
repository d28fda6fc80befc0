/** Credentials never reach an error, its inspection, its JSON, or a log line, whatever fails. */
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { errors, type MockAgent } from 'undici';
import { createApi, type Api } from '../../src/api/index.js';
import {
  BASE,
  capturedLogger,
  dataOk,
  failure,
  fakeTime,
  MANAGED_PREFIX,
  managedConnection,
  managedOk,
  mockAgent,
  SECRETS,
  selfHostedConnection,
} from './helpers.js';

let agent: MockAgent;
let api: Api | undefined;

afterEach(async () => {
  await api?.close();
  api = undefined;
  await agent.close();
});

const PIPE_PASSWORD = 'pipe-pa55word-in-a-body';

/** Every form in which an error could be printed. */
function renderings(error: unknown): string[] {
  const stacksync = error as Error & { details?: unknown };
  return [
    String(error),
    stacksync.message,
    stacksync.stack ?? '',
    inspect(error, { depth: 10 }),
    JSON.stringify(error),
    JSON.stringify(stacksync.details),
  ];
}

function expectNoSecret(texts: string[]): void {
  for (const text of texts) for (const secret of [...SECRETS, PIPE_PASSWORD]) expect(text).not.toContain(secret);
}

describe('secrets', () => {
  it.each([
    {
      name: 'undici quoting request headers (mock agent mismatch)',
      variant: 'managed',
      arrange: (a: MockAgent) =>
        a
          .get(BASE)
          .intercept({ path: `${MANAGED_PREFIX}/pipes`, headers: { authorization: 'Basic other' } })
          .reply(200, managedOk([])),
      call: (client: Api) => client.list('Pipe'),
    },
    {
      name: 'a network error whose message quotes the token',
      variant: 'self-hosted',
      arrange: (a: MockAgent) =>
        a
          .get(BASE)
          .intercept({ path: '/api/v2/dashboards' })
          .replyWithError(new errors.SocketError(`closed while sending Bearer ${SECRETS[1]}`))
          .persist(),
      call: (client: Api) => client.list('Dashboard'),
    },
    {
      name: 'a server echoing the Authorization header',
      variant: 'managed',
      arrange: (a: MockAgent) =>
        a
          .get(BASE)
          .intercept({ path: `${MANAGED_PREFIX}/pipes` })
          .reply(401, (request) =>
            JSON.stringify({ status: 401, error: `UNAUTHORIZED: bad ${JSON.stringify(request.headers)}` }),
          ),
      call: (client: Api) => client.list('Pipe'),
    },
    {
      name: 'a server echoing a credential from the body',
      variant: 'managed',
      arrange: (a: MockAgent) =>
        a
          .get(BASE)
          .intercept({ path: `${MANAGED_PREFIX}/pipes/p1`, method: 'PATCH' })
          .reply(400, (request) =>
            JSON.stringify({ status: 400, error: `BAD_REQUEST: bad body ${String(request.body)}` }),
          ),
      call: (client: Api) =>
        client.update('Pipe', 'p1', {
          source: { kafka: { credentials: { username: 'svc-user', password: PIPE_PASSWORD } } },
        }),
    },
  ] as const)('stay out of errors and logs: $name', async ({ variant, arrange, call }) => {
    agent = mockAgent();
    const { logger, lines } = capturedLogger();
    const time = fakeTime();
    const connection = variant === 'managed' ? managedConnection() : selfHostedConnection();
    api = createApi(connection, {
      dispatcher: agent,
      logger,
      now: time.now,
      sleep: time.sleep,
      retry: { maxAttempts: 2 },
    });
    arrange(agent);
    const error = await failure(call(api));
    expect(error).toMatchObject({ name: 'StacksyncError' });
    expectNoSecret(renderings(error));
    expectNoSecret(lines);
    expect(lines.length).toBeGreaterThan(0);
  });

  describe('in whatever encoding a server echoes them', () => {
    // A quote, a backslash, a slash, a space and non-ASCII letters: each encoding differs from the raw string.
    const USER = 'svc-ü"ser';
    const PASSWORD = 'pa"55\\wörd/ß é-x';

    /** How the forms are written here is independent of the redactor, so one it misses fails. */
    const json = (text: string): string => JSON.stringify(text).slice(1, -1);
    const ascii = (text: string): string =>
      text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const asciiJson = (text: string): string => ascii(json(text));
    const leakForms = (text: string): string[] => [
      text,
      json(text),
      asciiJson(text),
      encodeURIComponent(text),
      Buffer.from(text).toString('base64'),
    ];

    it.each([
      [
        'the body quoted in a JSON error (JSON-escaped once)',
        (body: string) => JSON.stringify({ status: 400, error: `BAD_REQUEST: cannot apply ${body}` }),
      ],
      ['the body as plain text', (body: string) => `cannot apply ${body}`],
      [
        'the body re-serialised ASCII-only (\\u00f6)',
        (body: string) => JSON.stringify({ message: `cannot apply ${ascii(body)}` }),
      ],
      [
        'the body quoted twice (a JSON string inside a JSON string)',
        (body: string) => JSON.stringify({ message: JSON.stringify({ detail: `cannot apply ${body}` }) }),
      ],
      [
        'a form field (URL-encoded)',
        () =>
          JSON.stringify({
            message: `rejected user=${encodeURIComponent(USER)}&password=${encodeURIComponent(PASSWORD)}`,
          }),
      ],
      [
        'a lower-case URL encoding',
        () => JSON.stringify({ message: `rejected ${encodeURIComponent(PASSWORD).toLowerCase()}` }),
      ],
      [
        'a Basic header of user:pass',
        () =>
          JSON.stringify({ message: `SASL rejected Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}` }),
      ],
      [
        'a message clipped in the middle of the secret',
        () => JSON.stringify({ message: `${'x'.repeat(485)} ${PASSWORD}` }),
      ],
    ] as const)('%s', async (_name, echo) => {
      agent = mockAgent();
      const { logger, lines } = capturedLogger();
      api = createApi(managedConnection(), { dispatcher: agent, logger, retry: { maxAttempts: 1 } });
      agent
        .get(BASE)
        .intercept({ path: `${MANAGED_PREFIX}/pipes/p1`, method: 'PATCH' })
        .reply(400, (request) => echo(String(request.body)));
      const error = await failure(
        api.update('Pipe', 'p1', { source: { kafka: { credentials: { username: USER, password: PASSWORD } } } }),
      );
      const forms = [
        ...leakForms(PASSWORD),
        ...leakForms(USER),
        Buffer.from(`${USER}:${PASSWORD}`).toString('base64'),
        ...leakForms(PASSWORD.slice(0, 8)),
      ];
      for (const text of [...renderings(error), ...lines])
        for (const form of forms) expect(text, `leaks ${JSON.stringify(form)}`).not.toContain(form);
      expect(error.message).toContain('(sensitive)');
    });
  });

  it('replace, not drop, what they hide: the message still says what failed', async () => {
    agent = mockAgent();
    api = createApi(selfHostedConnection(), { dispatcher: agent, retry: { maxAttempts: 1 } });
    agent.get(BASE).intercept({ path: '/api/v2/dashboards' }).reply(401, `Unauthorized token ${SECRETS[1]}`);
    const error = await failure(api.list('Dashboard'));
    expect(error.message).toBe('GET /api/v2/dashboards: HTTP 401: Unauthorized token (sensitive)');
  });

  it('log lines name method, route and status only', async () => {
    agent = mockAgent();
    const { logger, lines } = capturedLogger();
    api = createApi(selfHostedConnection(), { dispatcher: agent, logger });
    agent.get(BASE).intercept({ path: '/api/v2/dashboards' }).reply(200, dataOk([]));
    await api.list('Dashboard');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({
      component: 'api',
      target: 'selfhosted',
      method: 'GET',
      route: '/api/v2/dashboards',
      status: 200,
    });
    expectNoSecret(lines);
  });
});
