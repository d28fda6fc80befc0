/**
 * The traffic half of the contract suite (issue 32): a recording proxy on loopback between the
 * built CLI and the emulator, and the check of what it recorded against the services' documents.
 * Every request the client sends is matched to its operation by method and path template (our
 * neutral names mapped, `openapi.ts`): the operation exists, its path and query parameters are
 * declared, its JSON body validates against the request schema; under the `current` profile
 * every JSON answer validates against the operation's response schema for its status. Each
 * finding is a line (a "difference"); the table in `differences.ts` holds those on purpose, and
 * any other fails the suite.
 */
import type { Profile } from '../../src/emulator/index.js';
import { startProxy } from '../helpers/proxy.js';
import { documentSettings, type Contract, type Operation } from './openapi.js';

export interface Exchange {
  method: string;
  /** Path and query as sent. */
  path: string;
  /** The request body as sent ('' when none). */
  body: string;
  /** Its Authorization header, to send a body again. */
  authorization: string;
  status: number;
  /** The answer's body as the emulator sent it. */
  answer: string;
}

export interface Recorder {
  exchanges: Exchange[];
  /** Starts a recording proxy in front of `upstream` (the walk's `front`). */
  front(upstream: string): Promise<{ url: string; close(): Promise<void> }>;
}

/** A recorder of the client's traffic: the emulator's own `/_emulator/…` endpoints are not the client's, and are left out. */
export function recorder(): Recorder {
  const exchanges: Exchange[] = [];
  return {
    exchanges,
    async front(upstream) {
      const proxy = await startProxy(upstream);
      proxy.rewrite({
        body(request, status, answer) {
          if (!request.path.startsWith('/_emulator/'))
            exchanges.push({
              method: request.method,
              path: request.path,
              body: request.body,
              authorization: request.headers['authorization'] ?? '',
              status,
              answer,
            });
          return undefined;
        },
      });
      return proxy;
    },
  };
}

const OBJECT_ID = /^[0-9a-f]{24}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A path with its ids as `{id}`, for a request that matched no operation. */
function shapeOf(path: string): string {
  return path
    .split('/')
    .map((segment) => (OBJECT_ID.test(segment) || UUID.test(segment) ? '{id}' : segment))
    .join('/');
}

/** A JSON pointer with its array indices as `*`, so one finding stands for every item. */
const pointerShape = (pointer: string): string => pointer.replace(/\/\d+(?=\/|$)/g, '/*');

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

/**
 * The body as the real service spells it: managed pipe settings say `clickhouse_*` where ours
 * say `engine_*` (a settings PUT, or the `settings` of a pipe's create or PATCH).
 */
export function spelled(operation: Operation, body: unknown): unknown {
  if (operation.service !== 'clickhouse-cloud' || typeof body !== 'object' || body === null || Array.isArray(body))
    return body;
  const record = body as Record<string, unknown>;
  if (operation.template.endsWith('/settings')) return documentSettings(record);
  const settings = record['settings'];
  if (typeof settings === 'object' && settings !== null && !Array.isArray(settings))
    return { ...record, settings: documentSettings(settings as Record<string, unknown>) };
  return body;
}

/** The operations the traffic used, as `METHOD template`, for the coverage check. */
export function operationsUsed(contract: Contract, exchanges: readonly Exchange[]): Set<string> {
  const used = new Set<string>();
  for (const exchange of exchanges) {
    const lookup = contract.find(exchange.method, exchange.path);
    if (lookup.found) used.add(`${lookup.operation.method} ${lookup.operation.template}`);
  }
  return used;
}

/**
 * Every finding of the traffic, one line each, deduplicated: `missing`, `query`, `path-param`,
 * `request` (a body the request schema refuses), and under `current` `answer` (an answer the
 * response schema refuses) and `answer-undeclared` (a status the operation does not declare).
 */
export function findingsOf(contract: Contract, exchanges: readonly Exchange[], profile: Profile): string[] {
  const findings = new Set<string>();
  for (const exchange of exchanges) {
    const [path = '', query = ''] = exchange.path.split('?');
    const lookup = contract.find(exchange.method, path);
    if (!lookup.found) {
      findings.add(
        `missing ${lookup.why} ${lookup.service} ${exchange.method} ${shapeOf(lookup.key.split(' ')[1] ?? path)}`,
      );
      continue;
    }
    const { operation } = lookup;
    const where = `${operation.method} ${operation.template}`;
    const declared = (place: 'path' | 'query', name: string): boolean =>
      operation.parameters.some((parameter) => parameter.in === place && parameter.name === name);
    for (const name of Object.keys(lookup.params))
      if (!declared('path', name)) findings.add(`path-param ${where} ${name}`);
    for (const name of new Set(new URLSearchParams(query).keys()))
      if (!declared('query', name)) findings.add(`query ${where} ${name}`);
    if (exchange.body !== '') {
      const body = parse(exchange.body);
      for (const problem of contract.validateRequest(operation, spelled(operation, body)))
        findings.add(`request ${where} ${pointerShape(problem.at)} ${problem.message}`);
    }
    if (profile !== 'current') continue;
    const answer = parse(exchange.answer);
    if (answer === undefined) continue;
    const problems = contract.validateResponse(operation, exchange.status, answer);
    if (problems === 'undeclared') findings.add(`answer-undeclared ${where} ${exchange.status}`);
    else
      for (const problem of problems)
        findings.add(`answer ${where} ${exchange.status} ${pointerShape(problem.at)} ${problem.message}`);
  }
  return [...findings].sort();
}

/** A difference on purpose: the findings it stands for, and why it is there. */
export interface Difference {
  /** Matched against a finding's whole line. */
  finding: RegExp;
  reason: string;
  /** The profiles whose traffic shows it (default: both). */
  profiles?: readonly Profile[];
}

/** The findings no row of `table` explains, and the rows of `table` for `profile` that explain none of them. */
export function unexplained(
  findings: readonly string[],
  table: readonly Difference[],
  profile: Profile,
): { findings: string[]; rows: string[] } {
  const rows = table.filter((row) => (row.profiles ?? ['seed', 'current']).includes(profile));
  return {
    findings: findings.filter((finding) => !rows.some((row) => row.finding.test(finding))),
    rows: rows
      .filter((row) => !findings.some((finding) => row.finding.test(finding)))
      .map((row) => `${String(row.finding)} (${row.reason})`),
  };
}

/** A body in the real service's spelling back in ours (`clickhouse_*` settings → `engine_*`), to send to the emulator. */
export function unspelled(operation: Operation, body: unknown): unknown {
  const back = (settings: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(settings).map(([key, value]) => [
        key.startsWith('clickhouse_') ? `engine_${key.slice('clickhouse_'.length)}` : key,
        value,
      ]),
    );
  if (operation.service !== 'clickhouse-cloud' || typeof body !== 'object' || body === null || Array.isArray(body))
    return body;
  const record = body as Record<string, unknown>;
  if (operation.template.endsWith('/settings')) return back(record);
  const settings = record['settings'];
  if (typeof settings === 'object' && settings !== null && !Array.isArray(settings))
    return { ...record, settings: back(settings as Record<string, unknown>) };
  return body;
}
