// First apply vs size: everything to create, at 1,000 → 10,000 → 30,000 resources (the plan
// section's fixtures: pipes, dashboards of 4 tiles with 3 alerts each, half on each target), rate
// limits lifted, each against a fresh emulator (child process). Measured: the whole command
// (spawn to exit) and its apply phase (the longer target's, as stacksync reports it), peak RSS.
// Goal (issue 12): linear, i.e. 30k ≤ 3.3 × 10k; the exponent is the slope of log(time) over
// log(size) fitted through every size, so 1.0 is linear and 2.0 quadratic.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countsForSize, seedFor, writeFixtures } from '../gen-fixtures.mjs';
import { applySeconds, expectExit, runCli, startEmulatorChild, stats } from './lib.mjs';

/** Least-squares slope of log(y) over log(x). */
export function exponent(points) {
  const xs = points.map((point) => Math.log(point.x));
  const ys = points.map((point) => Math.log(point.y));
  const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const mx = mean(xs);
  const my = mean(ys);
  const sxy = xs.reduce((sum, x, i) => sum + (x - mx) * (ys[i] - my), 0);
  const sxx = xs.reduce((sum, x) => sum + (x - mx) ** 2, 0);
  return sxy / sxx;
}

/**
 * One first apply at `size` on a fresh emulator. `state` is the config's `state:` (default the
 * state file), with the variables it reads in `env`; `label` names the run in the log.
 */
export async function firstApply(size, log, { state, env = {}, label = '' } = {}) {
  const counts = countsForSize(size);
  const dir = await mkdtemp(join(tmpdir(), `stacksync-bench-first-${size}-`));
  await writeFile(join(dir, 'seed.json'), JSON.stringify(seedFor(counts)));
  const emulator = await startEmulatorChild({ seedFile: join(dir, 'seed.json') });
  try {
    const fixtures = await writeFixtures({ dir, url: emulator.url, counts, ...(state ? { statePath: state } : {}) });
    const result = expectExit(
      await runCli(dir, ['apply'], { env: { ...fixtures.env, ...env }, timeoutMs: 1_200_000 }),
      0,
      `first apply at ${size}${label}`,
    );
    const server = await stats(emulator.url);
    const phaseMs =
      Math.max(applySeconds(result.stderr, 'local'), applySeconds(result.stderr, 'local-selfhosted')) * 1000;
    log(
      `  ${size}${label}: first apply ${(result.wallMs / 1000).toFixed(2)} s, apply phase ${(phaseMs / 1000).toFixed(2)} s, ${server.writes} writes, peak RSS ${(result.rssBytes / 2 ** 20).toFixed(0)} MiB`,
    );
    return {
      size,
      resources: counts.total,
      wallMs: result.wallMs,
      phaseMs,
      writes: server.writes,
      rssBytes: result.rssBytes,
    };
  } finally {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function firstApplyScale({ sizes }, log) {
  const rows = [];
  for (const size of sizes) rows.push(await firstApply(size, log));
  const byWall = exponent(rows.map((row) => ({ x: row.resources, y: row.wallMs })));
  const byPhase = exponent(rows.map((row) => ({ x: row.resources, y: row.phaseMs })));
  const [, ten, thirty] = rows;
  const figures = { rows, exponent: byWall, phaseExponent: byPhase };
  if (ten && thirty) {
    figures.ratio = thirty.wallMs / ten.wallMs;
    figures.phaseRatio = thirty.phaseMs / ten.phaseMs;
    figures.sizeRatio = thirty.resources / ten.resources;
  }
  log(
    `  exponent ${byWall.toFixed(2)} (apply phase ${byPhase.toFixed(2)})${figures.ratio ? `; largest ÷ middle ${figures.ratio.toFixed(2)} for ${figures.sizeRatio.toFixed(2)} × the resources` : ''}`,
  );
  return figures;
}
