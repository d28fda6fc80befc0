/**
 * How the contract suite can fail (issue 32): its checks, fed exchanges a test makes by hand, find
 * a wrong enum, a missing required member, a bound passed, an undeclared query parameter, an
 * operation no document has and an answer its schema refuses; none of them is in the table of
 * differences, so each would fail the traffic suite. The documents' known artefacts are read as
 * their generators meant them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { TRAFFIC_DIFFERENCES } from './differences.js';
import { mutationsOf } from './mutations.js';
import { contractOrSkip, documentPath, documentSettings, loadContract } from './openapi.js';
import { findingsOf, unexplained, type Exchange } from './traffic.js';

const contract = contractOrSkip();
const SERVICE = '/v1/organizations/0b4f6c1e-4d2a-4f6b-9a51-7c3d2e1f0a01/services/9c1e2b7e-3a4d-4c5b-8e6f-1a2b3c4d5e01';
const WEBHOOK = { name: 'pager', service: 'slack', url: 'https://hooks.slack.com/services/x' };

const exchange = (method: string, path: string, body: unknown, status = 200, answer: unknown = {}): Exchange => ({
  method,
  path,
  body: body === undefined ? '' : JSON.stringify(body),
  authorization: '',
  status,
  answer: JSON.stringify(answer),
});

/** The findings of one exchange that no row of the table explains: what would fail the suite. */
function failures(one: Exchange): string[] {
  if (!contract) return [];
  return unexplained(findingsOf(contract, [one], 'current'), TRAFFIC_DIFFERENCES, 'current').findings;
}

describe('our names as the documents spell them', () => {
  it('maps pipes… to clickpipes…, stack to clickstack, engine_* to clickhouse_*', () => {
    expect(documentPath(`${SERVICE}/pipes/x/state`)).toBe(`${SERVICE}/clickpipes/x/state`);
    expect(documentPath(`${SERVICE}/pipesCdcScaling`)).toBe(`${SERVICE}/clickpipesCdcScaling`);
    expect(documentPath(`${SERVICE}/stack/dashboards`)).toBe(`${SERVICE}/clickstack/dashboards`);
    expect(documentSettings({ engine_max_threads: 4, streaming_max_insert_wait_ms: 1 })).toEqual({
      clickhouse_max_threads: 4,
      streaming_max_insert_wait_ms: 1,
    });
  });
});

describe('without the documents', () => {
  it('the suite says so and skips, except under CI=true, where their absence fails it', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'stacksync-openapi-'));
    vi.stubEnv('STACKSYNC_OPENAPI_DIR', empty);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      expect(loadContract()).toBeUndefined();
      vi.stubEnv('CI', 'false');
      expect(contractOrSkip()).toBeUndefined();
      expect(warn.mock.calls.flat().join(' ')).toContain(
        `${empty} (set STACKSYNC_OPENAPI_DIR): they are absent: skipped`,
      );
      vi.stubEnv('CI', 'true');
      expect(() => contractOrSkip()).toThrow(/CI=true makes that a failure/);
    } finally {
      warn.mockRestore();
      vi.unstubAllEnvs();
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!contract)('the contract suite fails on', () => {
  it('nothing, for a body and an answer the documents accept', () => {
    expect(failures(exchange('POST', '/api/v2/webhooks', WEBHOOK))).toEqual([]);
  });

  it('a wrong enum', () => {
    expect(failures(exchange('POST', '/api/v2/webhooks', { ...WEBHOOK, service: 'pagerduty' }))).toEqual([
      'request POST /api/v2/webhooks /service must be equal to one of the allowed values ["slack","incidentio","generic"]',
    ]);
  });

  it('a missing required member', () => {
    const { url: _, ...withoutUrl } = WEBHOOK;
    expect(failures(exchange('POST', '/api/v2/webhooks', withoutUrl))).toEqual([
      "request POST /api/v2/webhooks  must have required property 'url'",
    ]);
  });

  it('a bound passed (managed, a pipe’s replicas)', () => {
    const found = failures(
      exchange('PATCH', `${SERVICE}/pipes/7a0e1f2c-0001-4b3a-9c4d-5e6f7a8b9c01/scaling`, { replicas: 1000 }),
    );
    expect(
      found.some((line) =>
        line.startsWith(
          'request PATCH /v1/organizations/{organizationId}/services/{serviceId}/clickpipes/{clickPipeId}/scaling /replicas must be <=',
        ),
      ),
    ).toBe(true);
  });

  it('a query parameter the operation does not declare', () => {
    expect(failures(exchange('GET', '/api/v2/dashboards?limit=10', undefined, 200, { data: [] }))).toEqual([
      'query GET /api/v2/dashboards limit',
    ]);
  });

  it('an operation no document has, and one the trimmed documents left out', () => {
    expect(failures(exchange('GET', `${SERVICE}/stack/teams`, undefined))).toEqual([
      'missing none clickhouse-cloud GET /v1/organizations/{id}/services/{id}/clickstack/teams',
    ]);
    expect(failures(exchange('GET', `${SERVICE}/backups`, undefined))).toEqual([
      'missing left-out clickhouse-cloud GET /v1/organizations/{organizationId}/services/{serviceId}/backups',
    ]);
  });

  it('an answer its response schema refuses, and a status it does not declare', () => {
    expect(failures(exchange('GET', '/api/v2/webhooks', undefined, 200, { data: [{ id: 1 }] })).length).toBeGreaterThan(
      0,
    );
    expect(failures(exchange('GET', '/api/v2/webhooks', undefined, 418, { message: 'teapot' }))).toEqual([
      'answer-undeclared GET /api/v2/webhooks 418',
    ]);
  });

  it('reads overlapping oneOf alternatives as anyOf (kafka credentials), and each mutation of an accepted body is refused', () => {
    if (!contract) return;
    const create = contract.find('POST', `${SERVICE}/pipes`);
    if (!create.found) throw new Error('no pipe create');
    const kafka = {
      name: 'k',
      source: {
        kafka: {
          type: 'kafka',
          format: 'JSONEachRow',
          brokers: 'b:9092',
          topics: 't',
          authentication: 'PLAIN',
          credentials: { username: 'u', password: 'p' },
        },
      },
      destination: {
        database: 'default',
        table: 't',
        managedTable: true,
        tableDefinition: { engine: { type: 'MergeTree' } },
        columns: [{ name: 'id', type: 'String' }],
      },
      fieldMappings: [{ sourceField: 'id', destinationField: 'id' }],
    };
    expect(contract.validateRequest(create.operation, kafka)).toEqual([]);
    // Mutations of a body the document accepts are each refused by it.
    const mutations = mutationsOf(contract, create.operation, kafka);
    expect(mutations.map((mutation) => `${mutation.at} ${mutation.what}`)).toContain(
      '/source/kafka/format not in enum',
    );
    for (const mutation of mutations)
      expect(
        contract.validateRequest(create.operation, mutation.body).length,
        `${mutation.at} ${mutation.what}`,
      ).toBeGreaterThan(0);
  });
});
