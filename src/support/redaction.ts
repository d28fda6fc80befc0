/**
 * Finds secrets in text in any form they can take once escaped, any number of times: a server
 * quotes a request body inside a JSON string, which another layer quotes again (`\"` becomes
 * `\\\"`), re-serialises with `\u00f6` for non-ASCII, URL-encodes into a query or a form, or a
 * tool shell-quotes it into a command line; and each of those again, in any mix.
 *
 * Listing the forms cannot reach "any number of times". Instead the text is decoded: each
 * decoder undoes one kind of escaping wherever it occurs (backslash escapes of JSON, C and the
 * shell; percent-encoding; `+` for a space; the shell's `'\''` and `$'…'`; HTML entities), and every text
 * reachable by decoding, one kind at a time in any order, is searched for every secret (and its
 * base64). Each decoded character remembers which characters of the original it came from, so
 * a secret found at any depth is masked where it stands in the original. Decoding stops when no
 * decoder changes the text any more; decoding only shortens a text, so that always happens.
 */

/** A text, and for each of its characters where it starts in the original (one more entry: the end). */
interface View {
  text: string;
  /** Absent for the original itself. */
  starts?: Int32Array;
}

/** One level of one kind of escaping undone: the text, and where each character came from in the input. */
interface Decoded {
  text: string;
  /** For each character of `text`, the index in the input where its source starts; one more: the input's length. */
  from: number[];
}

type Decoder = (text: string) => Decoded | undefined;

/**
 * Enough for any mix met in practice (a body quoted in JSON, in JSON, URL-encoded: 3 views deep,
 * a few wide); a bound only for texts built to branch at every step, where each further view
 * costs a pass over the text.
 */
const MAX_VIEWS = 256;

/** Spans `[start, end)` of `text` that are one of `secrets` in some form, merged and in order. */
export function secretSpans(text: string, secrets: readonly string[] | SecretMatcher): [number, number][] {
  const matcher = secrets instanceof SecretMatcher ? secrets : new SecretMatcher(secrets);
  if (matcher.empty || text.length === 0) return [];
  const spans: [number, number][] = [];
  matcher.collect({ text }, spans);
  collectDecoded(text, matcher, spans);
  return mergeSpans(spans);
}

/**
 * Pushes onto `spans` (shifted by `offset`) the secrets found in every text decoding `text`
 * reaches, but not in `text` itself.
 */
function collectDecoded(text: string, matcher: SecretMatcher, spans: [number, number][], offset = 0): void {
  const queue: View[] = [{ text }];
  let seen: Set<string> | undefined;
  const found: [number, number][] = offset === 0 ? spans : [];
  for (let next = 0; next < queue.length; next++) {
    const view = queue[next] as View;
    if (next > 0) matcher.collect(view, found);
    for (const decode of DECODERS) {
      if (queue.length >= MAX_VIEWS) break;
      // Without a `%`, the form decoder only makes `+` a space: of no use when no needle has one.
      if (decode === decodeForm && !matcher.spaced && !view.text.includes('%')) continue;
      const decoded = decode(view.text);
      if (decoded === undefined) continue;
      seen ??= new Set<string>([text]);
      if (seen.has(decoded.text)) continue;
      seen.add(decoded.text);
      queue.push(compose(view, decoded));
    }
  }
  if (offset !== 0) for (const [start, end] of found) spans.push([start + offset, end + offset]);
}

/**
 * A character some decoder acts on. A `+` only matters when a needle holds a space, and only
 * touching something else: a form encodes a space inside a value as `+`, while a `+` between
 * spaces (every line of a plan that creates, `  + name: …`) encodes nothing, and decoding those
 * lines made a 100,000-resource plan a quarter slower.
 */
const ESCAPING = /[\\%'&$]/g;
const ESCAPING_OR_PLUS = /[\\%'&$]|\S\+|\+\S/g;

/** `text` with every form of every secret replaced by `mask`. */
export function redactSecrets(text: string, secrets: readonly string[] | SecretMatcher, mask: string): string {
  return masked(text, secretSpans(text, secrets), mask);
}

function masked(text: string, spans: readonly [number, number][], mask: string): string {
  if (spans.length === 0) return text;
  let out = '';
  let at = 0;
  for (const [start, end] of spans) {
    out += text.slice(at, start) + mask;
    at = end;
  }
  return out + text.slice(at);
}

/** Whether `text` holds one of `secrets` in any form. */
export function holdsSecret(text: string, secrets: readonly string[] | SecretMatcher): boolean {
  return secretSpans(text, secrets).length > 0;
}

/** The strings to look for of one secret: itself and its base64 (a Basic header, a data URL). */
function needlesOf(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const base64 = bytes.toString('base64');
  const forms = [secret, base64];
  const unpadded = base64.replace(/=+$/, '');
  if (unpadded !== base64) forms.push(unpadded);
  const url = bytes.toString('base64url');
  if (url !== unpadded) forms.push(url);
  return forms;
}

/**
 * Needles of 8 code units or more are indexed by a hash of their last 8: the end, not the start,
 * since secrets share prefixes by convention (`sk_live_`, `AKIA`, `https://hooks.slack.com/…`)
 * and rarely suffixes. Shorter ones (a secret of 4 to 7) are looked for one by one.
 */
const WINDOW = 8;
const BASE = 0x01000193;
/** BASE to the power of the window, modulo 2^32: what leaves the rolling hash as the window moves. */
const OUT = power(WINDOW);
/** Hashes are kept to 30 bits: small integers, which V8 keys a Map by without boxing. */
const KEY_MASK = 0x3fffffff;

function power(exponent: number): number {
  let value = 1;
  for (let k = 0; k < exponent; k++) value = Math.imul(value, BASE);
  return value;
}

/** The key of a needle's last {@link WINDOW} code units, as {@link SecretMatcher.collect} rolls it. */
function windowKey(needle: string): number {
  let hash = 0;
  for (let k = needle.length - WINDOW; k < needle.length; k++)
    hash = (Math.imul(hash, BASE) + needle.charCodeAt(k)) | 0;
  return hash & KEY_MASK;
}

/**
 * Every secret's needles in one index, so a text is scanned once whatever the number of secrets:
 * a rolling hash moves along the text, and at each position a bit table tells whether any needle
 * may end there (almost never: at most one bucket in 64 is taken); only then does a lookup give
 * the few candidates to compare. Adding a secret is cheap and needs no rebuild, so the run's
 * secrets are added as they are resolved.
 */
export class SecretMatcher {
  private readonly secrets = new Set<string>();
  private readonly byEnd = new Map<number, string[]>();
  /** One bit per bucket of the top `bits` bits of a key: whether any needle's key is in it. */
  private presence = new Int32Array(1 << (MIN_PRESENCE_BITS - 5));
  private bits = MIN_PRESENCE_BITS;
  private readonly short: string[] = [];
  /** Whether a needle holds a space: only then can a form's `+` hide one. */
  spaced = false;

  constructor(secrets: Iterable<string> = []) {
    for (const secret of secrets) this.add(secret);
  }

  get empty(): boolean {
    return this.secrets.size === 0;
  }

  /** Adds a secret and its forms; false when it is empty or known already. */
  add(secret: string): boolean {
    if (secret === '' || this.secrets.has(secret)) return false;
    this.secrets.add(secret);
    for (const needle of needlesOf(secret)) this.addNeedle(needle);
    return true;
  }

  /** Pushes onto `spans` where each needle occurs in `view`, in the original's positions. */
  collect(view: View, spans: [number, number][]): void {
    const { text, starts } = view;
    const place = (at: number, length: number): void =>
      void spans.push(starts ? [starts[at] as number, starts[at + length] as number] : [at, at + length]);
    const length = text.length;
    if (this.byEnd.size > 0 && length >= WINDOW) {
      const { presence } = this;
      const shift = 30 - this.bits;
      let hash = 0;
      for (let at = 0; at < WINDOW; at++) hash = (Math.imul(hash, BASE) + text.charCodeAt(at)) | 0;
      for (let end = WINDOW; ; end++) {
        const bucket = (hash & KEY_MASK) >>> shift;
        if (((presence[bucket >>> 5] as number) & (1 << (bucket & 31))) !== 0)
          this.check(hash & KEY_MASK, text, end, place);
        if (end === length) break;
        hash = (Math.imul(hash, BASE) + text.charCodeAt(end)) | 0;
        hash = (hash - Math.imul(text.charCodeAt(end - WINDOW), OUT)) | 0;
      }
    }
    for (const needle of this.short) {
      for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) place(at, needle.length);
    }
  }

  private check(key: number, text: string, end: number, place: (at: number, length: number) => void): void {
    for (const needle of this.byEnd.get(key) ?? [])
      if (end >= needle.length && text.startsWith(needle, end - needle.length))
        place(end - needle.length, needle.length);
  }

  private addNeedle(needle: string): void {
    if (needle.includes(' ')) this.spaced = true;
    if (needle.length < WINDOW) {
      if (!this.short.includes(needle)) this.short.push(needle);
      return;
    }
    const key = windowKey(needle);
    const list = this.byEnd.get(key);
    if (list) list.push(needle);
    else this.byEnd.set(key, [needle]);
    if (this.byEnd.size > (1 << this.bits) / 64 && this.bits < MAX_PRESENCE_BITS) this.grow();
    else this.mark(key);
  }

  private mark(key: number): void {
    const bucket = key >>> (30 - this.bits);
    this.presence[bucket >>> 5] = (this.presence[bucket >>> 5] as number) | (1 << (bucket & 31));
  }

  /** A presence table four times larger, so that at most one bucket in 64 is taken. */
  private grow(): void {
    this.bits += 2;
    this.presence = new Int32Array(1 << (this.bits - 5));
    for (const key of this.byEnd.keys()) this.mark(key);
  }
}

/** The presence table: 128 bytes at first, 4 MiB at most (two million needles at one bucket in 64). */
const MIN_PRESENCE_BITS = 10;
const MAX_PRESENCE_BITS = 25;

/** Shorter secrets are not looked for in free text: see {@link SecretRegistry}. */
export const MIN_SECRET_LENGTH = 4;

/**
 * Members a client may send together as `first:second` (Basic auth, SASL PLAIN), whose pair is
 * then a secret of its own: its base64 holds neither part's base64.
 */
export const CREDENTIAL_PAIRS = [
  ['username', 'password'],
  ['accessKeyId', 'secretKey'],
] as const;

/** What a masked secret reads as in every output. */
export const SECRET_MASK = '(sensitive)';

/**
 * The secrets of one run (one process): every value a secret reference resolves to, wherever it
 * was resolved (a target's credentials, a manifest's, a `vars` entry, a notification URL, the
 * control token) is registered here once, and every output passes through {@link redact}, so a
 * server that quotes any request — not only the one that failed — shows no secret (docs/security.md).
 *
 * A secret shorter than {@link MIN_SECRET_LENGTH} is not looked for: it would match by chance
 * all over the output, and the pattern of masks would tell it. A secret on several lines (a
 * private key) is looked for whole and line by line as well, since outputs are scanned a line at
 * a time (a line break escaped inside a JSON string is found whole through the decoders).
 */
export class SecretRegistry {
  private readonly matcher = new SecretMatcher();

  /** Adds values (too short ones are ignored); returns the registry. */
  register(values: Iterable<string>): this {
    for (const value of values) {
      if (value.length < MIN_SECRET_LENGTH) continue;
      if (!this.matcher.add(value) || !value.includes('\n')) continue;
      for (const line of value.split(/\r?\n/)) if (line.trim().length >= MIN_SECRET_LENGTH) this.matcher.add(line);
    }
    return this;
  }

  get empty(): boolean {
    return this.matcher.empty;
  }

  /**
   * `text` with every form of every registered secret masked: one pass of the matcher over the
   * text, and the decoders only over the lines holding a character one of them acts on (most
   * lines of a plan or a log hold none).
   */
  redact(text: string): string {
    if (this.matcher.empty || text.length < MIN_SECRET_LENGTH) return text;
    const spans: [number, number][] = [];
    this.matcher.collect({ text }, spans);
    const escaping = this.matcher.spaced ? ESCAPING_OR_PLUS : ESCAPING;
    escaping.lastIndex = 0;
    for (let match = escaping.exec(text); match !== null; match = escaping.exec(text)) {
      const start = text.lastIndexOf('\n', match.index) + 1;
      const newline = text.indexOf('\n', match.index);
      const end = newline < 0 ? text.length : newline;
      collectDecoded(text.slice(start, end), this.matcher, spans, start);
      escaping.lastIndex = end;
    }
    return masked(text, mergeSpans(spans), SECRET_MASK);
  }

  /** A copy of a JSON-like value with every string masked, member names too. */
  redactDeep<T>(value: T): T {
    if (this.matcher.empty) return value;
    return this.walk(value) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (Array.isArray(value)) return value.map((item) => this.walk(item));
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [this.redact(key), this.walk(item)]));
    return value;
  }
}

/** The one registry of this process: see {@link SecretRegistry}. */
export const runSecrets = new SecretRegistry();

/** Streams whose every write is masked already: a logger writing to one adds no second scan. */
const maskedStreams = new WeakSet<object>();

/**
 * Masks every write to `stream` (the process's stdout and stderr): whatever a command prints,
 * however it was built, shows no secret of the run. Writes are of whole lines or more (pino's
 * records, `writeChunks`' pieces), so a secret is never cut between two.
 */
export function maskWrites(stream: NodeJS.WritableStream, registry: SecretRegistry = runSecrets): void {
  if (maskedStreams.has(stream)) return;
  maskedStreams.add(stream);
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]): boolean => {
    if (registry.empty) return write(chunk, ...rest);
    if (typeof chunk === 'string') return write(registry.redact(chunk), ...rest);
    if (chunk instanceof Uint8Array) {
      const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8');
      const redacted = registry.redact(text);
      return write(redacted === text ? chunk : redacted, ...rest);
    }
    return write(chunk, ...rest);
  }) as typeof stream.write;
}

/** Whether {@link maskWrites} guards `stream`. */
export function writesMasked(stream: object): boolean {
  return maskedStreams.has(stream);
}

function compose(view: View, decoded: Decoded): View {
  const starts = new Int32Array(decoded.from.length);
  const outer = view.starts;
  for (let i = 0; i < decoded.from.length; i++)
    starts[i] = outer ? (outer[decoded.from[i] as number] as number) : (decoded.from[i] as number);
  return { text: decoded.text, starts };
}

function mergeSpans(spans: [number, number][]): [number, number][] {
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: [number, number][] = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push([span[0], span[1]]);
  }
  return merged;
}

// ---------------------------------------------------------------- decoders

/** Builds a decoded text piece by piece, bytes of escapes gathered and read as UTF-8. */
class Builder {
  private readonly chars: string[] = [];
  private readonly from: number[] = [];
  private readonly bytes: number[] = [];
  private readonly byteFrom: number[] = [];
  changed = false;

  char(text: string, from: number): void {
    if (this.bytes.length > 0) this.flushBytes();
    this.pushUnits(text, from);
  }

  byte(value: number, from: number): void {
    this.bytes.push(value);
    this.byteFrom.push(from);
  }

  done(inputLength: number): Decoded | undefined {
    this.flushBytes();
    if (!this.changed) return undefined;
    this.from.push(inputLength);
    return { text: this.chars.join(''), from: this.from };
  }

  /** UTF-8 of the gathered bytes; a byte that starts no valid sequence stands for itself (Latin-1). */
  private flushBytes(): void {
    const bytes = this.bytes;
    for (let i = 0; i < bytes.length; ) {
      const length = utf8Length(bytes, i);
      const from = this.byteFrom[i] as number;
      if (length === 0) {
        this.pushUnits(String.fromCharCode(bytes[i] as number), from);
        i++;
        continue;
      }
      this.pushUnits(Buffer.from(bytes.slice(i, i + length)).toString('utf8'), from);
      i += length;
    }
    bytes.length = 0;
    this.byteFrom.length = 0;
  }

  private pushUnits(text: string, from: number): void {
    for (let i = 0; i < text.length; i++) {
      this.chars.push(text[i] as string);
      this.from.push(from);
    }
  }
}

/** The length of the valid UTF-8 sequence at `i`, or 0. */
function utf8Length(bytes: readonly number[], i: number): number {
  const lead = bytes[i] as number;
  const length =
    lead < 0x80
      ? 1
      : lead >= 0xc2 && lead <= 0xdf
        ? 2
        : lead >= 0xe0 && lead <= 0xef
          ? 3
          : lead >= 0xf0 && lead <= 0xf4
            ? 4
            : 0;
  if (length === 0 || i + length > bytes.length) return 0;
  for (let k = 1; k < length; k++) if (((bytes[i + k] as number) & 0xc0) !== 0x80) return 0;
  return length;
}

const HEX = /^[0-9a-fA-F]+$/;
const SIMPLE_ESCAPES: Record<string, string> = {
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  a: '\x07',
  e: '\x1b',
};

/**
 * Backslash escapes of JSON (`\"`, `\\`, `\/`, `\n`, `\u00f6`), C and bash's `$'…'` (`\xc3\xb6`,
 * octal `\303`, `\U0001f600`, `\'`) and the shell outside quotes or in double quotes (`\ `, `\$`,
 * a backslash before any punctuation). An escape of a letter or digit not listed is left alone.
 */
function decodeBackslashes(text: string): Decoded | undefined {
  if (!text.includes('\\')) return undefined;
  const out = new Builder();
  for (let i = 0; i < text.length; ) {
    const escape = text[i] === '\\' ? readEscape(text, i) : undefined;
    if (escape === undefined) {
      out.char(text[i] as string, i);
      i++;
      continue;
    }
    if (escape.byte !== undefined) out.byte(escape.byte, i);
    else out.char(escape.char ?? '', i);
    out.changed = true;
    i += escape.length;
  }
  return out.done(text.length);
}

/** What the escape at `i` (a backslash) stands for: a character or a byte, and how long it is; undefined when it is none. */
function readEscape(text: string, i: number): { length: number; char?: string; byte?: number } | undefined {
  const next = text[i + 1];
  if (next === undefined) return undefined;
  const simple = SIMPLE_ESCAPES[next];
  if (simple !== undefined) return { length: 2, char: simple };
  if (next === 'u' && text[i + 2] === '{') return bracedCodePoint(text, i);
  const hexLength = next === 'u' ? 4 : next === 'U' ? 8 : next === 'x' ? 2 : 0;
  if (hexLength > 0) {
    const hex = text.slice(i + 2, i + 2 + hexLength);
    if (hex.length !== hexLength || !HEX.test(hex)) return undefined;
    const value = parseInt(hex, 16);
    if (next === 'x') return { length: 4, byte: value };
    if (value > 0x10ffff) return undefined;
    return { length: 2 + hexLength, char: next === 'u' ? String.fromCharCode(value) : String.fromCodePoint(value) };
  }
  const octal = /^[0-7]{1,3}/.exec(text.slice(i + 1, i + 4))?.[0];
  if (octal !== undefined && parseInt(octal, 8) < 256) return { length: 1 + octal.length, byte: parseInt(octal, 8) };
  // A line continued; any other punctuation stands for itself (`\ `, `\$`, `\"` in the shell).
  if (next === '\n') return { length: 2, char: '' };
  if (/[^0-9A-Za-z]/.test(next)) return { length: 2, char: next };
  return undefined;
}

/** `\u{1f600}` (JavaScript). */
function bracedCodePoint(text: string, i: number): { length: number; char: string } | undefined {
  const close = text.indexOf('}', i + 3);
  const hex = close > 0 ? text.slice(i + 3, close) : '';
  if (!HEX.test(hex) || hex.length > 6 || parseInt(hex, 16) > 0x10ffff) return undefined;
  return { length: close + 1 - i, char: String.fromCodePoint(parseInt(hex, 16)) };
}

/** `%c3%b6` (either case): URL and form encoding. With `plus`, `+` is a space too (forms). */
function percentDecoder(plus: boolean): Decoder {
  return (text) => {
    if (!text.includes('%') && !(plus && text.includes('+'))) return undefined;
    const out = new Builder();
    for (let i = 0; i < text.length; ) {
      const hex = text[i] === '%' ? text.slice(i + 1, i + 3) : '';
      if (hex.length === 2 && HEX.test(hex)) {
        out.byte(parseInt(hex, 16), i);
        out.changed = true;
        i += 3;
      } else if (plus && text[i] === '+') {
        out.char(' ', i);
        out.changed = true;
        i++;
      } else {
        out.char(text[i] as string, i);
        i++;
      }
    }
    return out.done(text.length);
  };
}

const SHELL_QUOTES = /'\\''|'"'"'/g;

/** A single quote inside a single-quoted shell word: `'\''` or `'"'"'`. */
function decodeShellQuotes(text: string): Decoded | undefined {
  if (!text.includes("'")) return undefined;
  return replacing(text, SHELL_QUOTES, () => "'");
}

const ANSI_C_QUOTED = /\$'((?:[^'\\]|\\[\s\S])*)'/g;

/**
 * The quotes of bash's `$'…'` taken away (`$'\n'` in `printf %q` of a newline), leaving the
 * escapes inside to {@link decodeBackslashes}: each character keeps its own place.
 */
function decodeAnsiCQuotes(text: string): Decoded | undefined {
  if (!text.includes("$'")) return undefined;
  return replacing(text, ANSI_C_QUOTED, (match) => [match.index + 2, match.index + 2 + (match[1] as string).length]);
}

const HTML_ENTITIES: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'", nbsp: '\u00a0' };
const HTML_ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]+));/g;

/** HTML entities, as an error page quoting the request writes them. */
function decodeHtml(text: string): Decoded | undefined {
  if (!text.includes('&')) return undefined;
  return replacing(text, HTML_ENTITY, ([, decimal, hex, name]) => {
    const code = decimal !== undefined ? parseInt(decimal, 10) : hex !== undefined ? parseInt(hex, 16) : undefined;
    if (code !== undefined) return code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
    return HTML_ENTITIES[name ?? ''];
  });
}

/**
 * Each match of `pattern` replaced by what `replace` gives: a string (standing where the match
 * began), the part of the text between two positions (each character keeping its place), or
 * undefined (left as it is).
 */
function replacing(
  text: string,
  pattern: RegExp,
  replace: (match: RegExpExecArray) => string | [number, number] | undefined,
): Decoded | undefined {
  const matches = [...text.matchAll(pattern)];
  if (matches.length === 0) return undefined;
  const out = new Builder();
  let at = 0;
  for (const match of matches) {
    const replacement = replace(match);
    if (replacement === undefined) continue;
    copy(out, text, at, match.index);
    if (typeof replacement === 'string') out.char(replacement, match.index);
    else copy(out, text, replacement[0], replacement[1]);
    out.changed = true;
    at = match.index + match[0].length;
  }
  copy(out, text, at, text.length);
  return out.done(text.length);
}

function copy(out: Builder, text: string, from: number, to: number): void {
  for (let i = from; i < to; i++) out.char(text[i] as string, i);
}

const decodeForm = percentDecoder(true);
const DECODERS: readonly Decoder[] = [
  decodeBackslashes,
  percentDecoder(false),
  decodeForm,
  decodeShellQuotes,
  decodeAnsiCQuotes,
  decodeHtml,
];
