/**
 * examples/github-actions/stacksync.yml, its steps' scripts run for real with stand-ins for
 * stacksync and gh: the plan step's exit codes and the sticky PR comment. The state is no step's
 * business: the config keeps it in S3 (`state: { backend: s3 }`, config/ci.yaml), which stacksync
 * reads and locks itself (test/e2e/state-s3.test.ts runs that against a fake S3).
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { job, readWorkflow, ROOT, runner, step, type Runner } from './workflow.js';

const workflow = await readWorkflow('examples/github-actions/stacksync.yml');
const plan = job(workflow, 'plan');
const apply = job(workflow, 'apply');
const env = Object.fromEntries(Object.entries(workflow.env ?? {}).map(([key, value]) => [key, String(value)]));
const MARKER = '<!-- stacksync-plan -->';

function script(of: typeof plan, idOrName: string): string {
  const run = step(of, idOrName).run;
  if (!run) throw new Error(`step ${idOrName} has no run:`);
  return run;
}

let gha: Runner;
beforeEach(async () => {
  gha = await runner();
});
afterEach(async () => {
  await gha.dispose();
});

describe('jobs', () => {
  it('plans on pull requests from this repository, applies on main, never cancels an apply', () => {
    expect(Object.keys(workflow.on).sort()).toEqual(['pull_request', 'push']);
    expect(plan.if).toContain("github.event_name == 'pull_request'");
    expect(plan.if).toContain('github.event.pull_request.head.repo.full_name == github.repository');
    expect(apply.if).toContain('refs/heads/main');
    expect(apply.concurrency?.['cancel-in-progress']).toBe(false);
    expect(apply.environment).toBe('production');
    expect(script(apply, 'apply')).toMatch(/^stacksync apply/);
  });

  it('gives only the plan job the right to comment', () => {
    expect(plan.permissions?.['pull-requests']).toBe('write');
    expect(apply.permissions?.['pull-requests']).toBeUndefined();
    expect(workflow.permissions).toEqual({ contents: 'read' });
  });

  it('installs the same pinned release in both jobs', () => {
    expect(script(plan, 'Install stacksync')).toBe(script(apply, 'Install stacksync'));
    expect(script(plan, 'Install stacksync')).toContain('${STACKSYNC_VERSION}');
  });

  it('uploads the JSON plan as an artifact whatever the plan found', () => {
    const keep = step(plan, 'Keep the plan');
    expect(keep.uses).toMatch(/^actions\/upload-artifact@v\d+$/);
    expect(String(keep.with?.['path'])).toContain('stacksync-plan.json');
    expect(keep.if).toContain("steps.plan.outcome == 'failure'");
    expect(script(plan, 'plan')).toContain('--out stacksync-plan.json');
  });
});

// ---------------------------------------------------------------- the state

describe('the state', () => {
  const scripts = [...plan.steps, ...apply.steps].map((item) => item.run ?? '').join('\n');

  it('is moved by no step: stacksync reads and writes the bucket the config names', () => {
    expect(scripts).not.toMatch(/\baws\b|s3api|\.stacksync\//);
    expect(Object.keys(env)).toEqual(['STACKSYNC_VERSION']);
  });

  it('gives the plan job a role that reads the bucket and the apply job one that writes it', () => {
    const role = (of: typeof plan): unknown =>
      of.steps.find((item) => String(item.uses).startsWith('aws-actions/configure-aws-credentials@'))?.with?.[
        'role-to-assume'
      ];
    expect(role(plan)).toContain('STATE_READER_ROLE');
    expect(role(apply)).toContain('STATE_WRITER_ROLE');
    expect(plan.permissions?.['id-token']).toBe('write');
    expect(apply.permissions?.['id-token']).toBe('write');
  });

  it('has apply wait for the state lock while another stacksync holds it', () => {
    expect(script(apply, 'apply')).toMatch(/^stacksync apply --lock-timeout \S+/);
    expect(script(plan, 'plan')).not.toContain('--lock-timeout');
  });
});

// ---------------------------------------------------------------- plan and its comment

describe('the plan step', () => {
  const planScript = script(plan, 'plan');

  it.each([
    [0, 0, 'false'],
    [2, 0, 'true'],
    [1, 1, undefined],
  ])(
    'turns stacksync exit %i into step exit %i, keeping the Markdown plan for the comment',
    async (cliExit, stepExit, changes) => {
      expect(planScript).toContain('--output github --detailed-exitcode');
      // A stand-in that does what `plan --output github --out FILE` does with the runner's files.
      await gha.standIn(
        'stacksync',
        `#!/bin/sh\necho "plan output"\nprintf '%s\\n### stacksync plan\\n1 to create\\n' '${MARKER}' >> "$GITHUB_STEP_SUMMARY"\necho '{"version":1}' > stacksync-plan.json\nexit ${cliExit}\n`,
      );
      const run = await gha.run(planScript);
      expect(run.code).toBe(stepExit);
      expect(run.outputs['changes']).toBe(changes);
      expect(await readFile(join(gha.work, 'stacksync-plan.md'), 'utf8')).toContain('1 to create');
      expect(existsSync(join(gha.work, 'stacksync-plan.json'))).toBe(true);
    },
  );
});

describe('the plan comment', () => {
  const comment = script(plan, 'Comment the plan on the pull request');
  const stepEnv = {
    GH_TOKEN: 'token',
    PR_NUMBER: '7',
    RUN_URL: 'https://github.example/o/r/actions/runs/1',
    GITHUB_REPOSITORY: 'o/r',
  };

  async function post(
    planText: string | undefined,
    existingIds = '',
  ): Promise<{ method: string; path: string; body: string }[]> {
    await gha.nodeStandIn('gh', join(ROOT, 'test/workflows/stand-ins/gh.mjs'));
    const log = join(gha.temp, 'gh.log');
    await writeFile(log, '');
    if (planText !== undefined) await writeFile(join(gha.work, 'stacksync-plan.md'), planText);
    const run = await gha.run(comment, { ...stepEnv, FAKE_GH_LOG: log, FAKE_GH_COMMENT_IDS: existingIds });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    return (await readFile(log, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { method: string; path: string; body: string });
  }

  const count = (text: string, part: string): number => text.split(part).length - 1;

  it('posts a new comment, with the marker, when the pull request has none', async () => {
    const calls = await post(`${MARKER}\n### stacksync plan\n+ create Dashboard/api-latency\n`);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ method: 'POST', path: 'repos/o/r/issues/7/comments' });
    expect(calls[0]?.body).toContain('+ create Dashboard/api-latency');
    expect(calls[0]?.body).toContain(stepEnv.RUN_URL);
    expect(count(calls[0]?.body ?? '', MARKER)).toBe(1);
  });

  it('updates its own comment when there is one', async () => {
    const calls = await post(`${MARKER}\nno changes\n`, '42\n43');
    expect(calls).toEqual([expect.objectContaining({ method: 'PATCH', path: 'repos/o/r/issues/comments/42' })]);
  });

  it('adds the marker when the plan lacks it, so the next push still finds the comment', async () => {
    const calls = await post('### stacksync plan\nno changes\n');
    expect(calls[0]?.body.startsWith(`${MARKER}\n`)).toBe(true);
  });

  it('says so when there is no plan to show', async () => {
    const calls = await post(undefined);
    expect(calls[0]?.body).toContain(MARKER);
    expect(calls[0]?.body).toContain('failed before it could show a plan');
  });

  it('cuts a plan longer than a comment can hold, pointing to the artifact', async () => {
    const calls = await post(`${MARKER}\n${'~ update Dashboard/x\n'.repeat(5000)}`);
    expect(calls[0]?.body.length).toBeLessThan(65_536);
    expect(calls[0]?.body).toContain("all of it is in the run's artifact");
  });
});
