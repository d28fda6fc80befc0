/** Where a resource's manifest is, as the status page and `stacksync status` show it. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSourceLinker, lineUrl } from '../../src/daemon/source-links.js';
import type { StatusDocument } from '../../src/daemon/status.js';

function documentOf(files: { file?: string; line?: number }[], revision?: string): StatusDocument {
  const resources = files.map((where, index) => ({
    kind: 'Dashboard' as const,
    name: `d-${index}`,
    status: 'in_sync' as const,
    ...where,
  }));
  return {
    version: 1,
    generatedAt: '2026-11-26T10:00:00.000Z',
    ready: true,
    targets: { prod: { syncing: false, resources, ...(revision ? { revision } : {}) } },
  };
}

describe('source links', () => {
  let dir: string;
  beforeAll(async () => {
    // A git-sync checkout: the revision's directory is a worktree (`.git` is a file), manifests under it.
    dir = await mkdtemp(join(tmpdir(), 'stacksync-links-'));
    await mkdir(join(dir, 'rev-abc', 'deploy', 'manifests'), { recursive: true });
    await writeFile(join(dir, 'rev-abc', '.git'), 'gitdir: /git/repo/.git/worktrees/rev-abc\n');
    await mkdir(join(dir, 'plain', 'manifests'), { recursive: true });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("gives each manifest its path in the repository and a link to its line at the target's revision", () => {
    const link = createSourceLinker({ repositoryUrl: 'https://github.com/acme/dash/blob/{revision}/' });
    const linked = link(
      documentOf([{ file: join(dir, 'rev-abc', 'deploy', 'manifests', 'api (old).yaml'), line: 12 }, {}], 'abc123'),
    );
    expect(linked.targets['prod']?.resources).toEqual([
      expect.objectContaining({
        path: 'deploy/manifests/api (old).yaml',
        url: 'https://github.com/acme/dash/blob/abc123/deploy/manifests/api%20%28old%29.yaml#L12',
      }),
      { kind: 'Dashboard', name: 'd-1', status: 'in_sync' },
    ]);
  });

  it('shows a path outside any repository relative to the working directory, and links nothing without a repository URL', () => {
    const link = createSourceLinker({ cwd: join(dir, 'plain'), topLevel: () => undefined });
    const [resource] =
      link(documentOf([{ file: join(dir, 'plain', 'manifests', 'a.yaml'), line: 1 }])).targets['prod']?.resources ?? [];
    expect(resource).toMatchObject({ path: 'manifests/a.yaml' });
    expect(resource).not.toHaveProperty('url');
  });

  it('links to HEAD when the revision is not known, and adds the slash a base leaves out', () => {
    expect(lineUrl('https://git.example/r/-/blob/{revision}', undefined, 'm/a.yaml', 3)).toBe(
      'https://git.example/r/-/blob/HEAD/m/a.yaml#L3',
    );
    expect(lineUrl('https://git.example/r/src/', 'main', 'm/#1.yaml', undefined)).toBe(
      'https://git.example/r/src/m/%231.yaml',
    );
  });
});
