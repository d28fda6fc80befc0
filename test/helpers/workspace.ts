/**
 * End-to-end harness: a real emulator on loopback, a temp workspace holding a config, manifests
 * and the state file, and the built CLI (`dist/cli.js`) run as a child process in it.
 * `npm test` builds first, so dist/ is current.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import {
  DEFAULT_SEED_IDS,
  startEmulator,
  type EmulatorOptions,
  type RunningEmulator,
} from '../../src/emulator/index.js';

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
/** The repository's root. */
export const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** Credentials of the emulator's default seed, as the env vars the workspace config names. */
export const DEFAULT_ENV: Readonly<Record<string, string>> = {
  STACKSYNC_KEY_ID: DEFAULT_SEED_IDS.keyId,
  STACKSYNC_KEY_SECRET: DEFAULT_SEED_IDS.keySecret,
  STACKSYNC_TOKEN: 'emulator-token',
};

export function startTestEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startEmulator({ logger: false, ...options });
}

export interface SharedEmulator {
  /** The file's emulator (started before its first test). */
  readonly emulator: RunningEmulator;
  /** A new workspace on it, or on `url`; disposed with the others after the file's last test. */
  workspace(options?: WorkspaceOptions, url?: string): Promise<Workspace>;
}

/**
 * One emulator for a test file and the workspaces its tests open on it: registers the hooks that
 * start it before the file's tests and close everything after them.
 */
export function sharedEmulator(options: EmulatorOptions = {}): SharedEmulator {
  let emulator: RunningEmulator | undefined;
  const workspaces: Workspace[] = [];
  beforeAll(async () => {
    emulator = await startTestEmulator(options);
  });
  afterAll(async () => {
    await Promise.all(workspaces.map((workspace) => workspace.dispose()));
    await emulator?.close();
  });
  return {
    get emulator() {
      if (!emulator) throw new Error('the emulator starts in beforeAll');
      return emulator;
    },
    async workspace(workspaceOptions = {}, url) {
      const workspace = await createWorkspace(url ?? this.emulator.url, workspaceOptions);
      workspaces.push(workspace);
      return workspace;
    },
  };
}

export interface WorkspaceOptions {
  /** Extra YAML under `sync:` (e.g. `{ prune: true, maxDeletes: 3 }`). */
  sync?: Record<string, unknown>;
  /** rateLimit for both targets, e.g. `{ requests: 1000, perSeconds: 1, concurrency: 4 }`. */
  rateLimit?: { requests: number; perSeconds: number; concurrency: number };
  /** `api.profile` of both targets; left out of the config when absent (the default, seed). */
  apiProfile?: 'seed' | 'current';
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Workspace {
  dir: string;
  manifestsDir: string;
  configPath: string;
  statePath: string;
  env: Record<string, string>;
  /** Writes a file relative to the workspace (parents created). */
  write(relativePath: string, text: string): Promise<void>;
  remove(relativePath: string): Promise<void>;
  /** Runs `stacksync ARGS` in the workspace; resolves when it exits. */
  run(args: readonly string[], options?: { env?: Record<string, string>; timeoutMs?: number }): Promise<CliResult>;
  /** Starts `stacksync ARGS` and returns the child, for signal tests. */
  spawn(args: readonly string[], options?: { env?: Record<string, string> }): ChildProcess;
  dispose(): Promise<void>;
}

/**
 * A workspace with `config/stacksync.yaml` naming two targets on `emulatorUrl`:
 * `local` (managed, the default seed's organization and service) and `local-selfhosted`.
 */
export async function createWorkspace(emulatorUrl: string, options: WorkspaceOptions = {}): Promise<Workspace> {
  const dir = await mkdtemp(join(tmpdir(), 'stacksync-e2e-'));
  const workspace = workspaceAt(dir, { ...DEFAULT_ENV });
  await mkdir(workspace.manifestsDir, { recursive: true });
  await mkdir(dirname(workspace.configPath), { recursive: true });
  await writeFile(workspace.configPath, configYaml(emulatorUrl, options, workspace.statePath));
  return workspace;
}

/**
 * A copy of the repository as a fresh clone has it, for the README's own commands: its
 * `manifests/`, `examples/` and `config/` (none of whose configs is at the default path, so
 * `stacksync run` starts the built-in emulator), optionally committed to a new git repository.
 */
export async function cloneRepository(options: { git?: boolean } = {}): Promise<Workspace> {
  const dir = await mkdtemp(join(tmpdir(), 'stacksync-clone-'));
  for (const part of ['manifests', 'examples', 'config'])
    await cp(join(REPO, part), join(dir, part), { recursive: true });
  if (options.git) {
    const git = (...args: string[]): string =>
      execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], {
        cwd: dir,
        encoding: 'utf8',
      });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'a fresh clone');
  }
  return workspaceAt(dir);
}

/** A workspace over `dir` at the default paths (`manifests/`, `config/stacksync.yaml`, `.stacksync/state.json`), whatever they hold. */
function workspaceAt(dir: string, env: Record<string, string> = {}): Workspace {
  const workspace: Workspace = {
    dir,
    manifestsDir: join(dir, 'manifests'),
    configPath: join(dir, 'config', 'stacksync.yaml'),
    statePath: join(dir, '.stacksync', 'state.json'),
    env,
    async write(relativePath, text) {
      const path = join(dir, relativePath);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text);
    },
    async remove(relativePath) {
      await rm(join(dir, relativePath), { force: true, recursive: true });
    },
    run: (args, runOptions = {}) => runCli(dir, args, { ...env, ...runOptions.env }, runOptions.timeoutMs ?? 60_000),
    spawn: (args, spawnOptions = {}) => spawnCli(dir, args, { ...env, ...spawnOptions.env }),
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
  return workspace;
}

function configYaml(url: string, options: WorkspaceOptions, statePath: string): string {
  // Lines every target gets.
  const perTarget =
    (options.rateLimit ? `    rateLimit: ${JSON.stringify(options.rateLimit)}\n` : '') +
    (options.apiProfile ? `    api: { profile: ${options.apiProfile} }\n` : '');
  const sync = options.sync ? `sync: ${JSON.stringify(options.sync)}\n` : '';
  return `targets:
  - name: local
    variant: managed
    baseUrl: ${url}
    organizationId: ${DEFAULT_SEED_IDS.organizationId}
    serviceId: ${DEFAULT_SEED_IDS.serviceId}
    auth:
      keyId: { fromEnv: STACKSYNC_KEY_ID }
      keySecret: { fromEnv: STACKSYNC_KEY_SECRET }
${perTarget}  - name: local-selfhosted
    variant: self-hosted
    baseUrl: ${url}
    auth:
      token: { fromEnv: STACKSYNC_TOKEN }
${perTarget}defaultTarget: local
state: ${JSON.stringify(statePath)}
${sync}`;
}

function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  // A clean environment: no inherited STACKSYNC_* settings, no colours, so output is greppable.
  // No budget file carried between commands (docs/apply.md#the-budget-across-commands) unless a test names one: the
  // emulator enforces no budget unless asked, and tests of other things would wait out the default 10 per 10 s.
  return {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '',
    NO_COLOR: '1',
    STACKSYNC_BUDGET_FILE: 'off',
    ...env,
  };
}

function spawnCli(cwd: string, args: readonly string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], { cwd, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
}

function runCli(
  cwd: string,
  args: readonly string[],
  env: Record<string, string>,
  timeoutMs: number,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(cwd, args, env);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `stacksync ${args.join(' ')} did not exit within ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`,
        ),
      );
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

export interface EmulatorStats {
  total: number;
  writes: number;
  throttled: number;
  routes: { method: string; route: string; count: number; statuses: Record<string, number> }[];
}

export async function emulatorStats(url: string): Promise<EmulatorStats> {
  const response = await fetch(`${url}/_emulator/stats`);
  return (await response.json()) as EmulatorStats;
}

export async function resetEmulatorStats(url: string): Promise<void> {
  await fetch(`${url}/_emulator/reset`, { method: 'POST' });
}

/** The emulator's whole state, for asserting on what is live (no duplicates, exact contents). */
export async function emulatorDump(url: string): Promise<unknown> {
  const response = await fetch(`${url}/_emulator/dump`);
  return response.json();
}
