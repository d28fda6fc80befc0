/**
 * `sync.drift: propose`'s git and GitHub side against a real bare repository (the remote) with a
 * checkout cloned from it (the manifests directory git-sync would keep), and a fake GitHub API on
 * loopback that records what it is asked.
 */
import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proposeDrift, type ProposeRequest } from '../../src/daemon/drift-branch.js';

let root: string;
let remote: string;
let checkout: string;
let base: string;

function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    'git',
    ['-c', 'safe.directory=*', '-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args],
    { cwd, encoding: 'utf8' },
  ).trim();
}

const DASHBOARD =
  'apiVersion: stacksync/v1\nkind: Dashboard\nmetadata:\n  name: web # the team page\nspec:\n  name: Web\n';
const OTHER = 'apiVersion: stacksync/v1\nkind: Dashboard\nmetadata:\n  name: api\nspec:\n  name: API\n';

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'stacksync-propose-'));
  remote = join(root, 'remote.git');
  git(root, 'init', '-q', '--bare', '-b', 'main', remote);
  const seed = join(root, 'seed');
  await mkdir(join(seed, 'manifests'), { recursive: true });
  await writeFile(join(seed, 'manifests', 'web.yaml'), DASHBOARD);
  await writeFile(join(seed, 'manifests', 'api.yaml'), OTHER);
  git(seed, 'init', '-q', '-b', 'main');
  git(seed, 'add', '.');
  git(seed, 'commit', '-q', '-m', 'manifests');
  git(seed, 'push', '-q', remote, 'main');
  checkout = join(root, 'checkout');
  git(root, 'clone', '-q', `file://${remote}`, checkout);
  base = git(checkout, 'rev-parse', 'HEAD');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function request(overrides: Partial<ProposeRequest> = {}): ProposeRequest {
  return {
    checkout,
    workDir: join(root, 'state', 'propose'),
    target: 'prod',
    base: 'main',
    branch: 'stacksync/drift/prod',
    baseCommit: base,
    author: { name: 'stacksync bot', email: 'bot@example.com' },
    files: [{ path: 'manifests/web.yaml', after: DASHBOARD.replace('name: Web', 'name: Web (renamed live)') }],
    message: 'Drift of target prod: Dashboard/web',
    body: 'Dashboard/web: name',
    ...overrides,
  };
}

const show = (ref: string, path: string): string => git(remote, 'show', `${ref}:${path}`);
const count = (ref: string): number => Number(git(remote, 'rev-list', '--count', ref));

describe('proposeDrift against a bare repository', () => {
  it('commits the texts on stacksync/drift/<target> over the synced revision, leaves main alone, and adds one commit per change of the drift', async () => {
    const first = await proposeDrift(request());
    expect(first).toMatchObject({ branch: 'stacksync/drift/prod', pushed: true });
    expect(git(remote, 'rev-parse', 'refs/heads/stacksync/drift/prod')).toBe(first.commit);
    expect(git(remote, 'rev-parse', 'refs/heads/main')).toBe(base);
    expect(git(remote, 'rev-parse', `${first.commit}^`)).toBe(base);
    expect(show('stacksync/drift/prod', 'manifests/web.yaml')).toBe(
      DASHBOARD.replace('name: Web', 'name: Web (renamed live)').trimEnd(),
    );
    expect(show('stacksync/drift/prod', 'manifests/api.yaml')).toBe(OTHER.trimEnd());
    expect(git(remote, 'log', '-1', '--format=%an <%ae>|%cn <%ce>|%s', first.commit)).toBe(
      'stacksync bot <bot@example.com>|stacksync bot <bot@example.com>|Drift of target prod: Dashboard/web',
    );

    // The same texts again: nothing pushed, the branch as it was.
    const same = await proposeDrift(request());
    expect(same).toMatchObject({ pushed: false, commit: first.commit });
    expect(count('stacksync/drift/prod')).toBe(2);

    // The drift changed: one more commit on the same branch (not amended), with the new texts only.
    const second = await proposeDrift(
      request({ files: [{ path: 'manifests/api.yaml', after: OTHER.replace('name: API', 'name: API v2') }] }),
    );
    expect(second.pushed).toBe(true);
    expect(git(remote, 'rev-parse', `${second.commit}^`)).toBe(first.commit);
    expect(count('stacksync/drift/prod')).toBe(3);
    expect(show('stacksync/drift/prod', 'manifests/web.yaml')).toBe(DASHBOARD.trimEnd());
    expect(show('stacksync/drift/prod', 'manifests/api.yaml')).toBe(
      OTHER.replace('name: API', 'name: API v2').trimEnd(),
    );
    expect(git(remote, 'rev-parse', 'refs/heads/main')).toBe(base);
    // The checkout git-sync owns is only read.
    expect(git(checkout, 'status', '--porcelain')).toBe('');
    expect(git(checkout, 'branch', '--list')).toBe('* main');
  });

  it('refuses the branch it syncs from, and a path outside the repository, pushing nothing', async () => {
    const before = git(remote, 'for-each-ref', '--format=%(refname) %(objectname)');
    await expect(proposeDrift(request({ target: 'main', branch: 'main' }))).rejects.toMatchObject({
      code: 'E_PROPOSE_FAILED',
    });
    await expect(
      proposeDrift(
        request({ target: 'x', branch: 'stacksync/drift/x', files: [{ path: '../outside.yaml', after: 'x' }] }),
      ),
    ).rejects.toMatchObject({ code: 'E_PROPOSE_FAILED' });
    expect(git(remote, 'for-each-ref', '--format=%(refname) %(objectname)')).toBe(before);
  });

  it('hands git the token in its environment as an http.extraHeader, never on a command line', async () => {
    const wrapper = join(root, 'git-wrapper.sh');
    const argv = join(root, 'argv.log');
    const env = join(root, 'env.log');
    await writeFile(
      wrapper,
      `#!/bin/sh\nprintf '%s\\n' "$*" >> "${argv}"\nenv | grep '^GIT_CONFIG_' >> "${env}"\nexec git "$@"\n`,
    );
    await chmod(wrapper, 0o700);
    const token = 'tok-secret-4711';
    const outcome = await proposeDrift(
      request({ target: 'token', branch: 'stacksync/drift/token', token, git: wrapper }),
    );
    expect(outcome.pushed).toBe(true);
    const commands = await readFile(argv, 'utf8');
    expect(commands).toMatch(/push/);
    expect(commands).not.toContain(token);
    expect(commands).not.toContain(Buffer.from(`x-access-token:${token}`).toString('base64'));
    const environment = await readFile(env, 'utf8');
    expect(environment).toContain('GIT_CONFIG_KEY_0=http.extraHeader');
    expect(environment).toContain(
      `GIT_CONFIG_VALUE_0=Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`,
    );
  });

  it('starts the branch again from a newer synced revision', async () => {
    const target = 'stage';
    const branch = 'stacksync/drift/stage';
    const first = await proposeDrift(request({ target, branch }));
    // A newer revision on main: the proposal is rebuilt on it (one commit over it).
    const work = join(root, 'work');
    git(root, 'clone', '-q', `file://${remote}`, work);
    await writeFile(join(work, 'manifests', 'new.yaml'), OTHER.replace('api', 'new'));
    git(work, 'add', '.');
    git(work, 'commit', '-q', '-m', 'newer');
    git(work, 'push', '-q', 'origin', 'main');
    const newer = git(work, 'rev-parse', 'HEAD');
    const rebuilt = await proposeDrift(request({ target, branch, baseCommit: newer }));
    expect(rebuilt.pushed).toBe(true);
    expect(git(remote, 'rev-parse', `${rebuilt.commit}^`)).toBe(newer);
    expect(rebuilt.commit).not.toBe(first.commit);
    expect(show(branch, 'manifests/new.yaml')).toBe(OTHER.replace('api', 'new').trimEnd());
  });
});

interface Recorded {
  method: string;
  url: string;
  authorization: string | undefined;
  body: unknown;
}

describe('the pull request, on a fake GitHub API', () => {
  let server: Server;
  let apiUrl: string;
  const recorded: Recorded[] = [];
  const pulls: { number: number; head: string; base: string; title: string; body: string; state: string }[] = [];

  const readBody = async (req: IncomingMessage): Promise<unknown> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    return text === '' ? undefined : JSON.parse(text);
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      void (async () => {
        const body = await readBody(req);
        const url = new URL(req.url ?? '/', 'http://x');
        recorded.push({
          method: req.method ?? '',
          url: `${url.pathname}${url.search}`,
          authorization: req.headers.authorization,
          body,
        });
        const entry = (pull: (typeof pulls)[number]) => ({
          number: pull.number,
          html_url: `https://github.example/acme/manifests/pull/${pull.number}`,
          title: pull.title,
          body: pull.body,
        });
        res.setHeader('content-type', 'application/json');
        if (req.method === 'GET' && url.pathname === '/repos/acme/manifests/pulls') {
          const head = url.searchParams.get('head');
          res.end(
            JSON.stringify(
              pulls
                .filter((pull) => `acme:${pull.head}` === head && pull.state === url.searchParams.get('state'))
                .map(entry),
            ),
          );
        } else if (req.method === 'POST' && url.pathname === '/repos/acme/manifests/pulls') {
          const made = {
            number: pulls.length + 1,
            state: 'open',
            ...(body as { head: string; base: string; title: string; body: string }),
          };
          pulls.push(made);
          res.statusCode = 201;
          res.end(JSON.stringify(entry(made)));
        } else if (req.method === 'PATCH' && url.pathname.startsWith('/repos/acme/manifests/pulls/')) {
          const pull = pulls.find((candidate) => candidate.number === Number(url.pathname.split('/').pop()));
          if (!pull) return void res.writeHead(404).end('{}');
          Object.assign(pull, body);
          res.end(JSON.stringify(entry(pull)));
        } else {
          res.writeHead(404).end('{}');
        }
      })();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((done) => server.close(done));
  });

  it('opens one pull request for the branch, then updates its body, and leaves it when nothing changed', async () => {
    const github = { apiUrl, repository: 'acme/manifests', token: 'gh-secret', timeoutMs: 5_000 };
    const target = 'pr';
    const branch = 'stacksync/drift/pr';
    const first = await proposeDrift(request({ target, branch, github }));
    expect(first.pullRequest).toEqual({
      number: 1,
      url: 'https://github.example/acme/manifests/pull/1',
      action: 'opened',
    });
    expect(pulls).toEqual([
      {
        number: 1,
        state: 'open',
        head: branch,
        base: 'main',
        title: 'Drift of target prod: Dashboard/web',
        body: 'Dashboard/web: name',
      },
    ]);

    const second = await proposeDrift(
      request({
        target,
        branch,
        github,
        body: 'Dashboard/web: name, tiles',
        files: [{ path: 'manifests/web.yaml', after: DASHBOARD.replace('Web', 'Web 2') }],
      }),
    );
    expect(second).toMatchObject({ pushed: true, pullRequest: { number: 1, action: 'updated' } });
    expect(pulls).toHaveLength(1);
    expect(pulls[0]?.body).toBe('Dashboard/web: name, tiles');

    const third = await proposeDrift(
      request({
        target,
        branch,
        github,
        body: 'Dashboard/web: name, tiles',
        files: [{ path: 'manifests/web.yaml', after: DASHBOARD.replace('Web', 'Web 2') }],
      }),
    );
    expect(third).toMatchObject({ pushed: false, pullRequest: { number: 1, action: 'unchanged' } });

    expect(recorded.map((call) => `${call.method} ${call.url}`)).toEqual([
      'GET /repos/acme/manifests/pulls?head=acme%3Astacksync%2Fdrift%2Fpr&state=open',
      'POST /repos/acme/manifests/pulls',
      'GET /repos/acme/manifests/pulls?head=acme%3Astacksync%2Fdrift%2Fpr&state=open',
      'PATCH /repos/acme/manifests/pulls/1',
      'GET /repos/acme/manifests/pulls?head=acme%3Astacksync%2Fdrift%2Fpr&state=open',
    ]);
    expect(recorded.every((call) => call.authorization === 'Bearer gh-secret')).toBe(true);
  });

  it('reports a pull request GitHub refused beside the pushed branch, without failing the push', async () => {
    const outcome = await proposeDrift(
      request({
        target: 'refused',
        branch: 'stacksync/drift/refused',
        github: { apiUrl, repository: 'acme/other', token: 't', timeoutMs: 5_000 },
      }),
    );
    expect(outcome.pushed).toBe(true);
    expect(outcome.pullRequest).toBeUndefined();
    expect(outcome.pullRequestError).toMatch(/GitHub answered 404 to GET \/repos\/acme\/other\/pulls/);
  });
});
