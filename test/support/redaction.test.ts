/**
 * Secrets are found in any escaped form, escaped any number of times and in any mix (issue 25,
 * item 4). The encoders here are written independently of the decoders in src/support/
 * redaction.ts, so a form the redactor misses fails; every chain of up to three of them is tried
 * on secrets holding a quote, a backslash, a slash, a newline, a space and non-ASCII letters.
 */
import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { maskWrites, redactSecrets, SecretRegistry, secretSpans } from '../../src/support/redaction.js';

const MASK = '(sensitive)';
const SECRETS = ['kafka-Pa"55\\wörd/ß\né 9', "it's-a 'quoted' $ecret`x`&<b>+%41", 'emoji-😀-naïve'];

const utf8Bytes = (text: string): number[] => [...Buffer.from(text, 'utf8')];
const hex = (byte: number, upper = false): string =>
  (upper ? byte.toString(16).toUpperCase() : byte.toString(16)).padStart(2, '0');

/** How servers, libraries and shells write a string inside something else. */
const ENCODERS: Record<string, (text: string) => string> = {
  json: (text) => JSON.stringify(text).slice(1, -1),
  'json, ASCII only': (text) =>
    JSON.stringify(text)
      .slice(1, -1)
      .replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  'json, ASCII only, upper case': (text) =>
    JSON.stringify(text)
      .slice(1, -1)
      .replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`),
  'json with \\/': (text) => JSON.stringify(text).slice(1, -1).replaceAll('/', '\\/'),
  url: (text) => encodeURIComponent(text),
  'url, lower case': (text) =>
    utf8Bytes(text)
      .map((b) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${hex(b)}`))
      .join(''),
  form: (text) => new URLSearchParams({ s: text }).toString().slice(2),
  'shell single quotes': (text) => text.replaceAll("'", `'\\''`),
  'shell single quotes, other style': (text) => text.replaceAll("'", `'"'"'`),
  'shell double quotes': (text) => text.replace(/[\\"$`]/g, (c) => `\\${c}`),
  'shell backslashes (printf %q)': (text) =>
    text.replace(/[^A-Za-z0-9_\-./\n\u0080-\uffff]/g, (c) => `\\${c}`).replace(/\n/g, () => "$'\\n'"),
  "bash $'…' with byte escapes": (text) =>
    utf8Bytes(text)
      .map((b) =>
        b === 0x27 || b === 0x5c
          ? `\\${String.fromCharCode(b)}`
          : b >= 0x20 && b < 0x7f
            ? String.fromCharCode(b)
            : `\\x${hex(b)}`,
      )
      .join(''),
  "bash $'…' with octal escapes": (text) =>
    utf8Bytes(text)
      .map((b) =>
        b === 0x27 || b === 0x5c
          ? `\\${String.fromCharCode(b)}`
          : b >= 0x20 && b < 0x7f
            ? String.fromCharCode(b)
            : `\\${b.toString(8).padStart(3, '0')}`,
      )
      .join(''),
  html: (text) =>
    text.replace(
      /[&<>"']/g,
      (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
    ),
};

const names = Object.keys(ENCODERS);
const chains: string[][] = [
  ...names.map((a) => [a]),
  ...names.flatMap((a) => names.map((b) => [a, b])),
  ...names.flatMap((a) => names.flatMap((b) => names.map((c) => [a, b, c]))),
];
const encode = (chain: readonly string[], text: string): string =>
  chain.reduce((current, name) => (ENCODERS[name] as (t: string) => string)(current), text);

describe('secrets in any escaped form', () => {
  it(`every chain of up to three escapings (${chains.length}) of each secret is masked, and only it`, () => {
    const missed: string[] = [];

    for (const secret of SECRETS) {
      for (const chain of chains) {
        const form = encode(chain, secret);
        // A context that the same chain escapes too, around the secret, as a quoted body would be.
        const text = `HTTP 400: ${encode(chain, '{"user":"svc","password":"')}${form}${encode(chain, '"} rejected')}`;
        const redacted = redactSecrets(text, SECRETS, MASK);
        if (redacted.includes(form) || !redacted.includes(MASK) || !redacted.startsWith('HTTP 400: '))
          missed.push(
            `${chain.join(' → ')}: ${JSON.stringify(secret)} as ${JSON.stringify(form)} → ${JSON.stringify(redacted)}`,
          );
      }
    }
    expect(missed.slice(0, 10)).toEqual([]);
  });

  it.each([
    ['JSON inside JSON, six deep', (s: string) => [1, 2, 3, 4, 5, 6].reduce((t) => JSON.stringify(t).slice(1, -1), s)],
    ['URL-encoded five times', (s: string) => [1, 2, 3, 4, 5].reduce((t) => encodeURIComponent(t), s)],
    [
      'alternating JSON and URL, eight deep',
      (s: string) => [1, 2, 3, 4].reduce((t) => encodeURIComponent(JSON.stringify(t).slice(1, -1)), s),
    ],
    [
      'base64 (a Basic header) inside JSON inside a URL',
      (s: string) => encodeURIComponent(JSON.stringify(`Basic ${Buffer.from(s).toString('base64')}`)),
    ],
  ])('%s: masked whole, any number of times deep', (_name, escape) => {
    for (const secret of SECRETS) {
      const form = escape(secret);
      const redacted = redactSecrets(`<${form}>`, SECRETS, MASK);
      expect(redacted, form).not.toContain(form);
      expect(redacted).toMatch(/^<.*\(sensitive\).*>$/);
    }
  });

  it('leaves text without a secret alone, however much escaping it holds', () => {
    const texts = [
      'plain words',
      "a\\\"b\\\\c %41%42 + &amp; '\\'' \\u00f6 \\x41 \\101",
      JSON.stringify(JSON.stringify({ password: 'another-one', note: 'kafka-Pa"55' })),
    ];
    for (const text of texts) expect(redactSecrets(text, SECRETS, MASK)).toBe(text);
  });

  it('masks where the secret stands: the text around it stays as written', () => {
    const secret = SECRETS[0] as string;
    const body = JSON.stringify(JSON.stringify({ password: secret, user: 'svc' }));
    expect(redactSecrets(`rejected ${body} (retry)`, SECRETS, MASK)).toBe(
      `rejected "{\\"password\\":\\"${MASK}\\",\\"user\\":\\"svc\\"}" (retry)`,
    );
  });

  it('finds several secrets and several forms in one text, in order', () => {
    const [a, b] = SECRETS as [string, string];
    const text = `${encodeURIComponent(a)} and ${JSON.stringify(b)} and ${a}`;
    expect(secretSpans(text, SECRETS)).toHaveLength(3);
    expect(redactSecrets(text, SECRETS, MASK)).toBe(`${MASK} and "${MASK}" and ${MASK}`);
  });
});

/** The run's registry (issue 33): every secret registered once, each output scanned once. */
describe('the secrets of a run', () => {
  const asciiJson = (text: string): string =>
    JSON.stringify(text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

  it('masks each of thousands of secrets sharing a prefix, in every form, and nothing else', () => {
    // Slack URLs and API keys share long prefixes: the index must tell them apart.
    const secrets = Array.from(
      { length: 3000 },
      (_, i) => `https://hooks.slack.com/services/T000/B${i.toString(36)}/x${(i * 7919).toString(36)}ö"q`,
    );
    const registry = new SecretRegistry().register(secrets);
    for (const i of [0, 1, 1234, 2999]) {
      const secret = secrets[i] as string;
      for (const form of [
        secret,
        JSON.stringify(secret),
        asciiJson(asciiJson(secret)),
        encodeURIComponent(secret),
        `Basic ${Buffer.from(secret).toString('base64')}`,
      ]) {
        const text = `before ${form} after`;
        const redacted = registry.redact(text);
        expect(redacted, form).toMatch(/^before .*\(sensitive\).* after$/);
        expect(redacted, form).not.toContain(`x${(i * 7919).toString(36)}`);
      }
    }
    const neighbour = 'https://hooks.slack.com/services/T000/B0/other';
    expect(registry.redact(neighbour)).toBe(neighbour);
  });

  it('masks every line of a text, a secret on several lines whole and line by line', () => {
    const key = '-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0B\nAQEFAASCBKcwggSjAgEAAoIB\n-----END KEY-----';
    const registry = new SecretRegistry().register(['first-secret-1', key]);
    expect(registry.redact('a first-secret-1\nb first-secret-1\n')).toBe('a (sensitive)\nb (sensitive)\n');
    expect(registry.redact(`key: ${key}\n`)).not.toContain('MIIEvQIBADANBgkqhkiG9w0B');
    expect(registry.redact(`key: ${JSON.stringify(key)}`)).not.toContain('AQEFAASCBKcwggSjAgEAAoIB');
    expect(registry.redact('only AQEFAASCBKcwggSjAgEAAoIB here')).toBe('only (sensitive) here');
  });

  it('leaves a secret of under 4 characters alone: it would match by chance everywhere', () => {
    const registry = new SecretRegistry().register(['abc']);
    expect(registry.empty).toBe(true);
    expect(registry.redact('abc abcdef')).toBe('abc abcdef');
  });

  it('masks member names too in a JSON value (a resource named as a secret)', () => {
    const registry = new SecretRegistry().register(['billing-pg-7hq2x9vw']);
    expect(
      registry.redactDeep({ resources: { 'billing-pg-7hq2x9vw': { name: 'billing-pg-7hq2x9vw', id: 1 } } }),
    ).toEqual({ resources: { '(sensitive)': { name: '(sensitive)', id: 1 } } });
  });

  it('masks what is written to a guarded stream, strings and bytes', () => {
    const registry = new SecretRegistry().register(['s3cr3t-value']);
    const stream = new PassThrough();
    maskWrites(stream, registry);
    stream.write('one s3cr3t-value\n');
    stream.write(Buffer.from(`two ${encodeURIComponent('s3cr3t-value')}\n`));
    expect(String(stream.read())).toBe('one (sensitive)\ntwo (sensitive)\n');
  });
});
