// Shared pieces of the benchmark: the built CLI as a measured child (wall time, peak RSS), the
// emulator as a child process on a free loopback port, its stats, the daemon, and small stats
// helpers. Everything is loopback only; every child is killed at the latest when its deadline passes.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { cpus, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SEED_IDS as IDS } from '../../dist/emulator/index.js';

/** Every child still running; killed if this process exits first (deadline, crash). */
const children = new Set();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

function track(child) {
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const REPORT_RSS = fileURLToPath(new URL('./report-rss.mjs', import.meta.url));

/** Credentials of the emulator's default seed, as the fixture config names them. */
export const CLI_ENV = { STACKSYNC_KEY_ID: IDS.keyId, STACKSYNC_KEY_SECRET: IDS.keySecret, STACKSYNC_TOKEN: IDS.token };

function childEnv(env) {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', ...CLI_ENV, ...env };
}

/**
 * Runs `stacksync ARGS` in `cwd` and resolves with its output, exit code, wall time (spawn to
 * exit, so process start is included), peak RSS in bytes and CPU time (user + system, ms).
 */
export async function runCli(cwd, args, { env = {}, timeoutMs = 300_000 } = {}) {
  const scratch = await mkdtemp(join(tmpdir(), 'stacksync-bench-rss-'));
  const rssFile = join(scratch, 'rss');
  const started = performance.now();
  const child = track(
    spawn(process.execPath, ['--import', REPORT_RSS, CLI, ...args], {
      cwd,
      env: childEnv({ ...env, BENCH_RSS_FILE: rssFile }),
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise((resolve) => child.on('close', (exitCode) => resolve(exitCode)));
  clearTimeout(timer);
  const wallMs = performance.now() - started;
  const [rssKb, cpuMicros] = (await readFile(rssFile, 'utf8').catch(() => 'NaN\nNaN')).split('\n').map(Number);
  await rm(scratch, { recursive: true, force: true });
  return { code, stdout, stderr, wallMs, rssBytes: rssKb * 1024, cpuMs: cpuMicros / 1000 };
}

/** Throws with the run's output when it did not exit as expected. */
export function expectExit(result, code, what) {
  if (result.code !== code)
    throw new Error(
      `${what}: exit ${result.code}, expected ${code}\n--- stdout\n${result.stdout.slice(-3000)}\n--- stderr\n${result.stderr.slice(-3000)}`,
    );
  return result;
}

/** The seconds an apply reports for one target's writes ("Apply local: … in 12.3s"). */
export function applySeconds(stderr, target) {
  const match = new RegExp(`Apply ${target}: .* in ([\\d.]+)s`).exec(stderr);
  return match ? Number(match[1]) : NaN;
}

/** A port free right now on 127.0.0.1. */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `stacksync emulator` in a child process (its own CPU and memory), seeded from a file. */
export async function startEmulatorChild({ seedFile, rateLimit, rateWindow, faults, extraArgs = [] } = {}) {
  const port = await freePort();
  const args = ['emulator', '--host', '127.0.0.1', '--port', String(port), '--log-level', 'silent', ...extraArgs];
  if (seedFile) args.push('--seed', seedFile);
  if (rateLimit) args.push('--rate-limit', String(rateLimit));
  if (rateWindow) args.push('--rate-window', rateWindow);
  if (faults) args.push('--faults', faults);
  const child = track(
    spawn(process.execPath, [CLI, ...args], { env: childEnv({}), stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (!output.includes('listening on')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`emulator did not start:\n${output}`);
    await delay(20);
  }
  return {
    url,
    pid: child.pid,
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export async function stats(url) {
  return (await fetch(`${url}/_emulator/stats`)).json();
}

export async function resetStats(url) {
  await fetch(`${url}/_emulator/reset`, { method: 'POST' });
}

export async function dump(url) {
  return (await fetch(`${url}/_emulator/dump`)).json();
}

/**
 * `stacksync run` in `cwd` with its HTTP endpoints on a free port; resolves once /healthz answers.
 * `nodeArgs` go to node itself (e.g. `--inspect=127.0.0.1:0`).
 */
export async function startDaemon(cwd, args = [], { env = {}, nodeArgs = [] } = {}) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = track(
    spawn(process.execPath, [...nodeArgs, CLI, 'run', '--listen', `127.0.0.1:${port}`, ...args], {
      cwd,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let output = '';
  child.stdout.on('data', (chunk) => (output = (output + chunk).slice(-20_000)));
  child.stderr.on('data', (chunk) => (output = (output + chunk).slice(-20_000)));
  const get = async (path) => {
    const response = await fetch(`${url}${path}`);
    return { status: response.status, text: await response.text() };
  };
  await waitUntil(async () => {
    if (child.exitCode !== null) throw new Error(`stacksync run exited ${child.exitCode}:\n${output}`);
    return (await get('/healthz').catch(() => ({ status: 0 }))).status === 200;
  }, 60_000);
  return {
    url,
    pid: child.pid,
    get,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** True when this build has the daemon (`stacksync run`). */
export async function hasDaemon(cwd) {
  const result = await runCli(cwd, ['run', '--help'], { timeoutMs: 30_000 });
  return result.code === 0 && result.stdout.includes('--listen');
}

export async function waitUntil(check, timeoutMs, everyMs = 25) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await delay(everyMs);
  }
}

/** Sum of a Prometheus sample family whose labels include all of `labels`. */
export function metricSum(text, name, labels = {}) {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    // Route labels hold braces, so the label set ends at the last '}'.
    const labelText = line.startsWith(`${name}{`) ? line.slice(name.length + 1, line.lastIndexOf('}')) : '';
    if (Object.entries(labels).every(([key, value]) => labelText.includes(`${key}="${value}"`)))
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * p) - 1))];
}

export function median(values) {
  return percentile(values, 0.5);
}

export const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
export const secs = (ms) => `${(ms / 1000).toFixed(2)} s`;

/** The machine the figures come from. */
export function machine() {
  const cpu = cpus();
  return {
    cpu: cpu[0]?.model?.trim() ?? 'unknown',
    cores: cpu.length,
    memory: `${(totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    date: new Date().toISOString().slice(0, 10),
  };
}
