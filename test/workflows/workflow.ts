/**
 * Helpers for the workflow tests: read a workflow file, and run one step's `run:` script for real,
 * the way GitHub's runner does (`bash --noprofile --norc -eo pipefail`), with stand-in commands
 * first on PATH and the runner's files (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP) in a temp
 * directory. The scripts' own logic is what is under test; the stand-ins only answer.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Step {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}

export interface Job {
  if?: string;
  needs?: string | string[];
  permissions?: Record<string, string>;
  concurrency?: { group?: string; 'cancel-in-progress'?: boolean };
  environment?: string;
  strategy?: { matrix?: Record<string, unknown[]> };
  outputs?: Record<string, string>;
  steps: Step[];
}

export interface Workflow {
  on: Record<string, unknown>;
  permissions?: Record<string, string>;
  env?: Record<string, string | number>;
  jobs: Record<string, Job>;
}

export async function readWorkflow(path: string): Promise<Workflow> {
  return parse(await readFile(join(ROOT, path), 'utf8')) as Workflow;
}

export function job(workflow: Workflow, name: string): Job {
  const found = workflow.jobs[name];
  if (!found) throw new Error(`no job ${name}`);
  return found;
}

/** The step of `job` with this id or name. */
export function step(of: Job, idOrName: string): Step {
  const found = of.steps.find((item) => item.id === idOrName || item.name === idOrName);
  if (!found) throw new Error(`no step ${idOrName}`);
  return found;
}

export interface Runner {
  /** The step's working directory (the checkout). */
  work: string;
  /** RUNNER_TEMP. */
  temp: string;
  /** Where stand-ins go; first on PATH. */
  bin: string;
  /** Writes an executable stand-in named `name` into `bin`. */
  standIn(name: string, script: string): Promise<void>;
  /** A Node script as a stand-in: `node <file> "$@"`. */
  nodeStandIn(name: string, file: string): Promise<void>;
  run(script: string, env?: Record<string, string>): Promise<StepRun>;
  dispose(): Promise<void>;
}

export interface StepRun {
  code: number;
  stdout: string;
  stderr: string;
  /** What the step wrote to GITHUB_OUTPUT, as key → value. */
  outputs: Record<string, string>;
  /** What it wrote to GITHUB_STEP_SUMMARY. */
  summary: string;
}

export async function runner(): Promise<Runner> {
  const base = await mkdtemp(join(tmpdir(), 'stacksync-gha-'));
  const [work, temp, bin] = [join(base, 'work'), join(base, 'temp'), join(base, 'bin')];
  await Promise.all([work, temp, bin].map((dir) => mkdir(dir)));
  let runs = 0;
  const standIn = async (name: string, script: string): Promise<void> => {
    await writeFile(join(bin, name), script);
    await chmod(join(bin, name), 0o755);
  };
  return {
    work,
    temp,
    bin,
    standIn,
    nodeStandIn: (name, file) => standIn(name, `#!/bin/sh\nexec "${process.execPath}" "${file}" "$@"\n`),
    async run(script, env = {}) {
      const files = { output: join(base, `output-${runs}`), summary: join(base, `summary-${runs}`) };
      runs++;
      await Promise.all([writeFile(files.output, ''), writeFile(files.summary, '')]);
      const fullEnv = {
        PATH: `${bin}:/usr/bin:/bin`,
        HOME: base,
        STACKSYNC_BUDGET_FILE: 'off',
        GITHUB_OUTPUT: files.output,
        GITHUB_STEP_SUMMARY: files.summary,
        RUNNER_TEMP: temp,
        ...env,
      };
      const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
        (resolve) => {
          execFile(
            'bash',
            ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script],
            { cwd: work, env: fullEnv },
            (error, out, err) => {
              resolve({
                code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
                stdout: out,
                stderr: err,
              });
            },
          );
        },
      );
      const outputs = Object.fromEntries(
        (await readFile(files.output, 'utf8'))
          .split('\n')
          .filter((line) => line.includes('='))
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      );
      return { code, stdout, stderr, outputs, summary: await readFile(files.summary, 'utf8') };
    },
    dispose: () => rm(base, { recursive: true, force: true }),
  };
}
