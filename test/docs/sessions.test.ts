/**
 * The shell blocks that start an emulator (`stacksync emulator … &`) and then talk to it — the
 * README tour's "plan as CI would", the emulator's "try it" — run here as a reader would run them,
 * line by line, in a copy of the repository: the built CLI for `stacksync`, curl for `curl`, and
 * every exit code as the line's comment promises (`# exit 2`), else 0.
 * The emulator is started on a free port instead of the one written, and the copied configs and
 * the command lines are pointed at it, so the test never needs a fixed port.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI } from '../helpers/workspace.js';
import {
  codeBlocks,
  documentationFiles,
  expectedExit,
  parseShellLine,
  readDoc,
  ROOT,
  shellLines,
  stacksyncArgs,
  type CodeBlock,
  type ShellCommand,
} from './markdown.js';

const sessions = documentationFiles()
  .flatMap((file) => codeBlocks(file, readDoc(file)))
  .filter(
    (block) => block.lang === 'sh' && shellLines(block.text).some((line) => parseShellLine(line).some(startsEmulator)),
  );

function startsEmulator(command: ShellCommand): boolean {
  return command.background && stacksyncArgs(command)?.[0] === 'emulator';
}

const hasCurl = (process.env['PATH'] ?? '').split(delimiter).some((dir) => existsSync(join(dir, 'curl')));

interface Outcome {
  code: number;
  output: string;
}

class Session {
  readonly env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '',
    NO_COLOR: '1',
    STACKSYNC_BUDGET_FILE: 'off',
  };
  private emulator: ChildProcess | undefined;
  /** `host:port` as the block writes it, and as the emulator really listens. */
  private written = '';
  private actual = '';

  constructor(readonly dir: string) {}

  /** A word with the written address replaced by the real one. */
  private point(word: string): string {
    return this.written ? word.replaceAll(this.written, this.actual) : word;
  }

  async startEmulator(args: readonly string[]): Promise<void> {
    const port = flagValue(args, '--port') ?? '4010';
    const host = flagValue(args, '--host') ?? '127.0.0.1';
    const free = [...withFlag(args, '--port', '0')];
    const child = spawn(process.execPath, [CLI, ...free], {
      cwd: this.dir,
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.emulator = child;
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const listening = /listening on (http:\/\/\S+)/.exec(stdout);
        if (listening) resolve(listening[1] ?? '');
      });
      child.on('exit', (code) => reject(new Error(`the emulator exited with ${code} before listening:\n${stdout}`)));
    });
    this.written = `${host}:${port}`;
    this.actual = new URL(url).host;
    await this.pointConfigs();
  }

  /** The copied configs name the address the block wrote; they name the real one from now on. */
  private async pointConfigs(): Promise<void> {
    for (const dir of ['examples', 'config']) {
      if (!existsSync(join(this.dir, dir))) continue;
      for (const name of await readdir(join(this.dir, dir), { recursive: true })) {
        if (!/\.ya?ml$/.test(name)) continue;
        const path = join(this.dir, dir, name);
        await writeFile(path, this.point(await readFile(path, 'utf8')));
      }
    }
  }

  run(file: string, args: readonly string[], env: Record<string, string> = {}): Promise<Outcome> {
    return new Promise((resolve) => {
      execFile(
        file,
        args.map((word) => this.point(word)),
        { cwd: this.dir, env: { ...this.env, ...env }, timeout: 90_000 },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
          resolve({ code, output: `${stdout}\n${stderr}` });
        },
      );
    });
  }

  async close(): Promise<void> {
    const child = this.emulator;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

function flagValue(args: readonly string[], flag: string): string | undefined {
  const index = args.indexOf(flag);
  return index >= 0 ? args[index + 1] : args.find((word) => word.startsWith(`${flag}=`))?.slice(flag.length + 1);
}

function withFlag(args: readonly string[], flag: string, value: string): string[] {
  const index = args.indexOf(flag);
  if (index >= 0) return [...args.slice(0, index + 1), value, ...args.slice(index + 2)];
  return [...args.filter((word) => !word.startsWith(`${flag}=`)), flag, value];
}

/** Runs one command of the block; what went wrong, or undefined. */
async function step(session: Session, line: string, command: ShellCommand): Promise<string | undefined> {
  const [program = '', ...rest] = command.words;
  if (program === 'export') {
    for (const word of rest) {
      const [name = '', value = ''] = word.split(/=(.*)/s, 2);
      session.env[name] = value;
    }
    return undefined;
  }
  const args = stacksyncArgs(command);
  if (args && startsEmulator(command)) {
    await session.startEmulator(args);
    return undefined;
  }
  let outcome: Outcome;
  if (args) outcome = await session.run(process.execPath, [CLI, ...args], command.env);
  else if (program === 'curl')
    outcome = await session.run('curl', ['--silent', '--show-error', '--fail', ...rest], command.env);
  else return `${line}: not a command a session test knows (${program})`;
  const expected = expectedExit(line);
  return outcome.code === expected
    ? undefined
    : `${line}: exit ${outcome.code}, the block says ${expected}\n${outcome.output}`;
}

async function runSession(block: CodeBlock): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'stacksync-docs-session-'));
  for (const part of ['manifests', 'examples', 'config', 'schemas']) {
    if (existsSync(join(ROOT, part))) await cp(join(ROOT, part), join(dir, part), { recursive: true });
  }
  const session = new Session(dir);
  try {
    for (const line of shellLines(block.text)) {
      for (const command of parseShellLine(line)) {
        const problem = await step(session, line.trim(), command);
        if (problem) return [`${block.file}:${block.line}: ${problem}`];
      }
    }
    return [];
  } finally {
    await session.close();
    await rm(dir, { recursive: true, force: true });
  }
}

describe('shell sessions of the README and docs/ against an emulator', () => {
  it('include the README tour', () => {
    expect(sessions.map((block) => block.file)).toContain('README.md');
  });

  const usesCurl = (block: CodeBlock): boolean =>
    shellLines(block.text).some((line) => parseShellLine(line).some((command) => command.words[0] === 'curl'));
  const named = (list: CodeBlock[]): (readonly [string, CodeBlock])[] =>
    list.map((block) => [`${block.file}:${block.line}`, block] as const);

  it.each(named(sessions.filter((block) => !usesCurl(block))))(
    '%s runs as written',
    async (_, block) => {
      expect(await runSession(block)).toEqual([]);
    },
    180_000,
  );

  it.skipIf(!hasCurl).each(named(sessions.filter(usesCurl)))(
    '%s runs as written (with curl)',
    async (_, block) => {
      expect(await runSession(block)).toEqual([]);
    },
    180_000,
  );

  it('a session fails when a line does not exit as its comment says', async () => {
    const block: CodeBlock = {
      file: 'docs/x.md',
      line: 1,
      lang: 'sh',
      flags: [],
      text: 'stacksync emulator --port 4010 &\nexport STACKSYNC_KEY_ID=emulator-key STACKSYNC_KEY_SECRET=emulator-secret STACKSYNC_TOKEN=emulator-token\nstacksync plan -c config/emulator.yaml --detailed-exitcode   # exit 0: in sync',
    };
    expect(await runSession(block)).toEqual([expect.stringContaining('exit 2, the block says 0')]);
  }, 60_000);
});
