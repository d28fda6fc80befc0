/** `sync.drift: propose` and `sync.markManaged` as the config loader takes and refuses them. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import type { StacksyncError } from '../../src/errors.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stacksync-config-propose-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const targets = (...names: string[]): string =>
  `targets:\n${names.map((name) => `  - name: ${name}\n    variant: self-hosted\n    baseUrl: http://127.0.0.1:8000\n    auth: { token: { fromEnv: TOKEN } }\n`).join('')}${names.length > 1 ? `defaultTarget: ${names[0]}\n` : ''}`;

async function load(text: string): ReturnType<typeof loadConfig> {
  const path = join(dir, `c-${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(path, text);
  return loadConfig(path);
}

async function problemsOf(text: string): Promise<{ line?: number; message: string }[]> {
  const error = (await load(text).then(
    () => undefined,
    (caught: unknown) => caught,
  )) as StacksyncError | undefined;
  expect(error?.code).toBe('E_CONFIG_INVALID');
  return (error?.details?.['problems'] ?? []) as { line?: number; message: string }[];
}

describe('sync.drift: propose', () => {
  it('loads author, base, remote and token, with the default branch', async () => {
    const { config, warnings } = await load(`${targets('prod')}sync:
  drift: propose
  propose:
    author: { name: stacksync, email: bot@example.com }
    base: main
    remote: https://github.com/acme/manifests.git
    token: { fromEnv: GIT_TOKEN }
`);
    expect(warnings).toEqual([]);
    expect(config.sync.drift).toBe('propose');
    expect(config.sync.propose).toEqual({
      author: { name: 'stacksync', email: 'bot@example.com' },
      base: 'main',
      branch: 'stacksync/drift/{target}',
      remote: 'https://github.com/acme/manifests.git',
      token: { fromEnv: 'GIT_TOKEN' },
    });
  });

  it('refuses propose without its settings, or without an author', async () => {
    expect(await problemsOf(`${targets('prod')}sync:\n  drift: propose\n`)).toEqual([
      expect.objectContaining({
        line: 7,
        message: expect.stringMatching(/^sync\.propose: is required with sync\.drift: propose/),
      }),
    ]);
    const missing = await problemsOf(`${targets('prod')}sync:\n  drift: propose\n  propose:\n    base: main\n`);
    expect(missing.map((problem) => problem.message)).toEqual(['sync.propose.author: is required']);
  });

  it('refuses a branch that would be the branch the daemon syncs from, for any target', async () => {
    const same = await problemsOf(`${targets('prod', 'main')}sync:
  drift: propose
  propose:
    author: { name: stacksync, email: bot@example.com }
    base: main
    branch: '{target}'
`);
    expect(same).toEqual([
      expect.objectContaining({
        line: 16,
        message: expect.stringMatching(
          /^sync\.propose\.branch: would be main for target main, the branch the daemon syncs from/,
        ),
      }),
    ]);
    const fixed = await problemsOf(`${targets('prod')}sync:
  drift: propose
  propose:
    author: { name: stacksync, email: bot@example.com }
    base: drift
    branch: drift
`);
    expect(fixed.map((problem) => problem.message)).toEqual([
      expect.stringMatching(/^sync\.propose\.branch: would be drift for target prod/),
    ]);
  });

  it('refuses one branch for several targets, a branch git would refuse, and propose settings without propose', async () => {
    const shared = await problemsOf(`${targets('prod', 'stage')}sync:
  drift: propose
  propose: { author: { name: s, email: s@x.io }, base: main, branch: stacksync/drift }
`);
    expect(shared.map((problem) => problem.message)).toEqual([
      expect.stringMatching(/^sync\.propose\.branch: must hold \{target\}/),
    ]);
    const bad = await problemsOf(`${targets('prod')}sync:
  drift: propose
  propose: { author: { name: s, email: s@x.io }, base: main, branch: 'drift..x' }
`);
    expect(bad.map((problem) => problem.message)).toEqual([
      expect.stringMatching(/^sync\.propose\.branch: must be a git branch name/),
    ]);
    const unused = await problemsOf(`${targets('prod')}sync:
  drift: heal
  propose: { author: { name: s, email: s@x.io }, base: main }
`);
    expect(unused.map((problem) => problem.message)).toEqual([
      'sync.propose: is only read with sync.drift: propose (it is heal)',
    ]);
  });

  it('warns about a plain-string push token', async () => {
    const { warnings } = await load(`${targets('prod')}sync:
  drift: propose
  propose: { author: { name: s, email: s@x.io }, base: main, token: ghp_plain }
`);
    expect(warnings.map((warning) => warning.message)).toEqual([
      'sync.propose.token: is a plain string in the config file; use {fromEnv: NAME} or {fromFile: PATH}',
    ]);
  });
});

describe('sync.markManaged', () => {
  it('is off by default and taken when set', async () => {
    expect((await load(targets('prod'))).config.sync.markManaged).toBe(false);
    expect((await load(`${targets('prod')}sync:\n  markManaged: true\n`)).config.sync.markManaged).toBe(true);
  });
});
