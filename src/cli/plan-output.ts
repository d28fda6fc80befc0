/**
 * The I/O around the markdown plan: where manifest files are in the repository, what their links
 * point at, and GitHub's job summary file. The renderer itself (plan/render-markdown.ts) is pure.
 */
import { appendFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { Env } from '../config/paths.js';
import { gitTopLevel, repoPath } from '../support/git.js';
import { runSecrets } from '../support/redaction.js';
import type { MarkdownRenderOptions } from '../plan/render-markdown.js';

export interface MarkdownLinkFlags {
  /** `--link-base`: prefix of file links; wins over the GitHub Actions environment. */
  linkBase?: string;
  /** `--out`: the saved plan, named when the comment is cut short. */
  out?: string;
}

/**
 * Options for the markdown plan: paths relative to the git top level of the manifests directory
 * (so they match the repository whatever directory the job ran in), links to
 * `--link-base` or, in GitHub Actions, to the checked-out commit on the server
 * (`GITHUB_SERVER_URL/GITHUB_REPOSITORY/blob/GITHUB_SHA/`), and the saved plan's name.
 */
export function markdownOptions(
  manifestsDir: string,
  flags: MarkdownLinkFlags,
  env: Env,
  cwd = process.cwd(),
): MarkdownRenderOptions {
  const root = gitTopLevel(resolve(cwd, manifestsDir));
  const options: MarkdownRenderOptions = { repoPath: (file) => repoPath(root, resolve(cwd, file), file) };
  const linkBase = flags.linkBase ?? githubBlobBase(env);
  if (linkBase !== undefined) options.linkBase = linkBase.endsWith('/') ? linkBase : `${linkBase}/`;
  if (flags.out !== undefined)
    options.fullPlan = `in the saved plan ${'`'}${basename(flags.out)}${'`'} (keep it as a build artifact)`;
  return options;
}

/** `https://github.com/OWNER/REPO/blob/SHA/` when GitHub Actions' variables name all three. */
export function githubBlobBase(env: Env): string | undefined {
  const server = env['GITHUB_SERVER_URL'];
  const repository = env['GITHUB_REPOSITORY'];
  const sha = env['GITHUB_SHA'];
  if (!server || !repository || !sha) return undefined;
  return `${server.replace(/\/+$/, '')}/${repository}/blob/${sha}/`;
}

export { gitTopLevel } from '../support/git.js';

/**
 * Appends the markdown plan to `$GITHUB_STEP_SUMMARY` when set (GitHub shows it on the run's
 * page). Returns why it could not, for a warning: a missing summary never fails the plan.
 */
export async function appendStepSummary(env: Env, markdown: string): Promise<string | undefined> {
  const path = env['GITHUB_STEP_SUMMARY'];
  if (!path) return undefined;
  try {
    await appendFile(path, `${runSecrets.redact(markdown)}\n`);
    return undefined;
  } catch (error) {
    return `cannot append the plan to GITHUB_STEP_SUMMARY (${path}): ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
  }
}
