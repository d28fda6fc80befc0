/**
 * Response shapes of the two variants (seed 2.1, docs/reference/api-behaviour.md). Managed: `{status, requestId,
 * result}` and `{status, error: "CODE: detail", requestId}`. Self-hosted: the handler's body
 * (`{data}` …), 400 as `{message: "Body validation failed: path: msg"}`, other errors plain text.
 */
import type { Variant } from '../model/kinds.js';
import { describeIssues } from '../schema/validate.js';
import { API_ERROR_KINDS, type ApiError } from './errors.js';

export interface Reply {
  status: number;
  headers: Record<string, string>;
  /** Serialised body; JSON unless `contentType` says otherwise. */
  body: string;
  contentType: string;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';

export function jsonReply(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
  return { status, headers, body: JSON.stringify(value), contentType: JSON_TYPE };
}

function textReply(status: number, text: string, headers: Record<string, string> = {}): Reply {
  return { status, headers, body: text, contentType: TEXT_TYPE };
}

export function managedSuccess(result: unknown, requestId: string, headers: Record<string, string> = {}): Reply {
  return jsonReply(200, { status: 200, requestId, result }, headers);
}

/** A managed success without a `result`, as the real service answers a DELETE today. */
export function managedDone(requestId: string): Reply {
  return jsonReply(200, { status: 200, requestId });
}

function detail(error: ApiError): string {
  return error.issues?.length ? describeIssues(error.issues) : error.message;
}

const SELF_HOSTED_ISSUE_PREFIX = { body: 'Body', query: 'Query', params: 'Params' } as const;

/** The error body of a variant; routes outside both prefixes answer like the self-hosted server. */
export function errorReply(variant: Variant, error: ApiError, requestId: string): Reply {
  const { status, code, text } = API_ERROR_KINDS[error.kind];
  if (variant === 'managed')
    return jsonReply(status, { status, error: `${code}: ${detail(error)}`, requestId }, error.headers);
  if (error.kind !== 'bad_request')
    return error.json
      ? jsonReply(status, { message: error.message }, error.headers)
      : textReply(status, text, error.headers);
  const message = error.issues?.length
    ? `${SELF_HOSTED_ISSUE_PREFIX[error.source]} validation failed: ${describeIssues(error.issues)}`
    : error.message;
  return jsonReply(status, { message }, error.headers);
}
