/**
 * Checks shared by the corpus and fault suites on a finished CLI run: it ended by itself (no
 * signal, a numeric exit code), it did not crash (no `E_INTERNAL`, no stack trace), and a few
 * helpers to look for an error where the CLI prints it.
 */
import { cp, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CliResult } from './workspace.js';

/** A stack frame as V8 prints it: `    at fn (file:line:col)` or `    at file:line:col`. */
const STACK_FRAME = /^\s+at .+(:\d+:\d+\)?|\(node:[^)]*\))$/m;

/** Why a run counts as a crash, or undefined when it ended cleanly. */
export function crashOf(result: CliResult): string | undefined {
  if (result.signal !== null) return `killed by ${result.signal}`;
  if (result.code === null) return 'no exit code';
  for (const [name, text] of [
    ['stdout', result.stdout],
    ['stderr', result.stderr],
  ] as const) {
    if (text.includes('E_INTERNAL')) return `${name} reports E_INTERNAL`;
    if (STACK_FRAME.test(text)) return `${name} holds a stack trace`;
  }
  return undefined;
}

/** `text` as JSON, or undefined when it is not one JSON value. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Runs `tasks` with at most `limit` at once; resolves to their results in order. */
export function createLimiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  const release = (): void => {
    active -= 1;
    waiting.shift()?.();
  };
  return async (task) => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active += 1;
    try {
      return await task();
    } finally {
      release();
    }
  };
}

/** Copies every file of `from` into `to` (recursively, replacing files of the same name). */
export async function overlay(from: string, to: string): Promise<void> {
  await cp(from, to, { recursive: true, force: true });
}

/** Every regular file under `dir`, relative paths, sorted. */
export async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

/** Text of a file, or '' when it does not exist. */
export async function readIfExists(path: string): Promise<string> {
  return readFile(path, 'utf8').catch(() => '');
}
