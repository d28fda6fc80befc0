/**
 * The one error type of stacksync. Callers match on `code`, never on the message.
 * Only the CLI entry turns errors into exit codes.
 */

/** Every stable error code, with what it means. docs/reference/error-codes.md is checked against this list. */
export const ERROR_CODES = {
  E_USAGE: 'the command line is wrong',
  E_CONFIG_INVALID: 'the config file is missing, unreadable or does not match its schema',
  E_SECRET_MISSING: 'a secret reference names an env var or file that is not there',
  E_MANIFEST_PARSE: 'a manifest file is not valid YAML, is binary, too large or unsafe',
  E_MANIFEST_INVALID: 'a manifest does not match the schema of its kind',
  E_MANIFEST_DUPLICATE: 'two manifests name the same resource',
  E_REF_UNRESOLVED: 'a reference (target, dashboard, tile) names nothing',
  E_API_AUTH: 'the API refused the credentials (401/403)',
  E_API_NOT_FOUND: 'the API has no such resource (404)',
  E_API_VALIDATION: 'the API rejected the request body (400/409/413/422)',
  E_API_DEPENDENCY: 'the database service is not running (424)',
  E_API_THROTTLED: 'the API kept answering 429 past the retry budget',
  E_API_UNAVAILABLE: 'the API failed (5xx, reset, timeout) past the retry budget',
  E_API_PROTOCOL: 'the API answered something that is not the documented shape',
  E_API_AMBIGUOUS: 'a create may or may not have happened (timed out after sending)',
  E_STATE_CORRUPT: 'the state file cannot be read or parsed',
  E_STATE_WRITE: 'the state file could not be written',
  E_STATE_LOCKED: 'another stacksync process kept the state file locked past --lock-timeout',
  E_STATE_UNSUPPORTED:
    'the state backend does not do what keeping one writer needs (an S3 store that ignores conditional writes)',
  E_PRUNE_REFUSED: 'a prune was refused by the safety caps',
  E_MANIFEST_BLOCKED:
    'a change was not applied because manifests of its target (or of its tenant) have errors (apply --allow-partial lifts this)',
  E_TENANT_VIOLATION:
    "a manifest names a target or kind its tenant may not touch, or is in no tenant's paths (or in several)",
  E_CONFLICT: 'live resources stand in the way: several share the name, or one stacksync does not manage (see --adopt)',
  E_REPLACE_REFUSED:
    'a change needs the resource deleted and created again, and neither --allow-replace nor stacksync.io/replace: allow says so',
  E_RESOURCE_FAILED: 'a resource stacksync wrote ended in a failed state (a pipe that failed provisioning)',
  E_WAIT_TIMEOUT: 'a resource stacksync wrote did not settle within apply --wait',
  E_DEPENDENCY_FAILED: 'an operation was skipped because one it depends on failed',
  E_CANCELLED: 'a signal stopped the run before this operation; the next run does it',
  E_PLAN_INVALID:
    'a saved plan file cannot be read, was written by another format version, or was changed after plan wrote it',
  E_PLAN_STALE: 'a saved plan no longer matches the manifests, the live state or the state file; nothing was applied',
  E_EMULATOR_DATA: 'the emulator data or seed file is corrupt or invalid',
  E_DAEMON_UNREACHABLE:
    'no stacksync daemon answered where stacksync status asked, or not with a status document within its bounds',
  E_PROPOSE_FAILED: 'sync.drift is propose and the drift could not be committed, pushed, or its pull request opened',
  E_PROPOSE_UNAVAILABLE:
    'sync.drift is propose and the drift cannot be proposed: the manifests are no committed git ' +
    'revision (not a checkout, or uncommitted edits), or the daemon was started without a pull core; ' +
    'drift is reported, not proposed',
  E_INTERNAL: 'a bug in stacksync',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * Failures that repeat, unchanged, until someone changes something (a manifest, the config, a
 * credential, the live resources in the way): the daemon waits for that change or the next resync
 * instead of retrying with backoff. Every other code may pass on a retry. The one table of this
 * rule, read only through {@link isTerminal} (controller-runtime's `TerminalError`).
 */
const TERMINAL_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'E_USAGE',
  'E_CONFIG_INVALID',
  'E_SECRET_MISSING',
  'E_MANIFEST_PARSE',
  'E_MANIFEST_INVALID',
  'E_MANIFEST_DUPLICATE',
  'E_REF_UNRESOLVED',
  'E_API_AUTH',
  'E_STATE_CORRUPT',
  'E_STATE_UNSUPPORTED',
  'E_PRUNE_REFUSED',
  'E_MANIFEST_BLOCKED',
  'E_TENANT_VIOLATION',
  'E_CONFLICT',
  'E_REPLACE_REFUSED',
  'E_RESOURCE_FAILED',
  'E_PLAN_INVALID',
  'E_PLAN_STALE',
  'E_EMULATOR_DATA',
  'E_PROPOSE_UNAVAILABLE',
]);

export function isTerminal(code: ErrorCode): boolean {
  return TERMINAL_CODES.has(code);
}

/**
 * Answers in which the API refused a request outright, so it certainly did nothing: after one of
 * these a create did not happen (its intent can go). Timeouts, resets and 5xx are not here: the
 * request may have been carried out.
 */
const REFUSAL_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'E_API_VALIDATION',
  'E_API_AUTH',
  'E_API_NOT_FOUND',
  'E_API_DEPENDENCY',
  'E_API_THROTTLED',
]);

export function isRefusal(code: ErrorCode): boolean {
  return REFUSAL_CODES.has(code);
}

/** The code of anything thrown: a StacksyncError's own, else `E_INTERNAL` (a bug). */
export function errorCodeOf(error: unknown): ErrorCode {
  return error instanceof StacksyncError ? error.code : 'E_INTERNAL';
}

/** Where in the manifests a problem is; line and column are 1-based. */
export interface SourceLocation {
  file: string;
  line?: number;
  column?: number;
  /** The `metadata.forEach` item a resource of a template stands for (`service=payments, severity=page`). */
  item?: string;
}

export interface StacksyncErrorOptions {
  /** What the error is about, e.g. `Dashboard/api-latency` or `GET /api/v2/alerts`. */
  subject?: string;
  location?: SourceLocation;
  /** HTTP status, for API errors. */
  status?: number;
  /** Extra structured detail; must never hold a secret. */
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class StacksyncError extends Error {
  readonly code: ErrorCode;
  readonly subject?: string;
  readonly location?: SourceLocation;
  readonly status?: number;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: StacksyncErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'StacksyncError';
    this.code = code;
    if (options.subject !== undefined) this.subject = options.subject;
    if (options.location !== undefined) this.location = options.location;
    if (options.status !== undefined) this.status = options.status;
    if (options.details !== undefined) this.details = options.details;
  }

  /** `file:line:column: message` where a location is known, else the message. */
  override toString(): string {
    const where = formatLocation(this.location);
    return where ? `${where}: ${this.message}` : this.message;
  }
}

export function formatLocation(location: SourceLocation | undefined): string {
  if (!location) return '';
  let text = location.file;
  if (location.line !== undefined) text += `:${location.line}`;
  if (location.line !== undefined && location.column !== undefined) text += `:${location.column}`;
  if (location.item !== undefined) text += ` (${location.item})`;
  return text;
}

export function isStacksyncError(error: unknown, code?: ErrorCode): error is StacksyncError {
  return error instanceof StacksyncError && (code === undefined || error.code === code);
}
