/**
 * The failures the emulated API answers with, by kind. The rules (store) raise them without
 * knowing HTTP; `envelope.ts` turns each kind into the status and body of the variant.
 */
import type { SchemaIssue } from '../schema/validate.js';

export const API_ERROR_KINDS = {
  bad_request: { status: 400, code: 'BAD_REQUEST', text: 'Bad Request' },
  unauthorized: { status: 401, code: 'UNAUTHORIZED', text: 'Unauthorized' },
  forbidden: { status: 403, code: 'FORBIDDEN', text: 'Forbidden' },
  not_found: { status: 404, code: 'NOT_FOUND', text: 'Not Found' },
  method_not_allowed: { status: 405, code: 'METHOD_NOT_ALLOWED', text: 'Method Not Allowed' },
  conflict: { status: 409, code: 'CONFLICT', text: 'Conflict' },
  payload_too_large: { status: 413, code: 'PAYLOAD_TOO_LARGE', text: 'Payload Too Large' },
  failed_dependency: { status: 424, code: 'FAILED_DEPENDENCY', text: 'Failed Dependency' },
  too_many_requests: { status: 429, code: 'TOO_MANY_REQUESTS', text: 'Too many requests, please try again later.' },
  internal: { status: 500, code: 'INTERNAL_SERVER_ERROR', text: 'Internal Server Error' },
  unavailable: { status: 503, code: 'SERVICE_UNAVAILABLE', text: 'Service Unavailable' },
} as const;

export type ApiErrorKind = keyof typeof API_ERROR_KINDS;

/** Which part of the request a validation failure is about; the self-hosted message names it. */
export type IssueSource = 'body' | 'query' | 'params';

export interface ApiErrorOptions {
  issues?: SchemaIssue[];
  source?: IssueSource;
  headers?: Record<string, string>;
  /** The self-hosted variant answers it as JSON `{"message": …}` instead of its plain status text (e.g. 404 `Alert not found`). */
  json?: boolean;
}

export class ApiError extends Error {
  readonly kind: ApiErrorKind;
  readonly issues?: SchemaIssue[];
  readonly source: IssueSource;
  readonly headers: Record<string, string>;
  readonly json: boolean;

  constructor(kind: ApiErrorKind, message: string, options: ApiErrorOptions = {}) {
    super(message);
    this.name = 'ApiError';
    this.kind = kind;
    if (options.issues) this.issues = options.issues;
    this.source = options.source ?? 'body';
    this.headers = options.headers ?? {};
    this.json = options.json ?? false;
  }

  get status(): number {
    return API_ERROR_KINDS[this.kind].status;
  }
}

/** A 400 about one member of the body, named by its path like schema issues are. */
export function invalidMember(path: string, message: string): ApiError {
  return new ApiError('bad_request', `${path}: ${message}`, { issues: [{ path, pointer: [], message }] });
}

export function notFound(message: string): ApiError {
  return new ApiError('not_found', message);
}
