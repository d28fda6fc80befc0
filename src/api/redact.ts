/**
 * Keeps credentials out of everything the client lets escape: error messages, details and logs.
 * Undici's own errors can quote request headers (its mock agent prints them when nothing matches),
 * and a server may echo a request body, so every string we pass on goes through `redact`.
 *
 * A server rarely echoes a secret as it was sent: a body quoted inside a JSON error is
 * JSON-escaped (`"` → `\"`, `\` → `\\`, non-ASCII → `\u00f6` in some servers), quoted again by
 * another layer, URL-encoded in a query, base64 in a Basic header, shell-quoted by a tool. Each
 * secret is found in any of those forms, escaped any number of times in any mix (see
 * support/redaction.ts), and the callers add the `user:pass` pairs.
 */
import type { Credentials } from '../model/config.js';
import {
  CREDENTIAL_PAIRS,
  MIN_SECRET_LENGTH,
  redactSecrets,
  runSecrets,
  SECRET_MASK,
  SecretMatcher,
  type SecretRegistry,
} from '../support/redaction.js';

/** Members of request bodies whose values are credentials (seed 4.1) or may embed them. */
const SECRET_MEMBERS = new Set([
  'credentials',
  'accessKey',
  'password',
  'secretKey',
  'accessKeyId',
  'username',
  'connectionString',
]);

/**
 * The client's view of the run's secrets (support/redaction.ts): what it is given is registered
 * with every other secret of the run, and what it redacts is masked of all of them, so an error
 * that quotes another request (another pipe's create, another target's header) shows none either.
 * The values of one request body are masked in that request's errors only: those the manifests
 * resolved are the run's already, and the rest were written in the clear (a plain `username`).
 */
export class Redactor {
  /** `later`: secrets read when something is redacted (their current values, a rotated one too), besides `secrets`. */
  constructor(
    secrets: Iterable<string>,
    private readonly later?: () => Iterable<string>,
    private readonly registry: SecretRegistry = runSecrets,
    private readonly extra?: SecretMatcher,
  ) {
    registry.register(secrets);
  }

  /** The same redactor knowing some more secrets, for its own messages only (those in one request body). */
  with(extra: Iterable<string>): Redactor {
    const values = [...extra].filter((value) => value.length >= MIN_SECRET_LENGTH);
    return values.length === 0 ? this : new Redactor([], this.later, this.registry, new SecretMatcher(values));
  }

  redact(text: string): string {
    if (this.later) this.registry.register(this.later());
    const masked = this.registry.redact(text);
    return this.extra ? redactSecrets(masked, this.extra, SECRET_MASK) : masked;
  }
}

/** The strings a target's credentials can show up as: raw, `id:secret`, and the Basic header value. */
export function credentialStrings(credentials: Credentials): string[] {
  if (credentials.variant === 'self-hosted') return [credentials.token, `Bearer ${credentials.token}`];
  const pair = `${credentials.keyId}:${credentials.keySecret}`;
  return [credentials.keySecret, credentials.keyId, pair, Buffer.from(pair).toString('base64')];
}

/** Every string value under a secret member of a request body, at any depth, and their `user:pass` pairs. */
export function bodySecrets(body: unknown): string[] {
  const found: string[] = [];
  collect(body, false, found);
  return found;
}

function collect(value: unknown, underSecret: boolean, found: string[]): void {
  if (typeof value === 'string') {
    if (underSecret) found.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collect(item, underSecret, found);
  } else if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const [first, second] of CREDENTIAL_PAIRS) {
      if (typeof record[first] === 'string' && typeof record[second] === 'string')
        found.push(`${record[first]}:${record[second]}`);
    }
    for (const [key, member] of Object.entries(record)) collect(member, underSecret || SECRET_MEMBERS.has(key), found);
  }
}
