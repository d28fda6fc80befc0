/**
 * Paged lists against a real server on loopback: the read ends whatever the server does with
 * `limit` and `offset` (docs/api-client.md, "Paged lists"), in at most ⌈n ÷ limit⌉ + 1 calls for
 * n objects, each read once.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createApi, type Api } from '../../src/api/index.js';
import { MANAGED_PREFIX, managedConnection, selfHostedConnection } from './helpers.js';

const LIMIT = 1000;

/** What a server does with one list request: the objects it answers, and a total if it sends one. */
type Answer = (
  query: URLSearchParams,
  all: readonly Record<string, unknown>[],
) => { page: readonly Record<string, unknown>[]; total?: number };

const honours: Answer = (query, all) => {
  const offset = Number(query.get('offset') ?? 0);
  const limit = Number(query.get('limit') ?? LIMIT);
  return { page: all.slice(offset, offset + limit) };
};
const ignoresBoth: Answer = (_query, all) => ({ page: all });
const ignoresOffset: Answer = (query, all) => ({ page: all.slice(0, Number(query.get('limit') ?? LIMIT)) });
const ignoresLimit: Answer = (query, all) => ({ page: all.slice(Number(query.get('offset') ?? 0)) });
/** Honours both, but claims a thousand times as many objects as it has. */
const liesAboutTotal: Answer = (query, all) => ({ ...honours(query, all), total: all.length * 1000 });

function webhook(index: number): Record<string, unknown> {
  const id = index.toString(16).padStart(24, '0');
  return {
    id,
    name: `hook-${index}`,
    service: 'generic',
    url: `https://hooks.example/${index}`,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
}

interface Served {
  url: string;
  calls: string[];
}

let server: Server | undefined;
let api: Api | undefined;

afterEach(async () => {
  await api?.close();
  api = undefined;
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server of `count` webhooks on loopback, answering lists as `answer` says, in the variant's envelope. */
async function serve(count: number, answer: Answer, variant: 'managed' | 'self-hosted'): Promise<Served> {
  const all = Array.from({ length: count }, (_, index) => webhook(index));
  const calls: string[] = [];
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    calls.push(`${url.pathname}${url.search}`);
    const { page, total } = answer(url.searchParams, all);
    const body =
      variant === 'managed'
        ? { status: 200, requestId: '00000000-0000-4000-8000-000000000000', result: page }
        : { data: page, ...(total === undefined ? {} : { meta: { total, limit: LIMIT, offset: 0 } }) };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

async function readWebhooks(
  count: number,
  answer: Answer,
  variant: 'managed' | 'self-hosted' = 'managed',
): Promise<{ ids: string[]; calls: string[] }> {
  const served = await serve(count, answer, variant);
  const connection =
    variant === 'managed'
      ? managedConnection({ baseUrl: served.url, api: { profile: 'current' } })
      : selfHostedConnection({ baseUrl: served.url, api: { profile: 'current' } });
  api = createApi(connection);
  const ids = (await api.list('Webhook')).map((hook) => hook.id);
  return { ids, calls: served.calls };
}

const ceilPlusOne = (n: number): number => Math.ceil(n / LIMIT) + 1;

describe('a paged list read never runs away', () => {
  it.each([
    { name: 'ignores limit and offset', answer: ignoresBoth, most: 2 },
    { name: 'ignores offset', answer: ignoresOffset, most: 2 },
    { name: 'ignores limit', answer: ignoresLimit, most: 2 },
  ])('a server that $name, with 2,500 webhooks: at most 4 calls, each webhook once', async ({ answer, most }) => {
    const { ids, calls } = await readWebhooks(2500, answer);
    expect(calls.length).toBeLessThanOrEqual(ceilPlusOne(2500));
    expect(calls.length).toBeLessThanOrEqual(most);
    expect(new Set(ids).size).toBe(ids.length);
    expect(calls[0]).toBe(`${MANAGED_PREFIX}/stack/webhooks?limit=${LIMIT}&offset=0`);
  });

  it('a server that ignores limit and offset gives every webhook it answers, once', async () => {
    const { ids } = await readWebhooks(2500, ignoresBoth);
    expect(ids).toHaveLength(2500);
  });

  it.each([0, 1, 999, 1000, 1001, 2500, 3000])(
    'a server that honours them, with %i webhooks: each read once, in at most ⌈n ÷ limit⌉ + 1 calls',
    async (count) => {
      const { ids, calls } = await readWebhooks(count, honours);
      expect(ids).toHaveLength(count);
      expect(new Set(ids).size).toBe(count);
      expect(calls.length).toBeLessThanOrEqual(ceilPlusOne(count));
      expect(calls.length).toBeGreaterThanOrEqual(Math.max(1, Math.ceil(count / LIMIT)));
      expect(calls.map((call) => new URLSearchParams(call.split('?')[1]).get('offset'))).toEqual(
        calls.map((_, index) => String(index * LIMIT)),
      );
    },
  );

  it('a total that is a lie cannot make the read go on: ⌈n ÷ limit⌉ + 1 calls at most', async () => {
    const { ids, calls } = await readWebhooks(2500, liesAboutTotal, 'self-hosted');
    expect(ids).toHaveLength(2500);
    expect(calls.length).toBeLessThanOrEqual(ceilPlusOne(2500));
  });

  it('an honest total spares the last, empty call', async () => {
    const { ids, calls } = await readWebhooks(
      3000,
      (query, all) => ({ ...honours(query, all), total: all.length }),
      'self-hosted',
    );
    expect(ids).toHaveLength(3000);
    expect(calls).toHaveLength(3);
  });
});
