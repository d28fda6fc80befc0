/**
 * The client libraries of the state backends (the PostgreSQL driver, the Kubernetes client: 2 MB
 * of code) load only when a config names their backend: in the built bundle, their chunks are
 * reached by a dynamic `import()` alone, so every other command starts without them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/workspace.js';

const BUNDLE = join(REPO, 'dist', 'bundle');
let chunks: { name: string; text: string }[];

beforeAll(() => {
  chunks = readdirSync(BUNDLE)
    .filter((name) => name.endsWith('.js'))
    .map((name) => ({ name, text: readFileSync(join(BUNDLE, name), 'utf8') }));
});

/** How the other chunks import `chunk`: statically (`import … from`, `import "…"`) or by `import()`. */
function importsOf(chunk: string): { statically: string[]; dynamically: string[] } {
  const quoted = `["'\`]\\./${chunk.replace(/[.$]/g, '\\$&')}["'\`]`;
  const staticImport = new RegExp(`(?:from\\s*${quoted}|import\\s*${quoted})`);
  const dynamicImport = new RegExp(`import\\(\\s*${quoted}\\s*\\)`);
  return {
    statically: chunks
      .filter((other) => other.name !== chunk && staticImport.test(other.text))
      .map((other) => other.name),
    dynamically: chunks
      .filter((other) => other.name !== chunk && dynamicImport.test(other.text))
      .map((other) => other.name),
  };
}

describe('the state backends in the bundle', () => {
  it.each([
    { backend: 'kubernetes', marker: 'CoordinationV1Api' },
    { backend: 'postgres', marker: 'pg_try_advisory_lock' },
  ])('loads the $backend backend by import() only', ({ backend, marker }) => {
    const holding = chunks.filter((chunk) => chunk.text.includes(marker)).map((chunk) => chunk.name);
    expect(holding).toHaveLength(1);
    const chunk = holding[0] as string;
    expect(chunk.startsWith(`${backend}-`)).toBe(true);
    const { statically, dynamically } = importsOf(chunk);
    expect(statically).toEqual([]);
    expect(dynamically.length).toBeGreaterThan(0);
  });

  it('would see a static import (the check can fail)', () => {
    chunks.push({ name: 'probe.js', text: 'import{a}from"./probe-target.js";' });
    try {
      expect(importsOf('probe-target.js').statically).toEqual(['probe.js']);
    } finally {
      chunks.pop();
    }
  });
});
