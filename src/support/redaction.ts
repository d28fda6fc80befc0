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
  starts: Int32Array;
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
export function secretSpans(text: string, secrets: readonly string[]): [number, number][] {
  const needles = needlesOf(secrets);
  if (needles.length === 0 || text.length === 0) return [];
  const spans: [number, number][] = [];
  const seen = new Set<string>([text]);
  const queue: View[] = [identityView(text)];
  for (let next = 0; next < queue.length; next++) {
    const view = queue[next] as View;
    collectMatches(view, needles, spans);
    for (const decode of DECODERS) {
      if (queue.length >= MAX_VIEWS) break;
      const decoded = decode(view.text);
      if (decoded === undefined || seen.has(decoded.text)) continue;
      seen.add(decoded.text);
      queue.push(compose(view, decoded));
    }
  }
  return mergeSpans(spans);
}

/** `text` with every form of every secret replaced by `mask`. */
export function redactSecrets(text: string, secrets: readonly string[], mask: string): string {
  const spans = secretSpans(text, secrets);
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
export function holdsSecret(text: string, secrets: readonly string[]): boolean {
  return secretSpans(text, secrets).length > 0;
}

/** The strings to look for: each secret and its base64 (a Basic header, a data URL), longest first. */
function needlesOf(secrets: readonly string[]): string[] {
  const needles = new Set<string>();
  for (const secret of secrets) {
    if (secret === '') continue;
    needles.add(secret);
    const base64 = Buffer.from(secret, 'utf8').toString('base64');
    needles.add(base64);
    needles.add(base64.replace(/=+$/, ''));
    needles.add(Buffer.from(secret, 'utf8').toString('base64url'));
  }
  return [...needles].sort((a, b) => b.length - a.length);
}

function identityView(text: string): View {
  const starts = new Int32Array(text.length + 1);
  for (let i = 0; i <= text.length; i++) starts[i] = i;
  return { text, starts };
}

function compose(view: View, decoded: Decoded): View {
  const starts = new Int32Array(decoded.from.length);
  for (let i = 0; i < decoded.from.length; i++) starts[i] = view.starts[decoded.from[i] as number] as number;
  return { text: decoded.text, starts };
}

function collectMatches(view: View, needles: readonly string[], spans: [number, number][]): void {
  for (const needle of needles) {
    for (let at = view.text.indexOf(needle); at >= 0; at = view.text.indexOf(needle, at + 1)) {
      spans.push([view.starts[at] as number, view.starts[at + needle.length] as number]);
    }
  }
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
    return { text: this.chars.join(''), from: [...this.from, inputLength] };
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
  const length = lead < 0x80 ? 1 : lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
  if (length === 0 || i + length > bytes.length) return 0;
  for (let k = 1; k < length; k++) if (((bytes[i + k] as number) & 0xc0) !== 0x80) return 0;
  return length;
}

const HEX = /^[0-9a-fA-F]+$/;
const SIMPLE_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', a: '\x07', e: '\x1b' };

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
function replacing(text: string, pattern: RegExp, replace: (match: RegExpExecArray) => string | [number, number] | undefined): Decoded | undefined {
  const out = new Builder();
  let at = 0;
  for (const match of text.matchAll(pattern)) {
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

const DECODERS: readonly Decoder[] = [decodeBackslashes, percentDecoder(false), percentDecoder(true), decodeShellQuotes, decodeAnsiCQuotes, decodeHtml];
