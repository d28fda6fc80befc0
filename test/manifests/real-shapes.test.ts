/** Manifests in what the real services take today: config tiles, names, eight threshold types, saved_search, pipe members beyond the seed. */
import { afterAll, describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifests/load.js';
import { PIPE_ID, config, hmac, removeTrees, writeTree } from './helpers.js';

afterAll(removeTrees);

/** Targets that speak what the real services take today: the loader checks tile forms against it. */
const current = {
  ...config,
  targets: config.targets.map((target) => ({ ...target, api: { profile: 'current' as const } })),
};

async function load(yaml: string) {
  const dir = await writeTree({ 'm.yaml': yaml });
  return loadManifests(dir, { config: current, hmac, env: {} });
}

const header = (kind: string, name: string): string =>
  `apiVersion: stacksync/v1\nkind: ${kind}\nmetadata:\n  name: ${name}\nspec:\n`;

describe('tiles', () => {
  it('take a config (any members, passed through), series naming a source, or only a position', async () => {
    const result = await load(`${header('Dashboard', 'api')}  name: API
  tiles:
    - { name: latency, x: 0, y: 0, w: 6, h: 4, config: { displayType: line, source: Traces, select: [{ aggFn: avg, valueExpression: Duration }], futureOption: { a: 1 } } }
    - { name: errors, x: 6, y: 0, w: 6, h: 4, series: [{ type: time, source: Logs, aggFn: sum, field: requests, where: "", groupBy: [] }] }
    - { name: notes, x: 0, y: 4, w: 12, h: 2 }
`);
    expect(result.problems).toEqual([]);
    const [board] = result.resources;
    expect(board?.kind === 'Dashboard' && board.tiles.map((tile) => Object.keys(tile).sort())).toEqual([
      ['config', 'h', 'name', 'w', 'x', 'y'],
      ['h', 'name', 'series', 'w', 'x', 'y'],
      ['h', 'name', 'w', 'x', 'y'],
    ]);
  });

  it('refuse a tile with both series and config, and a config that is not an object', async () => {
    const result = await load(`${header('Dashboard', 'api')}  name: API
  tiles:
    - { name: both, x: 0, y: 0, w: 6, h: 4, series: [{ type: markdown, content: hi }], config: { displayType: markdown } }
    - { name: text, x: 0, y: 4, w: 6, h: 4, config: line }
`);
    expect(result.resources).toEqual([]);
    expect(result.problems.map((problem) => [problem.code, problem.location.line])).toEqual([
      ['E_MANIFEST_INVALID', expect.any(Number)],
      ['E_MANIFEST_INVALID', expect.any(Number)],
    ]);
    expect(result.problems.map((problem) => problem.location.line)).toEqual([8, 9]);
  });
});

describe('alerts', () => {
  it('take saved_search, a range threshold with thresholdMax, a webhook by name, and no channel', async () => {
    const result = await load(`${header('Alert', 'errors')}  name: errors
  source: saved_search
  savedSearchId: 65f5e4a3b9e77c001a0000d1
  threshold: 5
  thresholdMax: 10
  thresholdType: between
  interval: 15m
  channel: { type: webhook, webhook: ops }
---
${header('Alert', 'quiet')}  name: quiet
  source: search
  savedSearchId: 65f5e4a3b9e77c001a0000d1
  threshold: 0
  thresholdType: equal
  interval: 1h
`);
    expect(result.problems).toEqual([]);
    expect(
      result.resources.map(
        (resource) => resource.kind === 'Alert' && [resource.source, resource.thresholdType, resource.channel],
      ),
    ).toEqual([
      ['saved_search', 'between', { type: 'webhook', webhook: 'ops' }],
      ['search', 'equal', undefined],
    ]);
  });

  it('take a range threshold without thresholdMax: the live one is kept', async () => {
    const result = await load(`${header('Alert', 'errors')}  name: errors
  source: saved_search
  savedSearchId: s1
  threshold: 5
  thresholdType: not_between
  interval: 15m
`);
    expect(result.problems).toEqual([]);
  });
});

describe('pipes', () => {
  const pipe = (members: string): string => `${header('Pipe', 'events')}  pipeId: ${PIPE_ID}
  source:
    kafka:
${members}`;

  it('take Update pipe members the real service has beyond the seed, with a warning naming each', async () => {
    const result = await load(
      pipe('      authentication: SCRAM-SHA-512\n      tlsHost: broker.internal\n      disableTls: false\n'),
    );
    expect(result.problems).toEqual([]);
    const [resource] = result.resources;
    expect(resource?.kind === 'Pipe' && resource.source?.block).toEqual({
      authentication: 'SCRAM-SHA-512',
      tlsHost: 'broker.internal',
      disableTls: false,
    });
    expect(result.warnings.map((warning) => warning.message)).toEqual([
      expect.stringMatching(/spec\.source\.kafka\.authentication.*sent as written/),
      expect.stringMatching(/spec\.source\.kafka\.tlsHost.*sent as written/),
      expect.stringMatching(/spec\.source\.kafka\.disableTls.*sent as written/),
    ]);
  });

  it('still refuse a misspelt member, with a did-you-mean', async () => {
    const result = await load(pipe('      tlsHots: broker.internal\n'));
    expect(result.problems).toEqual([
      expect.objectContaining({
        code: 'E_MANIFEST_INVALID',
        message: expect.stringContaining('did you mean tlsHost?'),
      }),
    ]);
  });
});
