/**
 * The README's tour on both emulator profiles, with the one set of manifests the repository ships
 * (issue 24, "one set of manifests for both server generations"): `stacksync run --embedded
 * --profile P` on a copy of `manifests/` and `examples/` applies every manifest on its first sync,
 * with no error and nothing held back; started again on the data it left, it finds every
 * resource in sync and writes nothing.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { startDaemon, waitUntil, type RunningDaemon } from '../helpers/daemon.js';
import { describeRun } from '../helpers/e2e.js';
import { cloneRepository, emulatorStats, type Workspace } from '../helpers/workspace.js';

/** The target a manifest goes to when it names none: the embedded config's default. */
const DEFAULT_TARGET = 'local';
/** A loaded two-core machine runs the pipes' settle waits of the current profile slowly. */
const RUN_MS = 150_000;

/** How many documents of `dir` go to each target, from the files themselves (adding an example needs no change here). */
async function manifestsPerTarget(dir: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const files = (await readdir(dir)).filter((file) => /\.ya?ml$/.test(file));
  for (const file of files) {
    for (const document of parseAllDocuments(await readFile(join(dir, file), 'utf8'))) {
      const manifest = document.toJS() as { metadata?: { target?: string } } | null;
      if (!manifest) continue;
      const target = manifest.metadata?.target ?? DEFAULT_TARGET;
      counts.set(target, (counts.get(target) ?? 0) + 1);
    }
  }
  return counts;
}

let workspace: Workspace | undefined;
let daemon: RunningDaemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  await workspace?.dispose();
  workspace = undefined;
});

describe.each(['seed', 'current'] as const)('the example manifests on the %s profile', (profile) => {
  it(
    'apply in full on the first sync, with no error; the next sync finds them in sync and writes nothing',
    async () => {
      workspace = await cloneRepository();
      const expected = await manifestsPerTarget(workspace.manifestsDir);
      expect([...expected.keys()].sort()).toEqual(['local', 'local-selfhosted']);
      const embedded = ['--embedded', '--profile', profile];

      const first = await workspace.run(['run', ...embedded, '--once', '--listen', '127.0.0.1:0'], {
        timeoutMs: RUN_MS,
      });
      const told = describeRun(first);
      expect(first.code, told).toBe(0);
      for (const [target, count] of expected) {
        expect(first.stdout, told).toMatch(
          new RegExp(`^\\[[\\d:]+\\] ${target}: initial sync applied ${count} changes? from the working tree:$`, 'm'),
        );
      }
      expect(first.stdout, told).not.toMatch(
        /; \d+ (failed|not applied)|result: (failed|skipped)|^\s+! error |errors? in the plan/m,
      );
      expect(first.stdout.match(/^Result: .*$/gm) ?? [], told).toEqual(
        [...expected.keys()].map(() =>
          expect.stringMatching(/ 0 failed, 0 skipped, 0 not applied, 0 waiting, \d+ unchanged\.$/),
        ),
      );

      // Again, as a daemon on the data the first run left: every resource in sync, no write.
      daemon = await startDaemon(workspace, embedded);
      const running = daemon;
      await waitUntil(() => running.output().stdout.includes('First sync done'), RUN_MS);
      const { stdout } = running.output();
      const again = `--- stdout\n${stdout}\n--- stderr\n${running.output().stderr}`;
      for (const [target, count] of expected)
        expect(stdout, again).toMatch(
          new RegExp(`^\\[[\\d:]+\\] ${target}: in sync \\(${count} resources, initial\\)$`, 'm'),
        );
      const emulator = /running against the built-in emulator at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
      if (emulator === undefined) throw new Error(`no emulator address in the banner\n${again}`);
      expect((await emulatorStats(emulator)).writes, again).toBe(0);
      const status = JSON.parse((await running.get('/status')).text) as {
        targets: Record<string, { resources: { kind: string; name: string; status: string }[] }>;
      };
      for (const [target, count] of expected) {
        const resources = status.targets[target]?.resources ?? [];
        expect(
          resources.filter((resource) => resource.status !== 'in_sync'),
          again,
        ).toEqual([]);
        expect(resources, again).toHaveLength(count);
      }
      expect((await running.stop()).code, again).toBe(0);
    },
    2 * RUN_MS + 30_000,
  );
});
