/**
 * config/ holds the configs a user starts from (docs/reference/config.md): a local emulator, a
 * production daemon with one target of each variant, and CI as the GitHub Actions example runs
 * it. None sits at the default path config/stacksync.yaml, so `npm start` on a fresh clone still
 * runs the built-in emulator (test/e2e/embedded.test.ts runs it with config/ present).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { DEFAULT_CONFIG_PATH } from '../../src/config/paths.js';
import { job, readWorkflow, step } from '../workflows/workflow.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONFIGS = ['ci.yaml', 'emulator.yaml', 'production.yaml'];

/** Every `{ fromEnv: NAME }` and `{ fromFile: PATH }` among a target's auth members. */
function references(auth: Record<string, unknown>): { fromEnv: string[]; fromFile: string[]; plain: string[] } {
  const found = { fromEnv: [] as string[], fromFile: [] as string[], plain: [] as string[] };
  for (const [member, value] of Object.entries(auth)) {
    const reference = value as { fromEnv?: string; fromFile?: string };
    if (typeof reference.fromEnv === 'string') found.fromEnv.push(reference.fromEnv);
    else if (typeof reference.fromFile === 'string') found.fromFile.push(reference.fromFile);
    else found.plain.push(member);
  }
  return found;
}

describe('config/', () => {
  it('is at the top level and holds the emulator, production and CI configs, none at the default path', () => {
    expect(dirname(DEFAULT_CONFIG_PATH)).toBe('config');
    const files = readdirSync(join(ROOT, 'config'))
      .filter((name) => name.endsWith('.yaml'))
      .sort();
    expect(files).toEqual(CONFIGS);
    expect(files).not.toContain('stacksync.yaml');
  });

  it.each(CONFIGS)(
    '%s loads without a problem or a warning, names its schema, and holds no secret value',
    async (name) => {
      const file = join(ROOT, 'config', name);
      expect(readFileSync(file, 'utf8').split('\n')[0]).toBe('# yaml-language-server: $schema=../schemas/config.json');
      const { config, warnings } = await loadConfig(file);
      expect(warnings).toEqual([]);
      for (const target of config.targets)
        expect(references(target.auth as Record<string, unknown>).plain, target.name).toEqual([]);
    },
  );

  it('production.yaml: a managed and a self-hosted target, prune within its caps, state on a volume', async () => {
    const { config } = await loadConfig(join(ROOT, 'config', 'production.yaml'));
    expect(config.targets.map((target) => target.variant).sort()).toEqual(['managed', 'self-hosted']);
    expect(config.sync).toMatchObject({ drift: 'heal', prune: true, maxDeletes: 10, maxDeletePercent: 25 });
    expect(config.state).toEqual({ backend: 'file', path: '/var/lib/stacksync/state.json' });
  });

  it("ci.yaml: its credentials are the variables the example workflow's plan and apply steps set, its state where the workflow keeps it", async () => {
    const { config } = await loadConfig(join(ROOT, 'config', 'ci.yaml'));
    const names = config.targets.flatMap((target) => references(target.auth as Record<string, unknown>).fromEnv).sort();
    expect(names.length).toBeGreaterThan(0);
    const workflow = await readWorkflow('examples/github-actions/stacksync.yml');
    for (const [jobName, stepId] of [
      ['plan', 'plan'],
      ['apply', 'apply'],
    ] as const) {
      expect(Object.keys(step(job(workflow, jobName), stepId).env ?? {}).sort(), `${jobName} step`).toEqual(
        expect.arrayContaining(names),
      );
    }
    // The state is in the bucket, in the region the workflow's AWS credentials are for; no step moves it.
    expect(config.state).toMatchObject({ backend: 's3', bucket: expect.any(String), key: expect.any(String) });
    for (const jobName of ['plan', 'apply']) {
      const aws = job(workflow, jobName).steps.find((candidate) =>
        String(candidate.uses).startsWith('aws-actions/configure-aws-credentials@'),
      );
      expect(aws?.with?.['aws-region'], `${jobName} job`).toBe((config.state as { region: string }).region);
    }
    expect(JSON.stringify(workflow.on)).toContain('config/stacksync.yaml');
  });
});
