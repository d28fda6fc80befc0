/**
 * The daemon's side of `sync.drift: propose` (docs/daemon.md, "Drift proposed as a branch"): from
 * a sync's drifted changes to a commit on the target's proposal branch. The new manifest texts come
 * from the pull core through {@link PullDrift}, the one seam it plugs into (`DaemonOptions.pullDrift`);
 * without it nothing is proposed and the report says so (`E_PROPOSE_UNAVAILABLE`), never a
 * pretended proposal.
 */
import type { ProposalStatus } from './status.js';
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { proposalBranch } from '../config/propose.js';
import { resolveSecret } from '../config/secrets.js';
import { errorCodeOf, StacksyncError } from '../errors.js';
import type { Config, Target } from '../model/config.js';
import type { Change } from '../model/plan.js';
import type { ReconcileContext, RunPlan } from '../reconcile/reconcile.js';
import { notPulledLines, type PullResult } from '../pull/index.js';
import { proposeDrift, type GithubPullRequests } from './drift-branch.js';

/**
 * The pull core, as the daemon calls it: the new texts of the manifest files that hold `changes`
 * (drifted resources of `target`), computed from the manifests read from `context.manifestsDir`
 * and the live state of `run`, without writing anything, and what it could not pull (conflicts,
 * resources deleted live, errors), which the proposal names on its status and in its pull request.
 * Paths are absolute, or relative to `context.manifestsDir`.
 */
export type PullDrift = (input: {
  context: ReconcileContext;
  target: Target;
  run: RunPlan;
  changes: readonly Change[];
}) => Promise<PullResult>;

/** What one sync hands the proposer. */
export interface ProposalInput {
  context: ReconcileContext;
  run: RunPlan;
  /** The drifted changes: writes whose manifest is the one last applied. */
  changes: readonly Change[];
  /** The checkout the sync read (resolved), and the revision it is at, committed. */
  checkout: string;
  revision?: string;
  /** The files held uncommitted edits: they are no revision a branch can start from. */
  uncommitted: boolean;
}

export type DriftProposer = (input: ProposalInput) => Promise<ProposalStatus>;

/**
 * The proposer of one target, or undefined when the config does not propose. Secrets are read now,
 * so a missing token stops the start rather than the first proposal.
 */
export function createDriftProposer(
  config: Config,
  target: Target,
  options: { pull?: PullDrift; env: Readonly<Record<string, string | undefined>> },
): DriftProposer | undefined {
  const settings = config.sync.propose;
  if (config.sync.drift !== 'propose' || settings === undefined) return undefined;
  const branch = proposalBranch(settings.branch, target.name);
  const io = { env: options.env };
  const token = settings.token === undefined ? undefined : resolveSecret(settings.token, io);
  const github = githubOf(config, target.name, io);
  let scratch: Promise<string> | undefined;
  const workDir = (): Promise<string> => {
    if (config.state.backend === 'file') return Promise.resolve(join(dirname(config.state.path), 'propose'));
    scratch ??= mkdtemp(join(tmpdir(), 'stacksync-propose-'));
    return scratch;
  };
  const pull = options.pull;
  if (pull === undefined) {
    return () =>
      Promise.resolve({
        branch,
        code: 'E_PROPOSE_UNAVAILABLE',
        error:
          'proposing is unavailable: this daemon was started without the pull core that writes live values into manifests; drift is reported, not proposed',
      });
  }
  return async (input) => {
    // A branch starts from a commit: without one, retrying cannot help; drift is reported until there is one.
    if (input.revision === undefined || input.uncommitted) {
      return {
        branch,
        code: 'E_PROPOSE_UNAVAILABLE',
        error:
          input.revision === undefined
            ? 'the manifests directory is not a git checkout, so no branch can start from it; drift is reported, not proposed'
            : 'the manifests hold uncommitted edits, so no branch can start from what was synced; drift is reported until they are committed or undone',
      };
    }
    const outcome = await pull({
      context: { ...input.context, manifestsDir: input.checkout },
      target,
      run: input.run,
      changes: input.changes,
    });
    const changed = outcome.files.filter((file) => file.after !== file.before);
    const top = (await gitOutput(['-C', input.checkout, 'rev-parse', '--show-toplevel'])).trim();
    // Conflicts and deletions stay off the branch: named on the proposal and in its pull request.
    const notPulled = notPulledLines(inRepositoryTerms(outcome, top, input.checkout, input.context.manifests?.shownAs));
    const left = notPulled.length === 0 ? {} : { notPulled };
    // Nothing to commit (every member a conflict, say): shown, not a failure to retry; a person must look.
    if (changed.length === 0)
      return { branch, error: `nothing could be pulled into the manifests (${describeLeft(outcome)})`, ...left };
    const files = changed.map((file) => ({
      path: inRepository(top, isAbsolute(file.path) ? file.path : resolve(input.checkout, file.path)),
      after: file.after,
    }));
    const names = input.changes.map((change) => `${change.kind}/${change.name}`);
    const proposed = await proposeDrift({
      checkout: input.checkout,
      ...(settings.remote === undefined ? {} : { remote: settings.remote }),
      ...(token === undefined ? {} : { token }),
      workDir: await workDir(),
      target: target.name,
      base: settings.base,
      branch,
      baseCommit: input.revision,
      author: settings.author,
      files,
      message: `stacksync: live edits of target ${target.name} (${names.slice(0, 3).join(', ')}${names.length > 3 ? `, and ${names.length - 3} more` : ''})`,
      body: pullRequestBody(target.name, input.revision, input.changes, notPulled),
      ...(github === undefined ? {} : { github }),
    });
    return {
      branch,
      ...left,
      commit: proposed.commit,
      ...(proposed.pullRequest ? { pullRequest: proposed.pullRequest.url } : {}),
      ...(proposed.pullRequestError === undefined
        ? {}
        : {
            code: 'E_PROPOSE_FAILED' as const,
            error: `the branch is pushed, its pull request is not: ${proposed.pullRequestError}`,
          }),
    };
  };
}

/** The proposer of each target that has one; none for a dry run, which proposes nothing. */
export function createDriftProposers(
  config: Config,
  options: { dryRun: boolean; pull?: PullDrift; env: Readonly<Record<string, string | undefined>> },
): Map<string, DriftProposer> {
  const proposers = new Map<string, DriftProposer>();
  for (const target of options.dryRun ? [] : config.targets) {
    const proposer = createDriftProposer(config, target, {
      env: options.env,
      ...(options.pull ? { pull: options.pull } : {}),
    });
    if (proposer) proposers.set(target.name, proposer);
  }
  return proposers;
}

/** Runs a proposer; a failure is its report, with its code. */
export async function proposeOrReport(
  proposer: DriftProposer,
  input: ProposalInput,
  branch: string,
): Promise<ProposalStatus> {
  try {
    return await proposer(input);
  } catch (error) {
    return { branch, code: errorCodeOf(error), error: error instanceof Error ? error.message : String(error) };
  }
}

/** The first `notify` entry of provider github that wants this target: where the pull request goes. */
function githubOf(
  config: Config,
  target: string,
  io: { env: Readonly<Record<string, string | undefined>> },
): GithubPullRequests | undefined {
  const entry = (config.notify ?? []).find(
    (settings) =>
      settings.provider === 'github' && (settings.targets === undefined || settings.targets.includes(target)),
  );
  if (entry?.token === undefined || entry.repository === undefined) return undefined;
  return {
    apiUrl: entry.apiUrl ?? 'https://api.github.com',
    repository: entry.repository,
    token: resolveSecret(entry.token, io),
    timeoutMs: entry.timeoutMs,
  };
}

function inRepository(top: string, path: string): string {
  const inside = relative(top, path);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside))
    throw new StacksyncError('E_PROPOSE_FAILED', `${path} is not inside the repository at ${top}`);
  return inside.split(sep).join('/');
}

/**
 * The outcome with its files named from the repository's root: the pull names them where it read
 * them (the resolved checkout), a plan's problems as the manifests directory was given (`shownAs`).
 */
function inRepositoryTerms(
  outcome: PullResult,
  top: string,
  checkout: string,
  shownAs: string | undefined,
): PullResult {
  const name = (file: string): string => {
    const inside = (root: string): string | undefined => {
      const path = relative(root, file);
      return path === '' || path.startsWith('..') || isAbsolute(path) ? undefined : path;
    };
    const fromShown = shownAs === undefined ? undefined : inside(shownAs);
    const path = inside(top) ?? (fromShown === undefined ? undefined : relative(top, join(checkout, fromShown)));
    return path === undefined || path.startsWith('..') ? file : path.split(sep).join('/');
  };
  return {
    ...outcome,
    conflicts: outcome.conflicts.map((conflict) => ({ ...conflict, file: name(conflict.file) })),
    deleted: outcome.deleted.map((gone) => ({ ...gone, file: name(gone.file) })),
    errors: outcome.errors.map((error) => (error.file === undefined ? error : { ...error, file: name(error.file) })),
  };
}

function describeLeft(outcome: PullResult): string {
  return `${outcome.conflicts.length} conflicts, ${outcome.deleted.length} deleted live, ${outcome.errors.length} errors`;
}

/** The pull request's body: what drifted, from which revision, and what is left to a person. */
function pullRequestBody(
  target: string,
  revision: string,
  changes: readonly Change[],
  notPulled: readonly string[],
): string {
  const lines = [
    `Live edits of target \`${target}\`, made outside stacksync, written into the manifests of ${revision.slice(0, 12)}.`,
    '',
    'Merging this brings them into Git; until then stacksync leaves them as they are.',
    '',
  ];
  for (const change of changes)
    lines.push(`- ${change.kind}/${change.name}: ${change.diff.map((diff) => diff.path).join(', ') || 'changed'}`);
  if (notPulled.length > 0)
    lines.push('', 'Not pulled, for a person to settle:', '', ...notPulled.map((line) => `- ${line}`));
  return `${lines.join('\n')}\n`;
}

function gitOutput(args: string[]): Promise<string> {
  return new Promise((done, fail) => {
    execFile(
      'git',
      ['-c', 'safe.directory=*', ...args],
      { timeout: 10_000, windowsHide: true },
      (error, stdout, stderr) => {
        if (error)
          fail(
            new StacksyncError(
              'E_PROPOSE_FAILED',
              `git ${args.slice(2).join(' ')} failed: ${String(stderr).trim() || error.message}`,
            ),
          );
        else done(String(stdout));
      },
    );
  });
}
