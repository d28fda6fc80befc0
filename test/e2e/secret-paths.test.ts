/**
 * A relative `fromFile` means one file in every command (issue 15, item 6): relative to the
 * directory of the file that names it, as the file system resolves it. The manifests sit in a
 * git-sync checkout reached through a link, where `..` of the link's path and `..` of the
 * checkout differ; a different secret waits at each, so a command reading the other file sends
 * (or plans) a different value, which the state's HMAC shows.
 */
import { mkdir, realpath, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { DEFAULT_SEED_IDS } from '../../src/emulator/index.js';
import { describeRun, ROUTES, writesByRoute } from '../helpers/e2e.js';
import {
  createWorkspace,
  emulatorStats,
  resetEmulatorStats,
  startTestEmulator,
  type Workspace,
} from '../helpers/workspace.js';

const PIPE = (passwordPath: string): string => `apiVersion: stacksync/v1
kind: Pipe
metadata:
  name: orders-kafka
spec:
  pipeId: ${DEFAULT_SEED_IDS.pipes.kafka}
  source:
    kafka:
      credentials:
        username: { fromEnv: E2E_KAFKA_USER }
        password: { fromFile: ${passwordPath} }
`;

describe('a relative fromFile in a manifest reached through a git-sync link', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  const manifests = 'git/current';

  beforeAll(async () => {
    emulator = await startTestEmulator();
    workspace = await createWorkspace(emulator.url, { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    workspace.env['E2E_KAFKA_USER'] = 'kafka-user';
    // git/current → .worktrees/rev1: from the link, `..` is git/; from the checkout, git/.worktrees/.
    await workspace.write('git/.worktrees/rev1/pipes.yaml', PIPE('../kafka-password'));
    await workspace.write('git/.worktrees/kafka-password', 'next-to-the-checkout\n');
    await workspace.write('git/kafka-password', 'next-to-the-link\n');
    await mkdir(join(workspace.dir, 'git'), { recursive: true });
    await symlink('.worktrees/rev1', join(workspace.dir, 'git', 'current'));
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  it('is the same file for validate, plan, apply and run', async () => {
    const validate = await workspace.run(['validate', '-m', manifests]);
    expect(validate.code, describeRun(validate)).toBe(0);

    const apply = await workspace.run(['apply', '-m', manifests, '--target', 'local']);
    expect(apply.code, describeRun(apply)).toBe(0);
    expect(writesByRoute(await emulatorStats(emulator.url))[`PATCH ${ROUTES.managedPipe}`]).toBe(1);

    // Had plan or run read the other file, its HMAC would differ from the one apply recorded.
    const plan = await workspace.run(['plan', '-m', manifests, '--target', 'local', '--detailed-exitcode']);
    expect(plan.code, describeRun(plan)).toBe(0);
    await resetEmulatorStats(emulator.url);
    const run = await workspace.run(['run', '--once', '-m', manifests, '--log-level', 'warn']);
    expect(run.code, describeRun(run)).toBe(0);
    expect((await emulatorStats(emulator.url)).writes).toBe(0);
  });

  it('is the file next to the checkout: `..` as the file system resolves it from the manifest', async () => {
    await workspace.remove('git/.worktrees/kafka-password');
    // A manifest's secret that cannot be read is a warning naming the file it looked for (docs/secrets.md).
    const validate = await workspace.run(['validate', '-m', manifests]);
    expect(validate.code, describeRun(validate)).toBe(0);
    expect(validate.stdout).toContain(join(await realpath(join(workspace.dir, 'git', '.worktrees')), 'kafka-password'));
  });
});
