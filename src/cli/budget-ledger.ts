/**
 * The file that carries what each rate budget spent from one command to the next on this machine
 * (`STACKSYNC_BUDGET_FILE`, else `$XDG_CACHE_HOME/stacksync/budgets.json`, else
 * `~/.cache/stacksync/budgets.json`; `STACKSYNC_BUDGET_FILE=off` keeps none): `plan` and
 * then `apply` a second later share the server's window, so the apply's pacer, and its estimate,
 * start from what the plan spent (docs/apply.md#the-budget-across-commands).
 *
 * It holds, per budget, only the end times of its requests still inside its window, under a hash
 * of the budget keyed by a random key of its own (`budgets.key`, 0600): no credential, nor an
 * unkeyed hash of one, is written (the key is the file's name plus `.key`). Best effort throughout: a missing, unreadable or read-only
 * cache (a container's read-only root) recalls nothing and files nothing, and a command never fails
 * for it. Two commands closing at once may lose one's stamps: the next pacer then learns of the
 * server's window from a 429, as it would without the file.
 */
import { createHmac, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import type { BudgetLedger } from '../api/index.js';
import type { Env } from '../config/paths.js';
import { makeDirectorySync, writeFileAtomicallySync } from '../support/fs.js';

/** The variable naming the file, or `off`. */
export const BUDGET_FILE_ENV = 'STACKSYNC_BUDGET_FILE';
const KEY_BYTES = 32;
/** At most this many stamps per budget (a budget of more requests per window is paced by its first ones' ends anyway). */
const MAX_STAMPS = 1_000;

interface Entry {
  /** When the last stamp stops counting (ms since the epoch). */
  until: number;
  stamps: number[];
}

/** The ledger's file for this environment, or undefined when it is `off` or no cache directory can be named. */
export function budgetFilePath(env: Env): string | undefined {
  const named = env[BUDGET_FILE_ENV];
  if (named === 'off') return undefined;
  if (named) return named;
  const cache = env['XDG_CACHE_HOME'] || (env['HOME'] ? join(env['HOME'], '.cache') : undefined);
  return cache ? join(cache, 'stacksync', 'budgets.json') : undefined;
}

/** The ledger in `file`; `now` is the pacers' clock (the real one: stamps are compared across processes). */
export function fileBudgetLedger(file: string, now: () => number = Date.now): BudgetLedger {
  const dir = dirname(file);
  const keyFile = `${file}.key`;
  let key: string | undefined;
  const readKey = (): string | undefined => {
    try {
      const text = fs.readFileSync(keyFile, 'utf8').trim();
      return /^[0-9a-f]{64}$/.test(text) ? text : undefined;
    } catch {
      return undefined;
    }
  };
  const keyFor = (create: boolean): string | undefined => {
    key ??= readKey();
    if (key || !create) return key;
    makeDirectorySync(dir, 0o700);
    writeFileAtomicallySync(keyFile, `${randomBytes(KEY_BYTES).toString('hex')}\n`, 0o600);
    return (key = readKey());
  };
  const read = (): Record<string, Entry> => {
    try {
      const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { budgets?: Record<string, Entry> };
      return parsed.budgets && typeof parsed.budgets === 'object' ? parsed.budgets : {};
    } catch {
      return {};
    }
  };
  const name = (budget: string, secret: string): string => createHmac('sha256', secret).update(budget).digest('hex');
  return {
    recall(budget) {
      try {
        const secret = keyFor(false);
        if (!secret) return [];
        const entry = read()[name(budget, secret)];
        if (!entry || !(entry.until > now()) || !Array.isArray(entry.stamps)) return [];
        return entry.stamps.filter((stamp) => Number.isFinite(stamp) && stamp <= now()).sort((a, b) => a - b);
      } catch {
        return [];
      }
    },
    remember(budget, stamps, windowMs) {
      try {
        if (stamps.length === 0) return;
        const secret = keyFor(true);
        if (!secret) return;
        const at = now();
        const budgets = Object.fromEntries(Object.entries(read()).filter(([, entry]) => entry.until > at));
        budgets[name(budget, secret)] = {
          until: Math.max(...stamps) + windowMs,
          stamps: [...stamps].sort((a, b) => a - b).slice(-MAX_STAMPS),
        };
        writeFileAtomicallySync(file, `${JSON.stringify({ budgets })}\n`, 0o600);
      } catch {
        // A cache that cannot be written only loses the head start it would give the next command.
      }
    },
  };
}
