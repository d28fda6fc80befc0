import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendStepSummary, githubBlobBase, gitTopLevel, markdownOptions } from '../../src/cli/plan-output.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stacksync-plan-output-'));
  await mkdir(join(dir, 'repo', '.git'), { recursive: true });
  await mkdir(join(dir, 'repo', 'deploy', 'manifests', 'team'), { recursive: true });
  await mkdir(join(dir, 'elsewhere', 'manifests'), { recursive: true });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const GITHUB = {
  GITHUB_SERVER_URL: 'https://github.com',
  GITHUB_REPOSITORY: 'acme/dashboards',
  GITHUB_SHA: 'f00dfeed',
};

describe('links of the markdown plan', () => {
  it('GitHub Actions names the commit the job checked out', () => {
    expect(githubBlobBase(GITHUB)).toBe('https://github.com/acme/dashboards/blob/f00dfeed/');
    expect(githubBlobBase({ ...GITHUB, GITHUB_SERVER_URL: 'https://ghe.example.com/' })).toBe(
      'https://ghe.example.com/acme/dashboards/blob/f00dfeed/',
    );
    expect(
      githubBlobBase({ GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'acme/dashboards' }),
    ).toBeUndefined();
  });

  it('finds the repository root above the manifests directory (a worktree has a .git file)', async () => {
    expect(gitTopLevel(join(dir, 'repo', 'deploy', 'manifests'))).toBe(join(dir, 'repo'));
    await writeFile(join(dir, 'elsewhere', '.git'), 'gitdir: /somewhere/else\n');
    expect(gitTopLevel(join(dir, 'elsewhere', 'manifests'))).toBe(join(dir, 'elsewhere'));
  });

  it('makes manifest paths relative to the repository root, whatever directory the job runs in', () => {
    const cwd = join(dir, 'repo', 'deploy');
    const options = markdownOptions('manifests', {}, GITHUB, cwd);
    expect(options.repoPath?.('manifests/team/a.yaml')).toBe('deploy/manifests/team/a.yaml');
    expect(options.linkBase).toBe('https://github.com/acme/dashboards/blob/f00dfeed/');
  });

  it('takes --link-base over the environment, adding the slash', () => {
    const options = markdownOptions(
      'manifests',
      { linkBase: 'https://git.example.com/x/-/blob/main', out: 'out/plan.json' },
      GITHUB,
      join(dir, 'repo', 'deploy'),
    );
    expect(options.linkBase).toBe('https://git.example.com/x/-/blob/main/');
    expect(options.fullPlan).toBe('in the saved plan `plan.json` (keep it as a build artifact)');
  });

  it('has no links outside GitHub Actions without --link-base', () => {
    expect(markdownOptions('manifests', {}, {}, join(dir, 'repo', 'deploy')).linkBase).toBeUndefined();
  });
});

describe('the job summary', () => {
  it('appends to $GITHUB_STEP_SUMMARY, and does nothing without it', async () => {
    const path = join(dir, 'summary.md');
    await writeFile(path, 'before\n');
    expect(await appendStepSummary({ GITHUB_STEP_SUMMARY: path }, '<!-- stacksync-plan -->\nplan')).toBeUndefined();
    expect(await readFile(path, 'utf8')).toBe('before\n<!-- stacksync-plan -->\nplan\n');
    expect(await appendStepSummary({}, 'plan')).toBeUndefined();
  });

  it('says why when the file cannot be written, without throwing', async () => {
    const problem = await appendStepSummary({ GITHUB_STEP_SUMMARY: join(dir, 'missing', 'dir', 'summary.md') }, 'plan');
    expect(problem).toMatch(/cannot append the plan to GITHUB_STEP_SUMMARY .*ENOENT/);
  });
});
