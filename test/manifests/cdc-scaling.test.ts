/**
 * PipeCdcScaling manifests, offline: the service's bounds (CPU 1000–24000 in steps of 1000,
 * memory 4 GB per core), one manifest per target (two would fight over the one setting), and only
 * on a managed target that speaks the current profile. Each refusal names file, line and column.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifests/load.js';
import type { Config, ManagedTarget } from '../../src/model/config.js';
import type { LoadProblem } from '../../src/model/desired.js';
import { config as seedConfig, hmac, removeTrees, writeTree, type Tree } from './helpers.js';

afterAll(removeTrees);

const managed = seedConfig.targets[0] as ManagedTarget;
const config: Config = {
  ...seedConfig,
  targets: [
    { ...managed, api: { profile: 'current' } },
    { ...managed, name: 'staging', serviceId: '9c1e2b7e-3a4d-4c5b-8e6f-1a2b3c4d5e02', api: { profile: 'current' } },
    { ...managed, name: 'legacy', serviceId: '9c1e2b7e-3a4d-4c5b-8e6f-1a2b3c4d5e03' },
    seedConfig.targets[1]!,
  ],
};

const cdc = (sizing: string, metadata = 'name: cdc'): string => `apiVersion: stacksync/v1
kind: PipeCdcScaling
metadata: { ${metadata} }
spec:
${sizing}`;

const sized = (cpu: number, memory: number): string => `  replicaCpuMillicores: ${cpu}\n  replicaMemoryGb: ${memory}\n`;

interface Row {
  name: string;
  tree: Tree;
  want: { file: string; line: number; column: number; code: LoadProblem['code']; message: string }[];
  /** `Kind/key@target` of what loads. */
  resources: string[];
}

const rows: Row[] = [
  {
    name: 'a sound sizing loads',
    tree: { 'c.yaml': cdc(sized(4000, 16)) },
    want: [],
    resources: ['PipeCdcScaling/cdc@prod'],
  },
  {
    name: 'the largest sizing loads',
    tree: { 'c.yaml': cdc(sized(24000, 96)) },
    want: [],
    resources: ['PipeCdcScaling/cdc@prod'],
  },
  {
    name: 'CPU off its steps of 1000',
    tree: { 'c.yaml': cdc(sized(1500, 6)) },
    want: [
      {
        file: 'c.yaml',
        line: 5,
        column: 25,
        code: 'E_MANIFEST_INVALID',
        message: 'spec.replicaCpuMillicores: must be multiple of 1000',
      },
      {
        file: 'c.yaml',
        line: 6,
        column: 20,
        code: 'E_MANIFEST_INVALID',
        message: 'spec.replicaMemoryGb: must be multiple of 4',
      },
    ],
    resources: [],
  },
  {
    name: 'CPU below one core',
    tree: { 'c.yaml': cdc(sized(0, 0)) },
    want: [
      {
        file: 'c.yaml',
        line: 5,
        column: 25,
        code: 'E_MANIFEST_INVALID',
        message: 'spec.replicaCpuMillicores: must be >= 1000',
      },
      {
        file: 'c.yaml',
        line: 6,
        column: 20,
        code: 'E_MANIFEST_INVALID',
        message: 'spec.replicaMemoryGb: must be >= 4',
      },
    ],
    resources: [],
  },
  {
    name: 'CPU above 24 cores',
    tree: { 'c.yaml': cdc(sized(32000, 96)) },
    want: [
      {
        file: 'c.yaml',
        line: 5,
        column: 25,
        code: 'E_MANIFEST_INVALID',
        message: 'spec.replicaCpuMillicores: must be <= 24000',
      },
    ],
    resources: [],
  },
  {
    name: 'memory not 4 GB per core',
    tree: { 'c.yaml': cdc(sized(2000, 16)) },
    want: [
      {
        file: 'c.yaml',
        line: 6,
        column: 20,
        code: 'E_MANIFEST_INVALID',
        message: 'spec.replicaMemoryGb: must be 4 GB per CPU core: 8 for 2000 millicores',
      },
    ],
    resources: [],
  },
  {
    name: 'memory left out (the service takes both)',
    tree: { 'c.yaml': cdc('  replicaCpuMillicores: 2000\n') },
    want: [
      { file: 'c.yaml', line: 4, column: 1, code: 'E_MANIFEST_INVALID', message: 'spec.replicaMemoryGb: is required' },
    ],
    resources: [],
  },
  {
    name: "a member of a pipe's own scaling",
    tree: { 'c.yaml': cdc(`${sized(2000, 8)}  replicas: 2\n`) },
    want: [
      {
        file: 'c.yaml',
        line: 7,
        column: 3,
        code: 'E_MANIFEST_INVALID',
        message: 'spec.replicas: is not a known member here',
      },
    ],
    resources: [],
  },
  {
    name: 'two manifests of one target, whatever their names: each names the other',
    tree: { 'a.yaml': cdc(sized(2000, 8)), 'team/b.yaml': cdc(sized(4000, 16), 'name: cdc-big') },
    want: [
      {
        file: 'a.yaml',
        line: 2,
        column: 7,
        code: 'E_MANIFEST_DUPLICATE',
        message:
          'kind: the CDC scaling (one per service, so at most one PipeCdcScaling manifest per target) is defined again for target prod at team/b.yaml:1',
      },
      {
        file: 'team/b.yaml',
        line: 2,
        column: 7,
        code: 'E_MANIFEST_DUPLICATE',
        message:
          'kind: the CDC scaling (one per service, so at most one PipeCdcScaling manifest per target) is already defined for target prod at a.yaml:1',
      },
    ],
    resources: [],
  },
  {
    name: 'one manifest per target, for two targets',
    tree: { 'a.yaml': cdc(sized(2000, 8)), 'b.yaml': cdc(sized(4000, 16), 'name: cdc, target: staging') },
    want: [],
    resources: ['PipeCdcScaling/cdc@prod', 'PipeCdcScaling/cdc@staging'],
  },
  {
    name: 'a target speaking the seed profile',
    tree: { 'c.yaml': cdc(sized(2000, 8), 'name: cdc, target: legacy') },
    want: [
      {
        file: 'c.yaml',
        line: 3,
        column: 32,
        code: 'E_MANIFEST_INVALID',
        message:
          'metadata.target: a PipeCdcScaling needs a managed target with api profile current, and legacy speaks api profile seed',
      },
    ],
    resources: [],
  },
  {
    name: 'a self-hosted target',
    tree: { 'c.yaml': cdc(sized(2000, 8), 'name: cdc, target: sh') },
    want: [
      {
        file: 'c.yaml',
        line: 3,
        column: 32,
        code: 'E_MANIFEST_INVALID',
        message:
          'metadata.target: a PipeCdcScaling needs a managed target with api profile current, and sh is self-hosted',
      },
    ],
    resources: [],
  },
];

describe('PipeCdcScaling manifests', () => {
  it.each(rows)('$name', async ({ tree, want, resources }) => {
    const dir = await writeTree(tree);
    const result = await loadManifests(dir, { config, hmac, env: {} });
    // Paths relative to the tree, in messages too.
    const relative = (text: string): string => text.split(`${dir}/`).join('');
    const problems = result.problems.map((problem) => ({
      ...problem,
      file: relative(problem.location.file),
      message: relative(problem.message),
    }));
    expect(problems.map((p) => `${p.file}:${p.location.line}:${p.location.column}: ${p.code}`)).toEqual(
      want.map((w) => `${w.file}:${w.line}:${w.column}: ${w.code}`),
    );
    want.forEach((w, i) => {
      expect(problems[i]?.message).toContain(w.message);
    });
    expect(result.resources.map((r) => `${r.kind}/${r.key}@${r.target}`).sort()).toEqual(resources);
  });

  it('builds the sizing as written, nothing else', async () => {
    const dir = await writeTree({ 'c.yaml': cdc(sized(6000, 24)) });
    const [resource] = (await loadManifests(dir, { config, hmac, env: {} })).resources;
    expect(resource).toMatchObject({
      kind: 'PipeCdcScaling',
      key: 'cdc',
      target: 'prod',
      spec: { replicaCpuMillicores: 6000, replicaMemoryGb: 24 },
      location: { line: 1 },
    });
    expect(resource && 'policy' in resource).toBe(false);
  });
});
