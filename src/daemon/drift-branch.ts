/**
 * `sync.drift: propose`: a drifted resource's live value, as new texts of manifest files, is
 * committed to a branch of the manifests' remote instead of being undone, and a pull request is
 * opened or updated for it (docs/daemon.md, "Drift proposed as a branch").
 *
 * The commit is built with git's plumbing in a bare clone of its own (no work tree, no hooks run,
 * the checkout git-sync owns is only read): the tree of the synced revision with the new texts laid
 * over it. One branch per target, updated in place: a new commit on the branch when the drift
 * changed, pushed with `--force-with-lease` against the tip read before, so a push never replaces
 * what someone else pushed meanwhile; nothing is pushed when the branch already holds those texts.
 * A token is sent as an HTTP header through `GIT_CONFIG_*` in the environment, never in a command
 * line, a URL or a log.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { isAbsolute, join, normalize, sep } from 'node:path';
import { StacksyncError } from '../errors.js';
import { githubHeaders } from '../notify/notifier.js';

/** Where and as whom a proposal is committed. */
export interface ProposeRequest {
  /** The manifests checkout the daemon synced (its `origin` is the default remote; it is only read). */
  checkout: string;
  /** Where to push; default the checkout's `origin`. */
  remote?: string;
  /** An https push credential. */
  token?: string;
  /** Where the clone of its own is kept (under the state's directory): one per target is made inside. */
  workDir: string;
  target: string;
  /** The branch the daemon syncs from: never pushed to, the pull request's base. */
  base: string;
  /** The proposal branch. */
  branch: string;
  /** The revision the daemon synced: the proposal is the tree of it with the new texts. */
  baseCommit: string;
  author: { name: string; email: string };
  /** Paths relative to the repository's root, `/`-separated. */
  files: readonly { path: string; after: string }[];
  /** The commit message (and the pull request's title: its first line). */
  message: string;
  /** The pull request's body. */
  body: string;
  /** Open or update a pull request (when `notify` has a `github` entry). */
  github?: GithubPullRequests;
  /** The git executable; default `git` on PATH. */
  git?: string;
  /** Environment git runs with (default `process.env`); the token's header is added to it. */
  env?: NodeJS.ProcessEnv;
}

/** The GitHub REST API a pull request is opened through, as `notify.github` configures it. */
export interface GithubPullRequests {
  /** Without a trailing `/` (https://api.github.com). */
  apiUrl: string;
  /** `owner/name`. */
  repository: string;
  token: string;
  timeoutMs: number;
  fetch?: typeof fetch;
}

export interface ProposeOutcome {
  branch: string;
  /** The branch's tip after the call. */
  commit: string;
  /** False when the branch already held exactly these texts. */
  pushed: boolean;
  pullRequest?: { number: number; url: string; action: 'opened' | 'updated' | 'unchanged' };
  /** The branch was pushed but its pull request could not be opened or updated: why. */
  pullRequestError?: string;
}

/** How long one git command may take (a clone of a large repository over a slow link included). */
export const PROPOSE_GIT_TIMEOUT_MS = 120_000;

/** Commits `files` over `baseCommit` to `branch` of the remote, and opens or updates its pull request. */
export async function proposeDrift(request: ProposeRequest): Promise<ProposeOutcome> {
  if (request.branch === request.base)
    throw proposeError(
      `the proposal branch ${request.branch} is the branch the daemon syncs from; it is never pushed to`,
    );
  const git = gitRunner(request);
  const checkedOut = (
    await git.run(['-C', request.checkout, 'symbolic-ref', '--quiet', '--short', 'HEAD'], { allowFail: true })
  ).trim();
  if (checkedOut !== '' && checkedOut === request.branch)
    throw proposeError(
      `the proposal branch ${request.branch} is the branch the manifests checkout is on; it is never pushed to`,
    );
  const remote = request.remote ?? (await git.run(['-C', request.checkout, 'remote', 'get-url', 'origin'])).trim();
  const paths = request.files.map((file) => repositoryPath(file.path));

  const repo = await ownClone(git, join(request.workDir, safeSegment(request.target)), remote);
  const at = (args: string[], options?: RunOptions): Promise<string> => git.run(['--git-dir', repo, ...args], options);
  // The synced revision, and the branch as the remote has it now (the lease: a push fails if it moved).
  const heads = await at(['ls-remote', '--heads', 'origin', `refs/heads/${request.branch}`]);
  const remoteTip = heads
    .split('\n')
    .find((line) => line.endsWith(`\trefs/heads/${request.branch}`))
    ?.split('\t')[0];
  await at([
    'fetch',
    '--quiet',
    '--no-tags',
    'origin',
    `+refs/heads/${request.base}:refs/stacksync/base`,
    ...(remoteTip ? [`+refs/heads/${request.branch}:refs/stacksync/branch`] : []),
  ]);
  if (!(await hasCommit(at, request.baseCommit)))
    await at(['fetch', '--quiet', '--no-tags', 'origin', request.baseCommit]);
  if (!(await hasCommit(at, request.baseCommit)))
    throw proposeError(`the remote has no commit ${request.baseCommit} (the synced revision)`);

  // The tree: the synced revision's, the new texts laid over it (a scratch index, no work tree).
  const index = join(repo, 'stacksync-index');
  await rm(index, { force: true });
  const withIndex = { env: { GIT_INDEX_FILE: index } };
  await at(['read-tree', request.baseCommit], withIndex);
  const scratch = await mkdtemp(join(repo, 'texts-'));
  try {
    for (const [i, file] of request.files.entries()) {
      const text = join(scratch, String(i));
      await writeFile(text, file.after, { mode: 0o600 });
      const blob = (await at(['hash-object', '-w', '--no-filters', text])).trim();
      const mode = (await at(['ls-tree', request.baseCommit, '--', paths[i] ?? ''])).split(' ')[0];
      await at(
        [
          'update-index',
          '--add',
          '--cacheinfo',
          `${mode === '100755' ? '100755' : '100644'},${blob},${paths[i] ?? ''}`,
        ],
        withIndex,
      );
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  const tree = (await at(['write-tree'], withIndex)).trim();
  await rm(index, { force: true });

  // The branch keeps its history while it stays on the synced revision: one commit per change of
  // the drift. A branch on an older revision (or someone else's) starts again from the synced one.
  const onBase =
    remoteTip !== undefined &&
    (await at(['merge-base', '--is-ancestor', request.baseCommit, remoteTip], { allowFail: true, status: true })) ===
      '0';
  if (remoteTip !== undefined && onBase && (await at(['rev-parse', `${remoteTip}^{tree}`])).trim() === tree) {
    return { branch: request.branch, commit: remoteTip, pushed: false, ...(await pullRequestOf(request)) };
  }
  const parent = onBase && remoteTip !== undefined ? remoteTip : request.baseCommit;
  const identity = {
    GIT_AUTHOR_NAME: request.author.name,
    GIT_AUTHOR_EMAIL: request.author.email,
    GIT_COMMITTER_NAME: request.author.name,
    GIT_COMMITTER_EMAIL: request.author.email,
  };
  const commit = (await at(['commit-tree', tree, '-p', parent, '-m', request.message], { env: identity })).trim();
  await at([
    'push',
    '--quiet',
    '--porcelain',
    `--force-with-lease=refs/heads/${request.branch}:${remoteTip ?? ''}`,
    'origin',
    `${commit}:refs/heads/${request.branch}`,
  ]);
  return { branch: request.branch, commit, pushed: true, ...(await pullRequestOf(request)) };
}

// ---------------------------------------------------------------- git

interface RunOptions {
  env?: NodeJS.ProcessEnv;
  /** Resolve with the output (or the exit status) instead of rejecting on a non-zero exit. */
  allowFail?: boolean;
  /** Resolve with the exit status as text instead of the output. */
  status?: boolean;
}

interface GitRunner {
  run(args: string[], options?: RunOptions): Promise<string>;
}

/**
 * git with no shell and no prompt. `safe.directory=*`: the daemon often runs as another user than
 * whoever made the checkout, and these commands run no hooks. The token, if any, travels in the
 * environment as an `http.extraHeader` (docs/daemon.md, "Drift proposed as a branch").
 */
function gitRunner(request: ProposeRequest): GitRunner {
  const base: NodeJS.ProcessEnv = {
    ...(request.env ?? process.env),
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
  };
  if (request.token !== undefined) {
    const count = Number(base.GIT_CONFIG_COUNT ?? 0) || 0;
    base.GIT_CONFIG_COUNT = String(count + 1);
    base[`GIT_CONFIG_KEY_${count}`] = 'http.extraHeader';
    base[`GIT_CONFIG_VALUE_${count}`] =
      `Authorization: Basic ${Buffer.from(`x-access-token:${request.token}`).toString('base64')}`;
  }
  const secrets =
    request.token === undefined
      ? []
      : [request.token, Buffer.from(`x-access-token:${request.token}`).toString('base64')];
  const mask = (text: string): string => secrets.reduce((masked, secret) => masked.split(secret).join('***'), text);
  return {
    run(args, options = {}) {
      const argv = ['-c', 'safe.directory=*', ...args];
      return new Promise((done, fail) => {
        execFile(
          request.git ?? 'git',
          argv,
          {
            env: { ...base, ...options.env },
            timeout: PROPOSE_GIT_TIMEOUT_MS,
            maxBuffer: 64 * 1024 * 1024,
            windowsHide: true,
          },
          (error, stdout, stderr) => {
            if (options.status) return done(String(error ? ((error as { code?: unknown }).code ?? 1) : 0));
            if (!error || options.allowFail) return done(String(stdout));
            fail(
              proposeError(
                `git ${args
                  .filter((arg) => !arg.startsWith('/'))
                  .slice(0, 3)
                  .join(' ')} failed: ${mask(String(stderr).trim() || error.message).slice(0, 1000)}`,
              ),
            );
          },
        );
      });
    },
  };
}

/** A bare repository of its own for the target, its `origin` set to `remote` (made on first use). */
async function ownClone(git: GitRunner, dir: string, remote: string): Promise<string> {
  const exists = await stat(join(dir, 'HEAD')).then(
    () => true,
    () => false,
  );
  if (!exists) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await git.run(['init', '--quiet', '--bare', dir]);
  }
  // Set afresh each time: the config's remote may have changed, or an earlier start stopped halfway.
  await git.run(['--git-dir', dir, 'remote', 'remove', 'origin'], { allowFail: true });
  await git.run(['--git-dir', dir, 'remote', 'add', 'origin', remote]);
  return dir;
}

async function hasCommit(
  at: (args: string[], options?: RunOptions) => Promise<string>,
  commit: string,
): Promise<boolean> {
  return (await at(['cat-file', '-e', `${commit}^{commit}`], { status: true })) === '0';
}

/** A path inside the repository, `/`-separated; one that leaves it is refused. */
function repositoryPath(path: string): string {
  const normal = normalize(path).split(sep).join('/');
  if (
    path === '' ||
    isAbsolute(path) ||
    normal === '..' ||
    normal.startsWith('../') ||
    normal.startsWith('.git/') ||
    normal === '.git'
  ) {
    throw proposeError(`${path} is not a path inside the repository`);
  }
  return normal;
}

/** A target's name as a directory name (target names are letters, digits, `.`, `_`, `-`). */
function safeSegment(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
}

function proposeError(message: string): StacksyncError {
  return new StacksyncError('E_PROPOSE_FAILED', message);
}

// ---------------------------------------------------------------- the pull request

/** Opens the branch's pull request, or updates its body, when GitHub is configured; never throws. */
async function pullRequestOf(
  request: ProposeRequest,
): Promise<Pick<ProposeOutcome, 'pullRequest' | 'pullRequestError'>> {
  const github = request.github;
  if (!github) return {};
  try {
    return { pullRequest: await openOrUpdate(github, request) };
  } catch (error) {
    return { pullRequestError: error instanceof Error ? error.message : String(error) };
  }
}

interface PullRequestEntry {
  number: number;
  html_url: string;
  body: string | null;
  title: string;
}

async function openOrUpdate(
  github: GithubPullRequests,
  request: ProposeRequest,
): Promise<NonNullable<ProposeOutcome['pullRequest']>> {
  const [owner] = github.repository.split('/');
  const title = request.message.split('\n')[0] ?? request.message;
  const base = `${github.apiUrl}/repos/${github.repository}/pulls`;
  const open = await call<PullRequestEntry[]>(
    github,
    'GET',
    `${base}?head=${encodeURIComponent(`${owner ?? ''}:${request.branch}`)}&state=open`,
  );
  const found = Array.isArray(open) ? open[0] : undefined;
  if (!found) {
    const made = await call<PullRequestEntry>(github, 'POST', base, {
      title,
      head: request.branch,
      base: request.base,
      body: request.body,
    });
    return { number: made.number, url: made.html_url, action: 'opened' };
  }
  if (found.body === request.body && found.title === title)
    return { number: found.number, url: found.html_url, action: 'unchanged' };
  await call<PullRequestEntry>(github, 'PATCH', `${base}/${found.number}`, { title, body: request.body });
  return { number: found.number, url: found.html_url, action: 'updated' };
}

/** One GitHub API call, with the headers and limits of notify's deliveries; no redirect followed. */
async function call<T>(github: GithubPullRequests, method: string, url: string, body?: unknown): Promise<T> {
  const response = await (github.fetch ?? fetch)(url, {
    method,
    headers: githubHeaders(github.token),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    redirect: 'manual',
    signal: AbortSignal.timeout(github.timeoutMs),
  });
  const text = await response.text();
  if (!response.ok)
    throw new StacksyncError(
      'E_PROPOSE_FAILED',
      `GitHub answered ${response.status} to ${method} ${new URL(url).pathname}`,
    );
  return JSON.parse(text) as T;
}
