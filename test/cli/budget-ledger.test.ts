/**
 * The file that carries what each rate budget spent from one command to the next
 * (cli/budget-ledger.ts, docs/apply.md#the-budget-across-commands): what a budget filed comes back
 * to the next pacer of that budget only, inside its window; no credential, nor a plain hash of one,
 * is written; and a cache that cannot be written never fails a command.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SharedPacers } from '../../src/api/shared-pacers.js';
import { budgetFilePath, fileBudgetLedger } from '../../src/cli/budget-ledger.js';

const AUTHORIZATION = 'Basic ZW11bGF0b3Ita2V5OmVtdWxhdG9yLXNlY3JldA==';
const BUDGET = `https://api.example.com ${createHash('sha256').update(AUTHORIZATION).digest('hex')}`;
const NOW = 1_800_000_000_000;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stacksync-ledger-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the budget file', () => {
  it('gives back what a budget spent, within its window, to that budget only', () => {
    const file = join(dir, 'cache', 'budgets.json');
    fileBudgetLedger(file, () => NOW).remember(BUDGET, [NOW - 3_000, NOW - 1_000, NOW - 2_000], 10_200);
    expect(fileBudgetLedger(file, () => NOW + 500).recall(BUDGET)).toEqual([NOW - 3_000, NOW - 2_000, NOW - 1_000]);
    expect(fileBudgetLedger(file, () => NOW + 500).recall(`https://api.example.com ${'0'.repeat(64)}`)).toEqual([]);
    // A window after the last one ended, none of them counts any more.
    expect(fileBudgetLedger(file, () => NOW - 1_000 + 10_200).recall(BUDGET)).toEqual([]);
  });

  it('writes no credential and no plain hash of one, only a hash keyed by a key of its own (0600)', async () => {
    const file = join(dir, 'budgets.json');
    fileBudgetLedger(file, () => NOW).remember(BUDGET, [NOW - 1_000], 10_200);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(BUDGET.split(' ')[1]);
    expect(text).not.toContain('ZW11bGF0b3I');
    expect(text).not.toContain('api.example.com');
    expect((await stat(`${file}.key`)).mode & 0o777).toBe(0o600);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('never fails a command: a cache that cannot be written files nothing, one that cannot be read recalls nothing', async () => {
    // A file where the cache directory should be: no one, root included, can write under it.
    await writeFile(join(dir, 'blocked'), '');
    const file = join(dir, 'blocked', 'budgets.json');
    expect(() => fileBudgetLedger(file, () => NOW).remember(BUDGET, [NOW - 1_000], 10_200)).not.toThrow();
    expect(fileBudgetLedger(file, () => NOW).recall(BUDGET)).toEqual([]);
    expect(await readdir(dir)).toEqual(['blocked']);
    // A file that is not the ledger's (a torn write, another program's) recalls nothing either.
    const torn = join(dir, 'torn.json');
    fileBudgetLedger(torn, () => NOW).remember(BUDGET, [NOW - 1_000], 10_200);
    await writeFile(torn, '{"budgets": [1, 2');
    expect(fileBudgetLedger(torn, () => NOW).recall(BUDGET)).toEqual([]);
  });

  it('is where the environment says: STACKSYNC_BUDGET_FILE, off, the XDG cache, the home cache, or none', () => {
    expect(budgetFilePath({ STACKSYNC_BUDGET_FILE: '/x/b.json', HOME: '/h' })).toBe('/x/b.json');
    expect(budgetFilePath({ STACKSYNC_BUDGET_FILE: 'off', HOME: '/h' })).toBeUndefined();
    expect(budgetFilePath({ XDG_CACHE_HOME: '/c', HOME: '/h' })).toBe('/c/stacksync/budgets.json');
    expect(budgetFilePath({ HOME: '/h' })).toBe('/h/.cache/stacksync/budgets.json');
    expect(budgetFilePath({})).toBeUndefined();
  });
});

describe('pacers with a budget file', () => {
  it('file what their budget spent when its last client closes, and the next pacers of that budget start from it', async () => {
    const ledger = fileBudgetLedger(join(dir, 'budgets.json'));
    const member = {
      target: 'prod',
      origin: 'https://api.example.com',
      authorization: AUTHORIZATION,
      rateLimit: { requests: 10, perSeconds: 10, concurrency: 2 },
    };
    const first = new SharedPacers({ ledger });
    const lane = first.join(member);
    for (let request = 0; request < 3; request++) (await lane.acquire('read'))();
    expect(first.spentFor('prod')).toHaveLength(3);
    lane.close();
    const next = new SharedPacers({ ledger });
    next.join(member).close();
    const again = new SharedPacers({ ledger });
    again.join(member);
    // The second process filed what it recalled: the three are still known to a third.
    expect(again.spentFor('prod')).toHaveLength(3);
    expect(new SharedPacers({ ledger }).spentFor('prod')).toEqual([]);
  });
});
