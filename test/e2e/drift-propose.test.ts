/**
 * Issue 36, "Done when", the daemon's half: `stacksync run` (the built CLI) with `sync.drift:
 * propose`, its manifests a checkout of a bare repository, a fake GitHub API on loopback as
 * `notify` github. A tile renamed and one resized in the console are not undone: one commit on
 * `stacksync/drift/<target>` of the bare repository changes only those lines, `/status` and
 * `stacksync status` say "drift proposed" with the branch, and a pull request is opened; a second
 * live edit is one more commit on the same branch and updates that pull request. Merged into the
 * branch the daemon syncs from and pulled into the checkout, the resource is in sync
 * (docs/daemon.md, "Drift proposed as a branch").
 */
import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { appendFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { StatusDocument } from '../../src/daemon/status.js';
import { stackOf, updateDashboardOutOfBand, type StackJson } from '../helpers/e2e.js';
import { startDaemon, waitUntil, type RunningDaemon } from '../helpers/daemon.js';
import { createWorkspace, startTestEmulator, type Workspace } from '../helpers/workspace.js';

const TARGET = 'local';
const BRANCH = `stacksync/drift/${TARGET}`;
/** Generous: two cores shared by many processes. */
const SLOW = 120_000;

const MANIFEST = [
  "# The web team's page; edits made in the console come back here for review.",
  'apiVersion: stacksync/v1',
  'kind: Dashboard',
  'metadata: { name: web }   # matched by name',
  'spec:',
  '  name: Web',
  '  tiles:',
  '    # the one people look at',
  '    - name: requests',
  '      x: 0',
  '      y: 0',
  '      w: 12',
  '      h: 4',
  '      series:',
  '        - { type: time, dataSource: events, aggFn: count, where: "tile:requests" }',
  '',
  '    - name: errors',
  '      x: 12',
  '      y: 0',
  '      w: 12',
  '      h: 4',
  '      series:',
  '        - { type: time, dataSource: events, aggFn: count, where: "level:error" }',
  '',
].join('\n');

/** MANIFEST with the first edit: `requests` resized to 6 wide, `errors` renamed `failures`. */
const FIRST = MANIFEST.replace(
  '    - name: requests\n      x: 0\n      y: 0\n      w: 12\n',
  '    - name: requests\n      x: 0\n      y: 0\n      w: 6\n',
).replace('    - name: errors\n', '    - name: failures\n');
/** FIRST with the second edit: `requests` made 6 high. */
const SECOND = FIRST.replace(
  '    - name: requests\n      x: 0\n      y: 0\n      w: 6\n      h: 4\n',
  '    - name: requests\n      x: 0\n      y: 0\n      w: 6\n      h: 6\n',
);

/** One per team, named with the target's variable: a live rename of it is a conflict, never written. */
const TEAM = [
  'apiVersion: stacksync/v1',
  'kind: Dashboard',
  'metadata: { name: team }',
  'spec:',
  '  name: "Team ${TEAM}"',
  '  tiles:',
  '    - name: load',
  '      x: 0',
  '      y: 0',
  '      w: 24',
  '      h: 4',
  '      series:',
  '        - { type: time, dataSource: events, aggFn: count, where: "team" }',
  '',
].join('\n');
const CONFLICT =
  'team.yaml:5: conflict: Dashboard team name is written with a variable, so it is not written; live: "Team billing"';

type Tile = Record<string, unknown> & { name: string };

function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    'git',
    ['-c', 'safe.directory=*', '-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args],
    { cwd, encoding: 'utf8' },
  ).trim();
}

/** A console edit: the dashboard as read, its tiles changed (and its name), put back whole. */
async function editLive(url: string, change: (tiles: Tile[]) => Tile[], name = 'Web', rename = name): Promise<void> {
  const live = (await stackOf(url, TARGET)).dashboards.find((dashboard) => dashboard.name === name) as
    | (StackJson & { tiles: Tile[]; tags?: string[] })
    | undefined;
  if (!live) throw new Error(`no live dashboard ${name}`);
  await updateDashboardOutOfBand(url, TARGET, live.id, {
    name: rename,
    tags: live.tags ?? [],
    tiles: change(live.tiles.map((tile) => ({ ...tile }))),
  } as never);
}

async function liveTiles(url: string): Promise<Tile[]> {
  const live = (await stackOf(url, TARGET)).dashboards.find((dashboard) => dashboard.name === 'Web') as
    | (StackJson & { tiles: Tile[] })
    | undefined;
  return live?.tiles ?? [];
}

interface Recorded {
  method: string;
  path: string;
  body: unknown;
}

describe('sync.drift: propose, end to end: a bare repository, stacksync run, a fake GitHub', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  let daemon: RunningDaemon;
  let github: Server;
  let remote: string;
  let main: string;
  const recorded: Recorded[] = [];
  const pulls: { number: number; head: string; base: string; title: string; body: string }[] = [];

  const readBody = async (req: IncomingMessage): Promise<unknown> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    return text === '' ? undefined : JSON.parse(text);
  };
  const status = async (): Promise<StatusDocument> => JSON.parse((await daemon.get('/status')).text) as StatusDocument;
  const web = async () =>
    (await status()).targets[TARGET]?.resources.find(
      (resource) => resource.kind === 'Dashboard' && resource.name === 'web',
    );
  const branchTip = (): string | undefined => {
    try {
      return git(remote, 'rev-parse', '--verify', '--quiet', `refs/heads/${BRANCH}`);
    } catch {
      return undefined;
    }
  };
  const commitsOnBranch = (): number => Number(git(remote, 'rev-list', '--count', `main..${BRANCH}`));

  beforeAll(async () => {
    // The fake GitHub: pull requests by head, and the commit statuses the github notifier sends.
    github = createServer((req, res) => {
      void (async () => {
        const body = await readBody(req);
        const url = new URL(req.url ?? '/', 'http://x');
        recorded.push({ method: req.method ?? '', path: url.pathname, body });
        const entry = (pull: (typeof pulls)[number]) => ({
          number: pull.number,
          html_url: `https://github.example/acme/manifests/pull/${pull.number}`,
          title: pull.title,
          body: pull.body,
        });
        res.setHeader('content-type', 'application/json');
        if (req.method === 'GET' && url.pathname === '/repos/acme/manifests/pulls') {
          res.end(
            JSON.stringify(pulls.filter((pull) => `acme:${pull.head}` === url.searchParams.get('head')).map(entry)),
          );
        } else if (req.method === 'POST' && url.pathname === '/repos/acme/manifests/pulls') {
          const made = {
            number: pulls.length + 1,
            ...(body as { head: string; base: string; title: string; body: string }),
          };
          pulls.push(made);
          res.writeHead(201).end(JSON.stringify(entry(made)));
        } else if (req.method === 'PATCH' && url.pathname.startsWith('/repos/acme/manifests/pulls/')) {
          const pull = pulls.find((candidate) => candidate.number === Number(url.pathname.split('/').pop()));
          if (!pull) return void res.writeHead(404).end('{}');
          Object.assign(pull, body);
          res.end(JSON.stringify(entry(pull)));
        } else if (req.method === 'POST' && url.pathname.startsWith('/repos/acme/manifests/statuses/')) {
          res.writeHead(201).end('{}');
        } else {
          res.writeHead(404).end('{}');
        }
      })();
    });
    await new Promise<void>((done) => github.listen(0, '127.0.0.1', done));
    const apiUrl = `http://127.0.0.1:${(github.address() as AddressInfo).port}`;

    emulator = await startTestEmulator();
    workspace = await createWorkspace(emulator.url, {
      rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
      sync: {
        drift: 'propose',
        interval: '2s',
        propose: { author: { name: 'stacksync bot', email: 'bot@example.com' }, base: 'main' },
      },
    });
    const config = await readFile(workspace.configPath, 'utf8');
    await writeFile(
      workspace.configPath,
      config.replace('  - name: local\n', '  - name: local\n    vars: { TEAM: payments }\n'),
    );
    await appendFile(
      workspace.configPath,
      `notify:\n  - provider: github\n    repository: acme/manifests\n    token: { fromEnv: GH_TOKEN }\n    apiUrl: ${apiUrl}\n`,
    );
    workspace.env['GH_TOKEN'] = 'gh-secret';

    // The remote, and the manifests directory a checkout of it (as git-sync keeps one).
    remote = join(workspace.dir, 'remote.git');
    git(workspace.dir, 'init', '-q', '--bare', '-b', 'main', remote);
    const seed = join(workspace.dir, 'seed');
    await mkdir(seed, { recursive: true });
    await writeFile(join(seed, 'web.yaml'), MANIFEST);
    await writeFile(join(seed, 'team.yaml'), TEAM);
    git(seed, 'init', '-q', '-b', 'main');
    git(seed, 'add', '.');
    git(seed, 'commit', '-q', '-m', 'the web dashboard');
    git(seed, 'push', '-q', remote, 'main');
    main = git(remote, 'rev-parse', 'main');
    await rm(workspace.manifestsDir, { recursive: true, force: true });
    git(workspace.dir, 'clone', '-q', `file://${remote}`, workspace.manifestsDir);

    daemon = await startDaemon(workspace);
    // From Git: created as heal would.
    await waitUntil(
      async () =>
        (await status()).targets[TARGET]?.resources.filter((resource) => resource.status === 'in_sync').length === 2,
      SLOW,
      250,
    );
  }, SLOW + 60_000);

  afterAll(async () => {
    await daemon?.stop();
    await workspace?.dispose();
    await emulator?.close();
    await new Promise((done) => github?.close(done));
  });

  it(
    'leaves a renamed and a resized tile live and pushes one commit that changes only those lines; a ${VAR} member is left out',
    async () => {
      await editLive(emulator.url, (tiles) => tiles, 'Team payments', 'Team billing');
      await editLive(emulator.url, ([requests, errors, ...rest]) => [
        { ...requests, w: 6 } as Tile,
        { ...errors, name: 'failures' } as Tile,
        ...rest,
      ]);
      await waitUntil(() => branchTip() !== undefined, SLOW, 250);
      // Written by the sync that found the drift, and no later sync adds to it: still one commit a few resyncs on.
      await waitUntil(async () => (await web())?.proposed === BRANCH, SLOW, 250);
      const proposedAt = (await status()).targets[TARGET]?.lastSyncAt ?? '';
      await waitUntil(async () => ((await status()).targets[TARGET]?.lastSyncAt ?? '') > proposedAt, SLOW, 250);
      expect(commitsOnBranch()).toBe(1);
      expect(git(remote, 'rev-parse', `${BRANCH}^`)).toBe(main);
      expect(git(remote, 'rev-parse', 'main')).toBe(main);
      expect(git(remote, 'show', `${BRANCH}:web.yaml`)).toBe(FIRST.trimEnd());
      // Only web.yaml: team.yaml keeps its variable.
      expect(git(remote, 'diff', '--numstat', 'main', BRANCH)).toBe('2\t2\tweb.yaml');
      expect(git(remote, 'show', `${BRANCH}:team.yaml`)).toBe(TEAM.trimEnd());
      expect(git(remote, 'log', '-1', '--format=%an <%ae>', BRANCH)).toBe('stacksync bot <bot@example.com>');

      // Not undone.
      expect((await liveTiles(emulator.url)).map((tile) => [tile.name, tile['w']])).toEqual([
        ['requests', 6],
        ['failures', 12],
      ]);
    },
    SLOW + 30_000,
  );

  it('/status and stacksync status say "drift proposed" with the branch; the fake GitHub saw one pull request opened', async () => {
    const target = (await status()).targets[TARGET];
    expect(target?.lastResult).toBe('success');
    expect(await web()).toMatchObject({ status: 'drifted', cause: 'live', proposed: BRANCH });
    expect(target?.proposal).toEqual({
      branch: BRANCH,
      commit: branchTip(),
      pullRequest: 'https://github.example/acme/manifests/pull/1',
      notPulled: [CONFLICT],
    });

    const shown = await workspace.run(['status', '--listen', daemon.url.replace('http://', '')]);
    expect(shown.stdout).toContain(`drift proposed on ${BRANCH}`);
    expect(shown.stdout).toContain('https://github.example/acme/manifests/pull/1');
    expect(shown.stdout).toContain(`not pulled: ${CONFLICT}`);

    const opened = recorded.filter((call) => call.method === 'POST' && call.path === '/repos/acme/manifests/pulls');
    expect(opened).toHaveLength(1);
    expect(opened[0]?.body).toMatchObject({ head: BRANCH, base: 'main' });
    expect(pulls).toHaveLength(1);
    expect(pulls[0]?.body).toContain('Dashboard/web');
    expect(pulls[0]?.body).toContain(`- ${CONFLICT}`);
  });

  it(
    'a second live edit is one more commit on the same branch, and updates the same pull request',
    async () => {
      const first = branchTip();
      await editLive(emulator.url, ([requests, ...rest]) => [{ ...requests, h: 6 } as Tile, ...rest]);
      await waitUntil(() => branchTip() !== first, SLOW, 250);
      await waitUntil(async () => (await status()).targets[TARGET]?.proposal?.commit === branchTip(), SLOW, 250);
      expect(commitsOnBranch()).toBe(2);
      expect(git(remote, 'rev-parse', `${BRANCH}^`)).toBe(first);
      expect(git(remote, 'show', `${BRANCH}:web.yaml`)).toBe(SECOND.trimEnd());
      expect(git(remote, 'diff', '--numstat', `${first}`, BRANCH)).toBe('1\t1\tweb.yaml');
      // The same pull request: never a second one opened; its body, which lists the members that
      // differ, now names one more, so it is updated (PATCH).
      expect(
        recorded.filter((call) => call.method === 'POST' && call.path === '/repos/acme/manifests/pulls'),
      ).toHaveLength(1);
      await waitUntil(
        () => recorded.some((call) => call.method === 'PATCH' && call.path === '/repos/acme/manifests/pulls/1'),
        SLOW,
        250,
      );
      expect(pulls).toHaveLength(1);
      expect(pulls[0]?.body, pulls[0]?.body).toContain('tiles[requests].h');
      expect((await liveTiles(emulator.url)).map((tile) => [tile.name, tile['w'], tile['h']])).toEqual([
        ['requests', 6, 6],
        ['failures', 12, 4],
      ]);
    },
    SLOW + 30_000,
  );

  it(
    'merged into main and pulled into the checkout, the resource is in sync: no drift, plan exits 0',
    async () => {
      // The conflict is a person's to settle: here, by undoing the rename in the console.
      await editLive(emulator.url, (tiles) => tiles, 'Team billing', 'Team payments');
      // Merged as GitHub would, in a clone of its own, and pushed; the checkout pulls it as git-sync would.
      const merger = join(workspace.dir, 'merger');
      git(workspace.dir, 'clone', '-q', `file://${remote}`, merger);
      git(merger, 'merge', '-q', '--no-ff', '-m', 'Merge the live edits', `origin/${BRANCH}`);
      git(merger, 'push', '-q', 'origin', 'main');
      git(workspace.manifestsDir, 'pull', '-q', '--ff-only', 'origin', 'main');

      await waitUntil(
        async () => {
          const target = (await status()).targets[TARGET];
          return (
            target?.revision !== undefined &&
            git(workspace.manifestsDir, 'rev-parse', 'HEAD').startsWith(target.revision) &&
            target.resources.find((resource) => resource.name === 'web')?.status === 'in_sync'
          );
        },
        SLOW,
        250,
      );
      const target = (await status()).targets[TARGET];
      expect(target?.resources.filter((resource) => resource.status === 'drifted')).toEqual([]);
      expect(target?.proposal).toBeUndefined();
      const shown = await workspace.run(['status', '--listen', daemon.url.replace('http://', '')]);
      expect(shown.stdout).not.toContain('drift proposed');

      const plan = await workspace.run(['plan', '--detailed-exitcode', '--target', TARGET]);
      expect(plan.code, plan.stdout + plan.stderr).toBe(0);
      // The live edits stayed what they were: nothing undid them on the way.
      expect((await liveTiles(emulator.url)).map((tile) => [tile.name, tile['w'], tile['h']])).toEqual([
        ['requests', 6, 6],
        ['failures', 12, 4],
      ]);
    },
    SLOW + 30_000,
  );
});

describe('sync.drift: propose, when nothing can be proposed: manifests that are no git checkout', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  let daemon: RunningDaemon;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    workspace = await createWorkspace(emulator.url, {
      rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
      sync: {
        drift: 'propose',
        interval: '2s',
        propose: { author: { name: 'stacksync bot', email: 'bot@example.com' }, base: 'main' },
      },
    });
    await workspace.write('manifests/web.yaml', MANIFEST);
    const applied = await workspace.run(['apply', '--target', TARGET]);
    expect(applied.code, applied.stderr).toBe(0);
    await editLive(emulator.url, ([requests, ...rest]) => [{ ...requests, w: 6 } as Tile, ...rest]);
    daemon = await startDaemon(workspace);
  }, SLOW);

  afterAll(async () => {
    await daemon?.stop();
    await workspace?.dispose();
    await emulator?.close();
  });

  it('reports the drift with E_PROPOSE_UNAVAILABLE and why, as report would, and leaves the edit live', async () => {
    type Target = StatusDocument['targets'][string];
    let target: Target | undefined;
    await waitUntil(
      async () => {
        target = (JSON.parse((await daemon.get('/status')).text) as StatusDocument).targets[TARGET];
        return target?.proposal !== undefined;
      },
      SLOW,
      250,
    );
    expect(target?.lastResult).toBe('success');
    expect(target?.proposal).toEqual({
      branch: BRANCH,
      code: 'E_PROPOSE_UNAVAILABLE',
      error: expect.stringMatching(/^the manifests directory is not a git checkout/),
    });
    expect(target?.resources.find((resource) => resource.name === 'web')).toMatchObject({
      status: 'drifted',
      cause: 'live',
    });
    expect(target?.resources.find((resource) => resource.name === 'web')).not.toHaveProperty('proposed');
    expect((await liveTiles(emulator.url)).map((tile) => tile['w'])).toEqual([6, 12]);
  });
});
