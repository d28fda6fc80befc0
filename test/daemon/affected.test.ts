/**
 * Which targets a saved manifest file syncs: the targets of its documents before and after the
 * change, or every target whenever that cannot be told exactly.
 */
import { mkdtemp, mkdir, realpath, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { trackAffectedTargets, type AffectedTargets } from '../../src/daemon/affected.js';
import { MAX_PATHS } from '../../src/daemon/watch.js';
import { ParseCache } from '../../src/manifests/cache.js';
import { loadManifests } from '../../src/manifests/load.js';
import { inlineParser } from '../../src/manifests/parser.js';
import type { Config } from '../../src/model/config.js';

const CONFIG = `targets:
  - { name: alpha, variant: self-hosted, baseUrl: "http://127.0.0.1:1", auth: { token: { fromEnv: T } } }
  - { name: beta, variant: self-hosted, baseUrl: "http://127.0.0.1:1", auth: { token: { fromEnv: T } } }
  - { name: gamma, variant: self-hosted, baseUrl: "http://127.0.0.1:1", auth: { token: { fromEnv: T } } }
defaultTarget: alpha
`;

function config(): Config {
  const outcome = parseConfigText(CONFIG, { file: 'stacksync.yaml', path: 'stacksync.yaml' });
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.problems));
  return outcome.config;
}

/** A dashboard document; `target` is written as given (a name, a flow list, or left out). */
function dashboard(name: string, target?: string): string {
  const metadata = target === undefined ? `{ name: ${name} }` : `{ name: ${name}, target: ${target} }`;
  return `apiVersion: stacksync/v1\nkind: Dashboard\nmetadata: ${metadata}\nspec:\n  name: ${name}\n  tiles: []\n`;
}

const docs = (...texts: string[]): string => texts.join('---\n');

/** The files the directory holds when the daemon last loaded it. */
const LOADED: Record<string, string> = {
  'a.yaml': dashboard('a1', 'alpha'),
  'b.yaml': docs(dashboard('b1', 'beta'), dashboard('b2', 'beta')),
  'ab.yaml': docs(dashboard('x', 'alpha'), dashboard('y', 'beta')),
  'default.yaml': dashboard('d1'),
  'list.yaml': dashboard('l1', '[beta, gamma]'),
};

let dir: string;
let affected: AffectedTargets;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'stacksync-affected-')));
  for (const [name, text] of Object.entries(LOADED)) await writeFile(join(dir, name), text);
  const cache = new ParseCache();
  const loaded = config();
  await loadManifests(dir, { config: loaded, env: { T: 't' }, hmac: (value) => value, parser: inlineParser, cache });
  affected = trackAffectedTargets({ config: loaded, parser: inlineParser, cache });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Change = { write: string; text: string } | { remove: string } | { mkdir: string };

const CASES: { name: string; changes: Change[]; expected: string[] | undefined }[] = [
  {
    name: "an edit of one target's file syncs that target",
    changes: [{ write: 'a.yaml', text: dashboard('a1', 'alpha') + '# edited\n' }],
    expected: ['alpha'],
  },
  {
    name: 'a file of two documents of one target',
    changes: [{ write: 'b.yaml', text: dashboard('b1', 'beta') }],
    expected: ['beta'],
  },
  {
    name: 'a file of two targets syncs both',
    changes: [{ write: 'ab.yaml', text: docs(dashboard('x', 'alpha'), dashboard('y', 'beta')) + '# edited\n' }],
    expected: ['alpha', 'beta'],
  },
  {
    name: "a document without a target is the default target's",
    changes: [{ write: 'default.yaml', text: dashboard('d1') + '# edited\n' }],
    expected: ['alpha'],
  },
  {
    name: 'a target list',
    changes: [{ write: 'list.yaml', text: dashboard('l1', '[beta, gamma]') + '# edited\n' }],
    expected: ['beta', 'gamma'],
  },
  {
    name: 'a document moved to another target syncs the one it left too',
    changes: [{ write: 'a.yaml', text: dashboard('a1', 'gamma') }],
    expected: ['alpha', 'gamma'],
  },
  { name: 'a deleted file syncs the targets it held', changes: [{ remove: 'b.yaml' }], expected: ['beta'] },
  {
    name: 'a file emptied syncs the targets it held',
    changes: [{ write: 'b.yaml', text: '# nothing left\n' }],
    expected: ['beta'],
  },
  {
    name: 'two files at once',
    changes: [
      { write: 'a.yaml', text: dashboard('a1', 'alpha') + '#\n' },
      { write: 'list.yaml', text: dashboard('l1', 'gamma') },
    ],
    expected: ['alpha', 'beta', 'gamma'],
  },
  {
    name: 'a file the last load did not read (new, or unreadable then) syncs every target',
    changes: [{ write: 'new.yaml', text: dashboard('n1', 'gamma') }],
    expected: undefined,
  },
  {
    name: 'a file that does not parse syncs every target (its problem blocks them all)',
    changes: [{ write: 'a.yaml', text: 'kind: [unclosed\n' }],
    expected: undefined,
  },
  {
    name: 'a target the config does not name',
    changes: [{ write: 'a.yaml', text: dashboard('a1', 'nowhere') }],
    expected: undefined,
  },
  {
    name: 'a target written with a variable',
    changes: [{ write: 'a.yaml', text: dashboard('a1', '"${TARGET}"') }],
    expected: undefined,
  },
  {
    name: 'a document of every target',
    changes: [
      {
        write: 'a.yaml',
        text: dashboard('a1').replace('metadata: { name: a1 }', 'metadata: { name: a1, targets: all }'),
      },
    ],
    expected: ['alpha', 'beta', 'gamma'],
  },
  {
    name: 'a document without metadata',
    changes: [{ write: 'a.yaml', text: 'apiVersion: stacksync/v1\nkind: Dashboard\n' }],
    expected: undefined,
  },
  { name: 'a deleted file the last load never saw', changes: [{ remove: 'unknown.yaml' }], expected: undefined },
  { name: 'a directory', changes: [{ mkdir: 'sub' }], expected: undefined },
];

async function make(change: Change): Promise<string> {
  if ('write' in change) {
    await writeFile(join(dir, change.write), change.text);
    return join(dir, change.write);
  }
  if ('remove' in change) {
    await unlink(join(dir, change.remove)).catch(() => undefined);
    return join(dir, change.remove);
  }
  await mkdir(join(dir, change.mkdir));
  return join(dir, change.mkdir);
}

describe('targets a change concerns', () => {
  it.each(CASES)('$name', async ({ changes, expected }) => {
    const paths = [];
    for (const change of changes) paths.push(await make(change));
    expect(await affected.of({ kind: 'files', paths: paths.sort() })).toEqual(expected);
  });

  it('remembers what a file held after its last change, not only at the last load', async () => {
    const path = join(dir, 'a.yaml');
    await writeFile(path, dashboard('a1', 'beta'));
    expect(await affected.of({ kind: 'files', paths: [path] })).toEqual(['alpha', 'beta']);
    await writeFile(path, dashboard('a1', 'gamma'));
    expect(await affected.of({ kind: 'files', paths: [path] })).toEqual(['beta', 'gamma']);
    const added = join(dir, 'new.yaml');
    await writeFile(added, dashboard('n1', 'gamma'));
    expect(await affected.of({ kind: 'files', paths: [added] })).toBeUndefined();
    await writeFile(added, dashboard('n1', 'beta'));
    expect(await affected.of({ kind: 'files', paths: [added] })).toEqual(['beta', 'gamma']);
  });

  it('syncs every target after a swap of the checkout, and for a change of more paths than a reason lists', async () => {
    expect(await affected.of({ kind: 'checkout-swapped', paths: [dir] })).toBeUndefined();
    const many = Array.from({ length: MAX_PATHS }, (_, index) => join(dir, `f${index}.yaml`));
    expect(await affected.of({ kind: 'files', paths: many })).toBeUndefined();
  });
});
