/**
 * Issue 11's copy-paste check: the same code written twice in src/ drifts apart. jscpd at its
 * default granularity (50 tokens) must find no clone in src/ — the same command as `npm run cpd`.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

// jscpd's exports hide its package.json: find the package from its main entry (dist/src/index.js).
const jscpdBin = join(dirname(createRequire(import.meta.url).resolve('jscpd')), '..', '..', 'bin', 'jscpd');

function detect(path: string): { status: number | null; report: string } {
  const run = spawnSync(
    process.execPath,
    [jscpdBin, path, '--format', 'typescript', '--min-tokens', '50', '--reporters', 'console', '--exitCode', '1'],
    { encoding: 'utf8', timeout: 120_000 },
  );
  return { status: run.status, report: `${run.stdout}${run.stderr}` };
}

describe('copy-paste detector', () => {
  it('finds no clone in src/', () => {
    const { status, report } = detect('src');
    expect(status, report).toBe(0);
    expect(report).toMatch(/Found 0 clones/);
  }, 130_000);

  it('fails on a clone, so the check above can fail', () => {
    const { status, report } = detect('test/architecture/fixtures/clone');
    expect(status, report).toBe(1);
  }, 130_000);
});
