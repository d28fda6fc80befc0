/** `daemon:` of the config: the listen address `run` and `status` use, and the status page's repository links. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { StacksyncError } from '../../src/errors.js';

const TARGETS = `targets:
  - name: sh
    variant: self-hosted
    baseUrl: http://127.0.0.1:1
    auth: { token: { fromEnv: T } }
`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stacksync-config-daemon-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function load(name: string, text: string) {
  const path = join(dir, name);
  await writeFile(path, text);
  return loadConfig(path);
}

describe('daemon settings', () => {
  it('loads the listen address and the repository URL as written', async () => {
    const { config } = await load(
      'ok.yaml',
      `${TARGETS}daemon:\n  listen: "[::1]:9500"\n  repositoryUrl: https://github.com/acme/obs/blob/{revision}/\n`,
    );
    expect(config.daemon).toEqual({
      listen: '[::1]:9500',
      repositoryUrl: 'https://github.com/acme/obs/blob/{revision}/',
    });
  });

  it('leaves them out when the file has none', async () => {
    const { config } = await load('none.yaml', TARGETS);
    expect(config).not.toHaveProperty('daemon');
  });

  it.each([
    [
      'a listen address without a port',
      'listen: localhost',
      'daemon.listen: must be HOST:PORT, [IPv6]:PORT or :PORT with a port 0-65535',
    ],
    [
      'a port past 65535',
      'listen: ":65536"',
      'daemon.listen: must be HOST:PORT, [IPv6]:PORT or :PORT with a port 0-65535',
    ],
    [
      'a repository URL that is not http(s)',
      'repositoryUrl: "javascript:alert(1)"',
      'daemon.repositoryUrl: must start with http:// or https://',
    ],
  ])('refuses %s, naming the line', async (_name, member, message) => {
    const error = await load(
      `bad-${Math.random().toString(36).slice(2)}.yaml`,
      `${TARGETS}daemon:\n  ${member}\n`,
    ).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(StacksyncError);
    const problems = ((error as StacksyncError).details?.['problems'] ?? []) as { line?: number; message: string }[];
    expect(problems.map((problem) => [problem.line, problem.message])).toEqual([[7, message]]);
  });
});
