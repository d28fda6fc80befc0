/**
 * Keeps credentials out of everything the client lets escape: error messages, details and logs.
 * Undici's own errors can quote request headers (its mock agent prints them when nothing matches),
 * and a server may echo a request body, so every string we pass on goes through `redact`.
 */
import type { Credentials } from '../model/config.js';
import { SENSITIVE } from '../model/plan.js';

/** Shorter strings are too likely to occur by chance in a message to be worth replacing. */
const MIN_SECRET_LENGTH = 4;

/** Members of request bodies whose values are credentials (seed 4.1) or may embed them. */
const SECRET_MEMBERS = new Set(['credentials', 'accessKey', 'password', 'secretKey', 'accessKeyId', 'username', 'connectionString']);

export class Redactor {
  private readonly secrets: string[];

  constructor(secrets: Iterable<string>) {
    const unique = new Set([...secrets].filter((secret) => secret.length >= MIN_SECRET_LENGTH));
    // Longest first, so a secret that contains another is replaced whole.
    this.secrets = [...unique].sort((a, b) => b.length - a.length);
  }

  /** The same redactor knowing some more secrets (e.g. those in one request body). */
  with(extra: Iterable<string>): Redactor {
    return new Redactor([...this.secrets, ...extra]);
  }

  redact(text: string): string {
    let result = text;
    for (const secret of this.secrets) result = result.split(secret).join(SENSITIVE);
    return result;
  }
}

/** The strings a target's credentials can show up as: raw, `id:secret`, and the Basic header value. */
export function credentialStrings(credentials: Credentials): string[] {
  if (credentials.variant === 'self-hosted') return [credentials.token, `Bearer ${credentials.token}`];
  const pair = `${credentials.keyId}:${credentials.keySecret}`;
  return [credentials.keySecret, credentials.keyId, pair, Buffer.from(pair).toString('base64')];
}

/** Every string value under a secret member of a request body, at any depth. */
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
    for (const [key, member] of Object.entries(value)) collect(member, underSecret || SECRET_MEMBERS.has(key), found);
  }
}
