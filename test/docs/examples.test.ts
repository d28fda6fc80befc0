/**
 * Every complete manifest of the README and docs/ works: the YAML blocks holding a document with
 * `apiVersion` and `kind` are applied, page by page, through the built CLI to an emulator of each
 * profile (`seed` and `current`), and the apply must succeed with nothing failed or held back.
 *
 * Markers beside a block (HTML comments on the lines just above its fence) say what else is meant:
 * - `<!-- profile: current -->`: the block needs that profile and is applied only on it;
 * - `<!-- fails: TEXT -->`: the block is meant to fail; it is applied on its own, and the CLI must
 *   exit non-zero with TEXT in what it prints.
 *
 * A page stands alone: its blocks are applied together (one apply per profile; a block naming a
 * manifest another block already defines starts a second apply), with nothing else, so an example
 * naming a dashboard, webhook or saved search the page does not define fails unless the profile's
 * emulator holds it. A block with a config document is applied with that config, each target
 * pointed at the emulator with its credentials and the profile; its names, variants, variables
 * and defaults are kept. Every `fromEnv` a block names is set, and every `fromFile` is a file.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseDocument, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { Profile } from '../../src/emulator/index.js';
import { DEFAULT_SEED_IDS } from '../../src/emulator/index.js';
import { DEFAULT_ENV, startTestEmulator, type CliResult } from '../helpers/workspace.js';
import { CLI } from '../helpers/workspace.js';
import { spawn } from 'node:child_process';
import { codeBlocks, documentationFiles, readDoc, type CodeBlock } from './markdown.js';

const PROFILES: readonly Profile[] = ['seed', 'current'];

interface Marked {
  block: CodeBlock;
  profile: Profile | undefined;
  fails: string | undefined;
  documents: { text: string; value: Record<string, unknown>; path: string | undefined }[];
}

/** The `<!-- … -->` lines just above a block's fence (blank lines between allowed). */
function markersOf(markdown: string, block: CodeBlock): Map<string, string> {
  const lines = markdown.split('\n');
  const markers = new Map<string, string>();
  for (let index = block.line - 2; index >= 0; index--) {
    const line = (lines[index] ?? '').trim();
    if (line === '') continue;
    const marker = /^<!--\s*([a-z-]+):\s*(.*?)\s*-->$/.exec(line);
    if (!marker) break;
    markers.set(marker[1] ?? '', marker[2] ?? '');
  }
  return markers;
}

function documentsOf(block: CodeBlock): Marked['documents'] {
  return block.text
    .split(/^---[ \t]*$/m)
    .filter((text) => text.trim() !== '')
    .map((text) => {
      const value = parseDocument(text).toJS() as Record<string, unknown>;
      const first = text.trim().split('\n')[0] ?? '';
      return { text, value, path: /^#\s+((?:config|manifests)\/[\w./-]+\.ya?ml)\s*$/.exec(first)?.[1] };
    });
}

const isManifest = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && 'apiVersion' in value && 'kind' in value;
const isConfig = (value: unknown): boolean => typeof value === 'object' && value !== null && 'targets' in value;

/** The pages with complete manifests, and their blocks with their markers. */
function examplePages(): Map<string, Marked[]> {
  const pages = new Map<string, Marked[]>();
  for (const file of documentationFiles()) {
    const markdown = readDoc(file);
    for (const block of codeBlocks(file, markdown)) {
      if (block.lang !== 'yaml' || block.flags.includes('fragment')) continue;
      const documents = documentsOf(block);
      if (!documents.some((document) => isManifest(document.value))) continue;
      const markers = markersOf(markdown, block);
      const profile = markers.get('profile');
      if (profile !== undefined && !PROFILES.includes(profile as Profile))
        throw new Error(`${file}:${block.line}: profile: ${profile} is not a profile`);
      const list = pages.get(file) ?? [];
      list.push({ block, profile: profile as Profile | undefined, fails: markers.get('fails'), documents });
      pages.set(file, list);
    }
  }
  return pages;
}

/** A manifest's key within a workspace (whatever its target): two blocks defining one cannot go into one apply. */
function keyOf(value: Record<string, unknown>): string {
  const metadata = (value['metadata'] ?? {}) as { name?: unknown };
  return `${String(value['kind'])}/${String(metadata.name)}`;
}

/** The applies of one page on one profile: blocks grouped while their config and names allow. */
function groupsOf(blocks: readonly Marked[], profile: Profile): Marked[][] {
  const groups: { config: string | undefined; keys: Set<string>; blocks: Marked[]; alone: boolean }[] = [];
  for (const marked of blocks) {
    if (marked.profile !== undefined && marked.profile !== profile) continue;
    const config = marked.documents.find((document) => isConfig(document.value))?.text;
    const keys = marked.documents
      .filter((document) => isManifest(document.value))
      .map((document) => keyOf(document.value));
    const alone = marked.fails !== undefined;
    const group = alone
      ? undefined
      : groups.find((each) => !each.alone && each.config === config && keys.every((key) => !each.keys.has(key)));
    if (group) {
      group.blocks.push(marked);
      for (const key of keys) group.keys.add(key);
    } else groups.push({ config, keys: new Set(keys), blocks: [marked], alone });
  }
  return groups.map((group) => group.blocks);
}

/** A page's config, each target pointed at the emulator with its credentials and the profile. */
function pointedConfig(text: string | undefined, url: string, profile: Profile, statePath: string): string {
  const config = (
    text === undefined ? defaultConfig() : (parseDocument(text).toJS() as Record<string, unknown>)
  ) as Record<string, unknown> & { targets: Record<string, unknown>[] };
  config.targets = config.targets.map((target) => {
    const managed = target['variant'] === 'managed';
    // The real services' budget (10 requests per 10 s) would make the test wait, not tell more.
    const pointed: Record<string, unknown> = {
      rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
      ...target,
      baseUrl: url,
      api: { profile },
    };
    if (managed) {
      Object.assign(pointed, {
        organizationId: DEFAULT_SEED_IDS.organizationId,
        serviceId: DEFAULT_SEED_IDS.serviceId,
      });
      pointed['auth'] = { keyId: { fromEnv: 'STACKSYNC_KEY_ID' }, keySecret: { fromEnv: 'STACKSYNC_KEY_SECRET' } };
    } else pointed['auth'] = { token: { fromEnv: 'STACKSYNC_TOKEN' } };
    return pointed;
  });
  // What only a daemon uses (its control token, notifications) would reach outside loopback.
  delete config['notify'];
  delete config['control'];
  config['state'] = statePath;
  return stringify(config);
}

function defaultConfig(): Record<string, unknown> {
  return {
    targets: [
      { name: 'local', variant: 'managed' },
      { name: 'local-selfhosted', variant: 'self-hosted' },
    ],
    defaultTarget: 'local',
  };
}

/** A value for each `fromEnv` the texts name: a URL where the name says so, else a word. */
function environmentFor(texts: readonly string[]): Record<string, string> {
  const env: Record<string, string> = { ...DEFAULT_ENV };
  for (const text of texts) {
    for (const match of text.matchAll(/fromEnv:\s*["']?([A-Za-z_][A-Za-z0-9_]*)/g)) {
      const name = match[1] ?? '';
      if (!(name in env))
        env[name] = /URL/.test(name) ? `https://hooks.example.com/${name.toLowerCase()}` : `docs-${name.toLowerCase()}`;
    }
  }
  return env;
}

function runCli(cwd: string, args: readonly string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: process.env['HOME'] ?? '',
        NO_COLOR: '1',
        STACKSYNC_BUDGET_FILE: 'off',
        ...env,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

interface Applied {
  where: string;
  result: CliResult;
}

/** One apply of a group of blocks on a fresh emulator of the profile. */
async function applyGroup(group: readonly Marked[], profile: Profile): Promise<Applied> {
  const where = group.map((marked) => `${marked.block.file}:${marked.block.line}`).join(', ');
  const emulator = await startTestEmulator({ profile, pipeTransitionMs: 0 });
  const dir = await mkdtemp(join(tmpdir(), 'stacksync-docs-examples-'));
  try {
    const write = async (path: string, text: string): Promise<void> => {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    };
    const texts: string[] = [];
    let index = 0;
    for (const marked of group) {
      for (const document of marked.documents) {
        if (!isManifest(document.value)) continue;
        // A file a secret is read from: one in the workspace, in its place.
        const text = document.text.replace(
          /fromFile:\s*([^\s,}]+)/g,
          (_, path: string) => `fromFile: ${JSON.stringify(join(dir, 'secrets', path.replace(/[^\w.-]/g, '_')))}`,
        );
        for (const match of document.text.matchAll(/fromFile:\s*([^\s,}]+)/g))
          await write(join('secrets', (match[1] ?? '').replace(/[^\w.-]/g, '_')), 'docs-file-secret');
        await write(document.path ?? `manifests/block-${index++}.yaml`, text);
        texts.push(text);
      }
    }
    const configText = group[0]?.documents.find((document) => isConfig(document.value))?.text;
    if (configText !== undefined) texts.push(configText);
    await write(
      'config/stacksync.yaml',
      pointedConfig(configText, emulator.url, profile, join(dir, '.stacksync', 'state.json')),
    );
    const result = await runCli(dir, ['apply'], environmentFor(texts));
    return { where: `${where} (${profile})`, result };
  } finally {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const told = ({ where, result }: Applied): string =>
  `${where}: exit ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;

/** What a successful apply must not print: a failure, a change held back, an error of the plan. */
const NOT_CLEAN = /[1-9]\d* (failed|not applied|skipped)|errors? in the plan|^\s*! /m;

function expectApplied(applied: Applied, fails: string | undefined): void {
  if (fails === undefined) {
    expect(applied.result.code, told(applied)).toBe(0);
    expect(`${applied.result.stdout}\n${applied.result.stderr}`, told(applied)).not.toMatch(NOT_CLEAN);
  } else {
    expect(applied.result.code, told(applied)).not.toBe(0);
    expect(`${applied.result.stdout}\n${applied.result.stderr}`, told(applied)).toContain(fails);
  }
}

const pages = examplePages();

describe('complete manifests of the README and docs/ apply on both emulator profiles', () => {
  it('are found on the pages that hold them, with their markers', () => {
    expect([...pages.keys()]).toEqual(
      expect.arrayContaining([
        'docs/getting-started.md',
        'docs/manifests/alert.md',
        'docs/manifests/dashboard.md',
        'docs/manifests/pipe.md',
      ]),
    );
  });

  // Pages apply to emulators of their own: a few at once, each mostly waiting on its CLI.
  for (const [page, blocks] of pages) {
    describe.concurrent.each(PROFILES)(`${page} on %s`, (profile) => {
      const groups = groupsOf(blocks, profile);
      it.skipIf(groups.length === 0)(
        'applies as the page says',
        async () => {
          for (const group of groups) expectApplied(await applyGroup(group, profile), group[0]?.fails);
        },
        120_000,
      );
    });
  }

  it('the check can fail: an example naming what the page does not define, or meant to fail and applying', async () => {
    const block = (text: string, line = 1): CodeBlock => ({ file: 'docs/x.md', line, lang: 'yaml', flags: [], text });
    const alert = [
      'apiVersion: stacksync/v1',
      'kind: Alert',
      'metadata: { name: a }',
      'spec: { name: a, source: tile, dashboard: nowhere, tile: t, threshold: 1, thresholdType: above, interval: 5m }',
    ].join('\n');
    const marked = (text: string, fails?: string): Marked => ({
      block: block(text),
      profile: undefined,
      fails,
      documents: documentsOf(block(text)),
    });
    const dangling = await applyGroup([marked(alert)], 'seed');
    expect(() => expectApplied(dangling, undefined)).toThrow();
    expectApplied(dangling, 'names no Dashboard manifest');
    const dashboard =
      'apiVersion: stacksync/v1\nkind: Dashboard\nmetadata: { name: d }\nspec: { name: d, tiles: [{ name: t, x: 0, y: 0, w: 6, h: 2 }] }\n';
    const fine = await applyGroup([marked(dashboard, 'anything')], 'seed');
    expect(() => expectApplied(fine, 'anything')).toThrow();
    expect(
      markersOf('<!-- profile: current -->\n\n<!-- fails: HTTP 400 -->\n```yaml\nx: 1\n```\n', block('x: 1', 4)),
    ).toEqual(
      new Map([
        ['fails', 'HTTP 400'],
        ['profile', 'current'],
      ]),
    );
  }, 120_000);
});
