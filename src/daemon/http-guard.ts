/**
 * Who may talk to the daemon's HTTP endpoints, pure (docs/daemon.md, "Who may drive the daemon"):
 *
 * - A daemon listening on loopback answers only to a `Host` of loopback or of its own listen
 *   address, on every route. A page on a name its attacker controls can make the browser resolve
 *   that name to 127.0.0.1 (DNS rebinding) and then read `/status` as same-origin; the browser still
 *   sends the attacker's name in `Host`, so the name, not the address, is what tells. The port is
 *   not checked: a tunnel (`ssh -L 8080:127.0.0.1:9464`) forwards another one.
 * - A request that changes something (any method but GET and HEAD) is refused when a browser says
 *   it comes from another origin (`Origin` not this host, or `null`; `Sec-Fetch-Site` neither
 *   `same-origin` nor `none`). Browsers send both on a cross-site form post, and a form post is
 *   the one request a page can send without asking the server first (a CORS preflight, which
 *   this server never grants).
 * - `POST /-/reload` wants a token when the config sets one, and otherwise a header no form can
 *   carry: a `Content-Type` other than the three a form may send, or git-sync's `Gitsync-Hash`.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';

/** A refusal: the status and one line saying what to send instead. */
export interface Refusal {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/** The content types an HTML form (or a `no-cors` fetch) may send without a preflight (Fetch standard, "CORS-safelisted request-header"). */
const FORM_CONTENT_TYPES: ReadonlySet<string> = new Set([
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'text/plain',
]);

/** Headers of their own some senders carry, which no page can add without a preflight. git-sync v4 names the synced commit in `Gitsync-Hash`. */
const SENDER_HEADERS: readonly string[] = ['gitsync-hash'];

/** `Sec-Fetch-Site` values of a request made by this daemon's own pages, or typed by the user. */
const OWN_FETCH_SITES: ReadonlySet<string> = new Set(['same-origin', 'none']);

/** `localhost`, `::1` or an IPv4 address of 127.0.0.0/8: what a loopback daemon listens on, and the only names it answers to. */
function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
}

/**
 * 421 when a daemon on loopback is asked under another name, or under none.
 * @param listenHost the host `--listen` names, as given (`127.0.0.1`, `::1`, `localhost`).
 */
export function misdirected(headers: IncomingHttpHeaders, listenHost: string): Refusal | undefined {
  if (!isLoopbackHost(listenHost)) return undefined;
  const name = parsedHost(headers.host)?.hostname.replace(/^\[(.*)\]$/, '$1');
  if (name !== undefined && isLoopbackHost(name)) return undefined;
  return {
    status: 421,
    body: 'misdirected request: this daemon listens on loopback and answers only to Host localhost, 127.0.0.1 or [::1]\n',
  };
}

/** 403 when a browser says a request that changes something comes from another site. */
export function crossSite(method: string | undefined, headers: IncomingHttpHeaders): Refusal | undefined {
  if (method === 'GET' || method === 'HEAD') return undefined;
  const site = headers['sec-fetch-site'];
  if (site !== undefined && !OWN_FETCH_SITES.has(site.toLowerCase())) return forbidden(`Sec-Fetch-Site: ${site}`);
  const origin = headers.origin;
  if (origin !== undefined && !isOriginOf(origin, headers.host)) return forbidden(`Origin: ${origin}`);
  return undefined;
}

/** The tokens a reload may carry: `required` (`control.reloadToken`) makes one necessary; `control` (`control.token`) is always enough. */
export interface ReloadTokens {
  required?: string;
  control?: string;
}

/**
 * Whether `POST /-/reload` may run: with a required token, it or the control token as a bearer
 * token or as `?token=` (git-sync's `--webhook-url` can send no header of its choosing); without,
 * the control token, or a header no form can carry. A control token alone requires nothing more,
 * so a config that enabled suspend keeps git-sync's reloads working.
 */
export function reloadRefusal(
  headers: IncomingHttpHeaders,
  query: URLSearchParams,
  tokens: ReloadTokens,
): Refusal | undefined {
  const given = [bearerOf(headers.authorization), query.get('token') ?? undefined].filter(
    (value): value is string => value !== undefined,
  );
  const known = [tokens.required, tokens.control].filter((value): value is string => value !== undefined);
  if (given.some((value) => known.some((token) => sameSecret(value, token)))) return undefined;
  if (tokens.required !== undefined) {
    return {
      status: 401,
      body: 'unauthorized: send the reload token as Authorization: Bearer <token> or ?token=<token>\n',
      headers: { 'www-authenticate': 'Bearer realm="stacksync"' },
    };
  }
  if (SENDER_HEADERS.some((name) => headers[name] !== undefined) || !isFormContentType(headers['content-type']))
    return undefined;
  return {
    status: 403,
    body: 'forbidden: send Content-Type: application/json (a web page cannot), or set control.reloadToken and send it\n',
  };
}

/** Compares in constant time, so a token cannot be guessed a byte at a time. */
export function sameSecret(given: string, wanted: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(wanted);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token of `Authorization: Bearer <token>`. */
export function bearerOf(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
}

/** An absent `Content-Type` is what a form sends as `text/plain` too: only another type is proof. */
function isFormContentType(header: string | undefined): boolean {
  const essence = (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return essence === '' || FORM_CONTENT_TYPES.has(essence);
}

function forbidden(what: string): Refusal {
  return {
    status: 403,
    body: `forbidden: a request from another site (${what.slice(0, 200)}) may not change anything\n`,
  };
}

/** `Host` as a URL has it (lower case, IPv6 in brackets, IPv4 as browsers normalise it); undefined when it is no host. */
function parsedHost(header: string | undefined): URL | undefined {
  if (header === undefined || !/^[^\s@/\\?#]+$/.test(header)) return undefined;
  try {
    return new URL(`http://${header}`);
  } catch {
    return undefined;
  }
}

/** Whether `Origin` names the host the request was sent to (`null`, or anything that is no origin, never does). */
function isOriginOf(origin: string, host: string | undefined): boolean {
  const from = URL.canParse(origin) ? new URL(origin) : undefined;
  const to = parsedHost(host);
  return from !== undefined && from.origin !== 'null' && to !== undefined && from.host === to.host;
}
