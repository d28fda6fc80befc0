/**
 * examples/github-actions/stacksync.yml, its steps' scripts run for real with stand-ins for
 * stacksync, the AWS CLI (over a directory playing the bucket) and gh: the plan step's exit codes,
 * the sticky PR comment, and above all the state: a fetch error is never taken for "no state yet",
 * and a save never puts an empty or older state over a good one.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
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

  it('fetches the state the same way in both jobs, and installs the same pinned release', () => {
    expect(script(plan, 'fetch')).toBe(script(apply, 'fetch'));
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

const STATE = '{"version":1,"targets":{"prod":{"inventory":{"Dashboard/api-latency":"d-1"}}}}\n';
const KEY = 'hmac-key-bytes\n';

interface Bucket {
  dir: string;
  log: string;
  env: Record<string, string>;
  put(key: string, text: string): Promise<void>;
  read(key: string): Promise<string | undefined>;
  calls(): Promise<string[]>;
}

async function bucket(): Promise<Bucket> {
  await gha.nodeStandIn('aws', join(ROOT, 'test/workflows/stand-ins/aws.mjs'));
  const s3 = join(gha.temp, '..', 's3');
  const dir = join(s3, env['STATE_BUCKET'] as string);
  await mkdir(dir, { recursive: true });
  const log = join(gha.temp, '..', 'aws.log');
  await writeFile(log, '');
  const pathOf = (key: string): string => join(dir, env['STATE_PREFIX'] as string, key);
  return {
    dir,
    log,
    env: { ...env, FAKE_S3_DIR: s3, FAKE_AWS_LOG: log },
    async put(key, text) {
      await mkdir(join(dir, env['STATE_PREFIX'] as string), { recursive: true });
      await writeFile(pathOf(key), text);
    },
    read: async (key) => (existsSync(pathOf(key)) ? readFile(pathOf(key), 'utf8') : undefined),
    calls: async () => (await readFile(log, 'utf8')).split('\n').filter(Boolean),
  };
}

const local = (file: string): string => join(gha.work, '.stacksync', file);
const md5 = (text: string): string => `"${createHash('md5').update(text).digest('hex')}"`;

describe('fetching the state', () => {
  const fetch = script(apply, 'fetch');

  it('fails, and leaves no state behind, when the bucket cannot be reached', async () => {
    const s3 = await bucket();
    await s3.put('state.json', STATE);
    await s3.put('state.key', KEY);
    const run = await gha.run(fetch, { ...s3.env, FAKE_AWS_FAIL: '1' });
    expect(run.code).not.toBe(0);
    expect(run.outputs['found']).toBeUndefined();
    expect(existsSync(local('state.json'))).toBe(false);
  });

  it('fails when the bucket does not exist: a wrong name is not "no state yet"', async () => {
    const s3 = await bucket();
    await rm(s3.dir, { recursive: true });
    const run = await gha.run(fetch, s3.env);
    expect(run.code).not.toBe(0);
    expect(run.outputs['found']).toBeUndefined();
  });

  it('takes only an empty listing as "no state yet"', async () => {
    const s3 = await bucket();
    const run = await gha.run(fetch, s3.env);
    expect(run.code).toBe(0);
    expect(run.outputs['found']).toBe('false');
    expect(run.stdout).toContain('::notice::No state');
    expect(existsSync(local('state.json'))).toBe(false);
  });

  it('fetches the state with its key, private, and remembers which version it got', async () => {
    const s3 = await bucket();
    await s3.put('state.json', STATE);
    await s3.put('state.key', KEY);
    const run = await gha.run(fetch, s3.env);
    expect(run.code).toBe(0);
    expect(run.outputs).toMatchObject({ found: 'true', etag: md5(STATE) });
    expect(await readFile(local('state.json'), 'utf8')).toBe(STATE);
    expect(await readFile(local('state.key'), 'utf8')).toBe(KEY);
    expect((await stat(local('state.key'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(gha.work, '.stacksync'))).mode & 0o777).toBe(0o700);
  });

  it.each(['state.key', 'state.json'])('refuses half a state (without %s)', async (missing) => {
    const s3 = await bucket();
    for (const [file, text] of [['state.json', STATE], ['state.key', KEY]] as const) if (file !== missing) await s3.put(file, text);
    const run = await gha.run(fetch, s3.env);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toContain('refusing to run on half a state');
  });
});

describe('saving the state', () => {
  const fetch = script(apply, 'fetch');
  const save = script(apply, 'Save the state');

  async function fetched(s3: Bucket): Promise<Record<string, string>> {
    const run = await gha.run(fetch, s3.env);
    expect(run.code).toBe(0);
    return { ...s3.env, FOUND: run.outputs['found'] ?? '', ETAG: run.outputs['etag'] ?? '' };
  }

  async function stored(s3: Bucket): Promise<Bucket> {
    await s3.put('state.json', STATE);
    await s3.put('state.key', KEY);
    return s3;
  }

  it('runs only after an apply that ran on a fetched state, also a failed or cancelled one', () => {
    const condition = step(apply, 'Save the state').if ?? '';
    expect(condition).toMatch(/^always\(\) && steps\.fetch\.outcome == 'success' && /);
    for (const outcome of ['success', 'failure', 'cancelled']) expect(condition).toContain(`steps.apply.outcome == '${outcome}'`);
    expect(condition).not.toContain('skipped');
  });

  it('replaces the stored state with what the apply recorded', async () => {
    const s3 = await stored(await bucket());
    const stepEnv = await fetched(s3);
    const after = STATE.replace('}}}}', '},"Alert/errors":"a-1"}}}');
    await writeFile(local('state.json'), after);
    const run = await gha.run(save, stepEnv);
    expect(run.code).toBe(0);
    expect(await s3.read('state.json')).toBe(after);
    expect(await s3.read('state.key')).toBe(KEY);
  });

  it('writes nothing when the apply changed nothing', async () => {
    const s3 = await stored(await bucket());
    const run = await gha.run(save, await fetched(s3));
    expect(run.code).toBe(0);
    expect((await s3.calls()).filter((call) => call.includes('put-object'))).toEqual([]);
  });

  it('never overwrites a state that changed since it was fetched', async () => {
    const s3 = await stored(await bucket());
    const stepEnv = await fetched(s3);
    const theirs = STATE.replace('d-1', 'd-2');
    await s3.put('state.json', theirs);
    await writeFile(local('state.json'), STATE.replace('d-1', 'd-3'));
    const run = await gha.run(save, stepEnv);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toContain('changed since this run fetched it');
    expect(await s3.read('state.json')).toBe(theirs);
  });

  it.each([
    ['missing', async () => rm(local('state.json'))],
    ['empty', async () => writeFile(local('state.json'), '')],
    ['without its key', async () => rm(local('state.key'))],
  ])('never uploads a local state that is %s', async (_name, damage) => {
    const s3 = await stored(await bucket());
    const stepEnv = await fetched(s3);
    await damage();
    const run = await gha.run(save, stepEnv);
    expect(run.code).not.toBe(0);
    expect(await s3.read('state.json')).toBe(STATE);
    expect(await s3.read('state.key')).toBe(KEY);
  });

  it('first run: stores the new state and key, or nothing when nothing was written', async () => {
    const s3 = await bucket();
    const stepEnv = await fetched(s3);
    expect(stepEnv['FOUND']).toBe('false');
    const nothing = await gha.run(save, stepEnv);
    expect(nothing.code).toBe(0);
    expect(await s3.read('state.json')).toBeUndefined();
    await writeFile(local('state.json'), STATE);
    await writeFile(local('state.key'), KEY);
    const run = await gha.run(save, stepEnv);
    expect(run.code).toBe(0);
    expect(await s3.read('state.json')).toBe(STATE);
    expect(await s3.read('state.key')).toBe(KEY);
  });

  it('first run: never replaces a state another run created meanwhile', async () => {
    const s3 = await bucket();
    const stepEnv = await fetched(s3);
    await s3.put('state.json', STATE);
    await s3.put('state.key', KEY);
    await writeFile(local('state.json'), '{"version":1,"targets":{}}\n');
    await writeFile(local('state.key'), 'another-key\n');
    const run = await gha.run(save, stepEnv);
    expect(run.code).not.toBe(0);
    expect(await s3.read('state.json')).toBe(STATE);
    expect(await s3.read('state.key')).toBe(KEY);
  });
});

// ---------------------------------------------------------------- plan and its comment

describe('the plan step', () => {
  const planScript = script(plan, 'plan');

  it.each([
    [0, 0, 'false'],
    [2, 0, 'true'],
    [1, 1, undefined],
  ])('turns stacksync exit %i into step exit %i, keeping the Markdown plan for the comment', async (cliExit, stepExit, changes) => {
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
  });
});

describe('the plan comment', () => {
  const comment = script(plan, 'Comment the plan on the pull request');
  const stepEnv = { GH_TOKEN: 'token', PR_NUMBER: '7', RUN_URL: 'https://github.example/o/r/actions/runs/1', GITHUB_REPOSITORY: 'o/r' };

  async function post(planText: string | undefined, existingIds = ''): Promise<{ method: string; path: string; body: string }[]> {
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
