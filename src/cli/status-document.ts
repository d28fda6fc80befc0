/**
 * What `stacksync status` accepts as a daemon's answer. Whatever listens at `--listen` may be
 * broken or hostile (docs/security.md): the document is read within a size cap and a deadline,
 * then checked member by member against what the renderer reads, so a `null` where a string
 * belongs is one clear line, never a stack trace. Pure but for {@link readCapped}.
 */
import type { StatusDocument } from '../daemon/status.js';
import { RESOURCE_STATUSES } from '../daemon/metrics.js';
import { isRecord } from '../support/json.js';

/** `--max-size`'s default: a daemon of 10,000 resources, each drifted in 20 fields, sends about 20 MiB. */
export const DEFAULT_MAX_STATUS_BYTES = 64 * 1024 * 1024;
/** `--timeout`'s default: the whole answer, headers and body, within this. */
export const DEFAULT_STATUS_TIMEOUT_MS = 10_000;

const SIZE_UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

/** Bytes of `64MiB`, `512KiB`, `1048576`; undefined when the text is none of these or not positive. */
export function parseSize(text: string): number | undefined {
  const match = /^([0-9]+)\s*([a-z]*)$/i.exec(text.trim());
  const unit = SIZE_UNITS[(match?.[2] ?? '').toLowerCase()];
  if (!match || unit === undefined) return undefined;
  const bytes = Number(match[1]) * unit;
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : undefined;
}

/** `64 MiB`, `512 KiB`, `100 bytes`: a cap as a person reads it. */
export function formatSize(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const)
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  return `${bytes} bytes`;
}

/** Thrown by {@link readCapped} when the body runs past the cap; what was read so far is dropped. */
export class TooLarge extends Error {}

/** The body as text, stopping (and destroying the stream) as soon as it passes `maxBytes`. */
export async function readCapped(
  body: AsyncIterable<Buffer | Uint8Array | string> & { destroy?: (error?: Error) => unknown },
  maxBytes: number,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer =
      typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    size += buffer.byteLength;
    if (size > maxBytes) {
      body.destroy?.();
      throw new TooLarge(`more than ${formatSize(maxBytes)}`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

type Check = (value: unknown, path: string) => string | undefined;

/** `targets["prod"].resources[0].name`; the document itself is the root (''). */
const member = (path: string, name: string): string => (path === '' ? name : `${path}.${name}`);
const shown = (path: string): string => path || 'the document';

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

const string: Check = (value, path) =>
  typeof value === 'string' ? undefined : `${path} is ${describe(value)}, not a string`;
const boolean: Check = (value, path) =>
  typeof value === 'boolean' ? undefined : `${path} is ${describe(value)}, not true or false`;
const number: Check = (value, path) =>
  typeof value === 'number' && Number.isFinite(value) ? undefined : `${path} is ${describe(value)}, not a number`;
const oneOf =
  (choices: readonly string[]): Check =>
  (value, path) =>
    typeof value === 'string' && choices.includes(value)
      ? undefined
      : `${path} is ${typeof value === 'string' ? JSON.stringify(value) : describe(value)}, not one of ${choices.join(', ')}`;

/** Members of an object: required ones must be there; optional ones may be absent, never `null` or of another type. */
function members(
  value: unknown,
  path: string,
  required: Readonly<Record<string, Check>>,
  optional: Readonly<Record<string, Check>> = {},
): string | undefined {
  if (!isRecord(value)) return `${shown(path)} is ${describe(value)}, not an object`;
  for (const [name, check] of Object.entries(required)) {
    const problem = name in value ? check(value[name], member(path, name)) : `${member(path, name)} is missing`;
    if (problem !== undefined) return problem;
  }
  for (const [name, check] of Object.entries(optional)) {
    const problem = value[name] === undefined ? undefined : check(value[name], member(path, name));
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function list(item: Check): Check {
  return (value, path) => {
    if (!Array.isArray(value)) return `${path} is ${describe(value)}, not a list`;
    for (const [index, each] of value.entries()) {
      const problem = item(each, `${path}[${index}]`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
}

const fieldDiff: Check = (value, path) => members(value, path, { path: string });

const resource: Check = (value, path) =>
  members(
    value,
    path,
    { kind: string, name: string, status: oneOf(RESOURCE_STATUSES) },
    {
      cause: oneOf(['git', 'live']),
      id: string,
      error: string,
      code: string,
      file: string,
      line: number,
      state: string,
      health: oneOf(['healthy', 'degraded']),
      waitUntil: string,
      diff: list(fieldDiff),
      diffOmitted: number,
      driftSince: string,
      path: string,
      url: string,
      proposed: string,
    },
  );

const proposal: Check = (value, path) =>
  members(value, path, { branch: string }, { commit: string, pullRequest: string, error: string, code: string });

/** Who holds the state lease, under `run --leader-elect`. */
const leader: Check = (value, path) =>
  members(value, path, { host: string, pid: number, command: string, since: string });

const suspension: Check = (value, path) => members(value, path, {}, { since: string, reason: string, by: string });

const target: Check = (value, path) =>
  members(
    value,
    path,
    { syncing: boolean, resources: list(resource) },
    {
      lastSyncAt: string,
      lastResult: oneOf(['success', 'failure']),
      lastSuccessAt: string,
      lastError: string,
      lastErrorAt: string,
      revision: string,
      lastSyncSeconds: number,
      lastSyncWaitSeconds: number,
      suspended: boolean,
      suspension,
      rateLimitWaitSeconds: number,
      proposal,
    },
  );

const targets: Check = (value, path) => {
  if (!isRecord(value)) return `${path} is ${describe(value)}, not an object`;
  for (const [name, status] of Object.entries(value)) {
    const problem = target(status, `${path}[${JSON.stringify(name)}]`);
    if (problem !== undefined) return problem;
  }
  return undefined;
};

/**
 * The document, or what is wrong with it: the first member that is not what the status page
 * reads (`targets["prod"].resources[3].name is null, not a string`).
 */
export function checkStatusDocument(text: string): { document: StatusDocument } | { problem: string } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { problem: 'it is not JSON' };
  }
  if (isRecord(data) && data['version'] !== 1)
    return { problem: `its version is ${JSON.stringify(data['version']) ?? 'missing'}, not 1` };
  const problem = members(
    data,
    '',
    { version: number, generatedAt: string, ready: boolean, targets },
    { role: oneOf(['leader', 'standby']), leader },
  );
  return problem === undefined ? { document: data as unknown as StatusDocument } : { problem };
}
