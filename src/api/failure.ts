/**
 * What a failed exchange means: the error code for an HTTP status, the server's message from either
 * variant's error body, and what kind of transport failure undici reported. Pure functions; the
 * retry loop in `transport.ts` decides what to do with the answers.
 */
import type { ErrorCode, StacksyncError } from '../errors.js';
import type { RetryReason } from './port.js';

/** Server messages are quoted in errors and logs; keep them to a readable size. */
const MAX_MESSAGE_LENGTH = 500;
/**
 * How much of a server message is searched for secrets: redaction decodes the text in every way
 * it may be escaped, which costs a few passes over it, and a server may answer megabytes. What
 * lies past this cannot reach the 500 characters shown unless redaction removed nearly all of
 * what is before it; {@link clipRedacted} keeps a margin of the window's end out of the message
 * for that case, so a secret cut in two by the window never shows in part.
 */
const REDACT_WINDOW = 64 * 1024;
const WINDOW_MARGIN = 8 * 1024;

/** The error code of a final (non-retried) HTTP status, or of a transient one once retries are spent. */
export function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
    case 409:
    case 413:
    case 422:
      return 'E_API_VALIDATION';
    case 401:
    case 403:
      return 'E_API_AUTH';
    case 404:
      return 'E_API_NOT_FOUND';
    case 424:
      return 'E_API_DEPENDENCY';
    case 429:
      return 'E_API_THROTTLED';
    default:
      return status >= 500 ? 'E_API_UNAVAILABLE' : 'E_API_PROTOCOL';
  }
}

/** Statuses worth trying again: the server was busy or broken, not the request wrong. */
export function isTransientStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

export interface ServerError {
  /** Human-readable detail, e.g. `threshold must be a number`. */
  message?: string;
  /** Managed variant's code, e.g. `BAD_REQUEST`. */
  serverCode?: string;
  requestId?: string;
}

/**
 * Reads both variants' error bodies: managed `{status, error: "CODE: detail", requestId}`,
 * self-hosted `{message}`, or plain text (`Unauthorized`, `Not Found`). `redact` runs on the
 * message before it is clipped: a secret cut in two by the clip would no longer be recognised.
 */
export function parseServerError(text: string, redact: (text: string) => string = (same) => same): ServerError {
  const trimmed = text.trim();
  if (trimmed === '') return {};
  const clip = (message: string): string => clipRedacted(message, redact);
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch {
    return { message: clip(trimmed) };
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return { message: clip(trimmed) };
  return fromErrorObject(json as Record<string, unknown>, clip);
}

function fromErrorObject(body: Record<string, unknown>, clip: (text: string) => string): ServerError {
  const result: ServerError = {};
  if (typeof body['requestId'] === 'string') result.requestId = body['requestId'];
  const error = body['error'];
  const message = body['message'];
  if (typeof error === 'string') {
    const match = /^([A-Z][A-Z0-9_]*):\s*(.*)$/s.exec(error);
    if (match?.[1] !== undefined) {
      result.serverCode = match[1];
      result.message = clip(match[2] ?? '');
    } else {
      result.message = clip(error);
    }
  }
  if (typeof message === 'string' && result.message === undefined) result.message = clip(message);
  return result;
}

/** The message redacted, then clipped to what is shown. */
function clipRedacted(message: string, redact: (text: string) => string): string {
  if (message.length <= REDACT_WINDOW) return clipText(redact(message), MAX_MESSAGE_LENGTH);
  const redacted = redact(message.slice(0, REDACT_WINDOW));
  // What is left of the window's last part may be a secret cut in two: never shown.
  const limit = Math.min(MAX_MESSAGE_LENGTH, Math.max(0, redacted.length - WINDOW_MARGIN));
  return `${redacted.slice(0, limit)}…`;
}

function clipText(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A transport failure, as far as retrying is concerned. */
export interface NetworkFailure {
  /** Undefined: not a failure worth retrying (a bug, a bad argument, a closed client). */
  reason?: Extract<RetryReason, 'connection' | 'timeout'>;
  /** Whether the request may have reached the server (so a create may have happened). */
  maybeSent: boolean;
  /** undici's or Node's code, e.g. `UND_ERR_SOCKET`, `ECONNREFUSED`. */
  code: string;
  /** The error's own message; may quote headers, so redact before use. */
  message: string;
}

/** Failures before a byte of the request left: nothing happened on the server. */
const NOT_SENT_CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
]);
/** Failures of a connection that carried (or may have carried) the request. */
const SENT_CONNECTION_CODES = new Set([
  'UND_ERR_SOCKET',
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'UND_ERR_CLOSED',
  'HPE_INVALID_CONSTANT',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);
const SENT_TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/**
 * Among the failures after which a request may have been carried out, those after which it may
 * still be carried out *later*: nobody answered it, so whoever holds it (a proxy past our
 * timeout, a gateway whose upstream is still busy) may forward or finish it minutes on. A timeout
 * before the answer, a connection closed without one (an orderly close, as a proxy giving up on
 * its client does), and a gateway's 502 or 504. Not these: an answer from the service itself (a
 * 500 or 503 says it is done with the request, one way or the other) and a reset (the peer aborted
 * the exchange, and what it held goes with it): after those a lookup right away tells whether the
 * create happened, and nothing is left to land.
 */
const UNANSWERED_NETWORK_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
]);
const GATEWAY_GAVE_UP_STATUSES: ReadonlySet<number> = new Set([502, 504]);

/** Whether a request that failed this way may still be carried out later (see above); `answered`: a status line arrived. */
export function mayLandLater(failure: {
  status?: number;
  network?: Pick<NetworkFailure, 'code'>;
  answered?: boolean;
}): boolean {
  if (failure.status !== undefined) return GATEWAY_GAVE_UP_STATUSES.has(failure.status);
  return (
    failure.answered !== true && failure.network !== undefined && UNANSWERED_NETWORK_CODES.has(failure.network.code)
  );
}

/** Whether the create an `E_API_AMBIGUOUS` error is about may still land later, as the transport judged it. */
export function mayStillLand(error: StacksyncError): boolean {
  return error.code === 'E_API_AMBIGUOUS' && error.details?.['mayLandLater'] === true;
}

export function classifyNetworkError(error: unknown): NetworkFailure {
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return { reason: 'timeout', maybeSent: false, code, message };
  if (SENT_TIMEOUT_CODES.has(code)) return { reason: 'timeout', maybeSent: true, code, message };
  if (NOT_SENT_CONNECTION_CODES.has(code)) return { reason: 'connection', maybeSent: false, code, message };
  if (SENT_CONNECTION_CODES.has(code)) return { reason: 'connection', maybeSent: true, code, message };
  return { maybeSent: false, code, message };
}

/** The code of an error or of an error it wraps (wrappers put the socket error in `cause`). */
function errorCode(error: unknown): string {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
  }
  return error instanceof Error ? error.name : 'UNKNOWN';
}
