/** A small plan with one change of every action, used by the renderer tests. */
import { buildPlan } from '../../src/plan/index.js';
import type { Change, Plan } from '../../src/model/plan.js';

function change(fields: Partial<Change> & Pick<Change, 'kind' | 'name' | 'action'>): Change {
  return { target: 'prod', diff: [], operations: [], dependsOn: [], warnings: [], ...fields };
}

export function samplePlan(): Plan {
  const changes: Change[] = [
    change({
      kind: 'Pipe',
      name: 'orders',
      action: 'update',
      id: 'p-1',
      file: 'manifests/pipes.yaml',
      line: 3,
      diff: [
        { path: 'name', before: 'orders', after: 'orders-v2' },
        { path: 'source.kafka.credentials', before: '(sensitive)', after: '(sensitive)' },
      ],
      operations: [
        {
          type: 'updatePipe',
          id: 'p-1',
          patch: { name: 'orders-v2', source: { kafka: { credentials: { username: 'u', password: 'TOP-SECRET' } } } },
        },
      ],
      secretHashes: { 'source.kafka.credentials.password': 'abc123' },
    }),
    change({
      kind: 'Dashboard',
      name: 'api-latency',
      action: 'create',
      file: 'manifests/api.yaml',
      line: 1,
      diff: [{ path: 'name', after: 'API latency' }],
    }),
    change({
      kind: 'Dashboard',
      name: 'web',
      action: 'update',
      id: 'd-2',
      file: 'manifests/web.yaml',
      line: 1,
      diff: [
        { path: 'tiles[p99].w', before: 4, after: 6 },
        { path: 'tiles[old]', before: { name: 'old' } },
      ],
      warnings: ['the server deletes alerts watching removed tiles: Alert legacy'],
    }),
    change({ kind: 'Dashboard', name: 'shared', action: 'adopt', id: 'd-3', file: 'manifests/shared.yaml', line: 2 }),
    change({ kind: 'Dashboard', name: 'same', action: 'unchanged', id: 'd-4', file: 'manifests/same.yaml', line: 1 }),
    change({
      kind: 'Alert',
      name: 'p99-high',
      action: 'create',
      file: 'manifests/api.yaml',
      line: 20,
      diff: [{ path: 'tileId', after: '(known after apply)' }],
    }),
    change({
      kind: 'Pipe',
      name: 'ghost',
      action: 'error',
      file: 'manifests/ghost.yaml',
      line: 4,
      code: 'E_API_NOT_FOUND',
      error: 'pipe x does not exist',
    }),
    change({ kind: 'Alert', name: 'gone', action: 'delete', id: 'a-9' }),
    change({ kind: 'Dashboard', name: 'old', action: 'orphan', id: 'd-5', liveName: 'Old' }),
  ];
  return buildPlan(
    changes,
    [
      {
        file: 'manifests/bad.yaml',
        line: 3,
        column: 7,
        code: 'E_MANIFEST_INVALID',
        message: 'spec.tiles[0].w: must be <= 24',
      },
    ],
    [
      {
        file: 'config/stacksync.yaml',
        line: 9,
        code: 'E_CONFIG_INVALID',
        message: 'a plain-string secret; use fromEnv or fromFile',
      },
    ],
  );
}
