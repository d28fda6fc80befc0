/**
 * Keeps credentials out of everything the client lets escape: error messages, details and logs.
 * Undici's own errors can quote request headers (its mock agent prints them when nothing matches),
 * and a server may echo a request body, so every string we pass on goes through `redact`.
 *
 * A server rarely echoes a secret as it was sent: a body quoted inside a JSON error is
 * JSON-escaped (`"` → `\"`, `\` → `\\`, non-ASCII → `\u00f6` in some servers), a query is
 * URL-encoded, a Basic header is base64 of `user:pass`. Each secret is therefore matched in every
 * form in {@link encodingsOf}, and the callers add the `user:pass` pairs.
 */
import type { Credentials } from '../model/config.js';
import { SENSITIVE } from '../model/plan.js';

/** Shorter strings are too likely to occur by chance in a message to be worth replacing. */
const MIN_SECRET_LENGTH = 4;

/** Members of request bodies whose values are credentials (seed 4.1) or may embed them. */
const SECRET_MEMBERS = new Set(['credentials', 'accessKey', 'password', 'secretKey', 'accessKeyId', 'username', 'connectionString']);

/** Pairs of members that a client may send together as `first:second` (Basic auth, SASL PLAIN). */
const PAIRED_MEMBERS = [
  ['username', 'password'],
  ['accessKeyId', 'secretKey'],
] as const;

export class Redactor {
  private readonly secrets: string[];
  /** Every form of every secret, longest first; made at the first `redact`, which only a failure needs. */
  #forms: string[] | undefined;

  constructor(secrets: Iterable<string>) {
    this.secrets = [...new Set([...secrets].filter((secret) => secret.length >= MIN_SECRET_LENGTH))];
  }

  /** The same redactor knowing some more secrets (e.g. those in one request body). */
  with(extra: Iterable<string>): Redactor {
    const more = [...extra].filter((secret) => secret.length >= MIN_SECRET_LENGTH && !this.secrets.includes(secret));
    return more.length === 0 ? this : new Redactor([...this.secrets, ...more]);
  }

  redact(text: string): string {
    this.#forms ??= formsOf(this.secrets);
    let redacted = text;
    for (const form of this.#forms) redacted = redacted.split(form).join(SENSITIVE);
    return redacted;
  }
}

/** Longest first, so a form that contains another is replaced whole. */
function formsOf(secrets: readonly string[]): string[] {
  const forms = new Set(secrets.flatMap(encodingsOf));
  return [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

/**
 * Every form a secret can take in a body or message that quotes it: raw; JSON-escaped (once, as a
 * quoted body; twice, as a body quoted inside a JSON string; with `\uXXXX` for non-ASCII and `\/`
 * for slashes, as some encoders write); URL-encoded (either hex case, `+` for spaces); base64
 * (standard and URL-safe, with and without padding).
 */
export function encodingsOf(secret: string): string[] {
  const json = jsonEscape(secret);
  const forms = [secret, json, jsonEscape(json), asciiJson(json, 'lower'), asciiJson(json, 'upper'), json.replaceAll('/', '\\/')];
  const url = urlEncode(secret);
  if (url !== undefined) forms.push(url, url.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()), new URLSearchParams({ s: secret }).toString().slice(2));
  const base64 = Buffer.from(secret, 'utf8').toString('base64');
  forms.push(base64, base64.replace(/=+$/, ''), Buffer.from(secret, 'utf8').toString('base64url'));
  return [...new Set(forms)];
}

/** The string as it appears between the quotes of a JSON string. */
function jsonEscape(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** Undefined for text that is not well-formed UTF-16 (a lone surrogate), which no URL can carry. */
function urlEncode(text: string): string | undefined {
  try {
    return encodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** JSON escaping that leaves only ASCII: every other UTF-16 unit as `\uXXXX`. */
function asciiJson(json: string, hexCase: 'lower' | 'upper'): string {
  return json.replace(/[^\x20-\x7e]/g, (char) => {
    const hex = (char.codePointAt(0) ?? 0).toString(16).padStart(4, '0');
    return `\\u${hexCase === 'lower' ? hex : hex.toUpperCase()}`;
  });
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
    for (const [first, second] of PAIRED_MEMBERS) {
      if (typeof record[first] === 'string' && typeof record[second] === 'string') found.push(`${record[first]}:${record[second]}`);
    }
    for (const [key, member] of Object.entries(record)) collect(member, underSecret || SECRET_MEMBERS.has(key), found);
  }
}
