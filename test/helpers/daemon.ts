/**
 * `stacksync run` as a child process in a workspace, with its HTTP endpoints (`/metrics`,
 * `/status`, `/healthz`) on a free loopback port, its output captured, and a clean stop.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { Workspace } from './workspace.js';

export interface RunningDaemon {
  /** `http://127.0.0.1:PORT` of its HTTP endpoints. */
  url: string;
  child: ChildProcess;
  /** Everything it printed so far. */
  output(): { stdout: string; stderr: string };
  get(path: string): Promise<{ status: number; text: string }>;
  /** SIGTERM, then waits for the exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A port free right now on 127.0.0.1 (the daemon binds it a moment later). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Starts `stacksync run ARGS --listen 127.0.0.1:PORT` and waits until `/healthz` answers. */
export async function startDaemon(
  workspace: Workspace,
  args: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<RunningDaemon> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = workspace.spawn(['run', '--listen', `127.0.0.1:${port}`, ...args], { env });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const get = async (path: string): Promise<{ status: number; text: string }> => {
    const response = await fetch(`${url}${path}`);
    return { status: response.status, text: await response.text() };
  };
  const daemon: RunningDaemon = {
    url,
    child,
    output: () => ({ stdout, stderr }),
    get,
    async stop(graceMs = 15_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
  await waitUntil(async () => {
    if (child.exitCode !== null) throw new Error(`stacksync run exited ${child.exitCode}\n${stdout}\n${stderr}`);
    return (await get('/healthz').catch(() => ({ status: 0 }))).status === 200;
  }, 20_000);
  return daemon;
}

/** Polls `check` until it is true; throws after `timeoutMs`. */
export async function waitUntil(
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await delay(everyMs);
  }
}

/** Sum of a Prometheus counter's samples whose labels include all of `labels`. */
export function metricSum(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    // Route labels hold braces (`/stack/{id}`), so the label set ends at the last '}'.
    const labelText = line.startsWith(`${name}{`) ? line.slice(name.length + 1, line.lastIndexOf('}')) : '';
    const has = Object.entries(labels).every(([key, value]) => labelText.includes(`${key}="${value}"`));
    if (has) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}
