/** Inline file trees in temp dirs, and a config with one target of each variant. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Config } from '../../src/model/config.js';

export type Tree = Record<string, string | Uint8Array>;

const made: string[] = [];

/** Writes `tree` under a fresh temp dir and returns the dir. */
export async function writeTree(tree: Tree): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'stacksync-manifests-'));
  made.push(root);
  for (const [path, content] of Object.entries(tree)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

export async function removeTrees(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

export const config: Config = {
  targets: [
    {
      name: 'prod',
      variant: 'managed',
      baseUrl: 'http://127.0.0.1:1',
      organizationId: '0b4f6c1e-4d2a-4f6b-9a51-7c3d2e1f0a01',
      serviceId: '9c1e2b7e-3a4d-4c5b-8e6f-1a2b3c4d5e01',
      auth: { keyId: 'k', keySecret: 's' },
      rateLimit: { requests: 10, perSeconds: 10, concurrency: 2 },
    },
    {
      name: 'sh',
      variant: 'self-hosted',
      baseUrl: 'http://127.0.0.1:2',
      auth: { token: 't' },
      rateLimit: { requests: 100, perSeconds: 60, concurrency: 4 },
    },
  ],
  defaultTarget: 'prod',
  sync: {
    intervalMs: 300_000,
    drift: 'heal',
    prune: false,
    maxDeletes: 10,
    maxDeletePercent: 25,
    adopt: false,
    lateCreateWindowMs: 120_000,
    markManaged: false,
  },
  state: { backend: 'file', path: '/tmp/stacksync-test-state.json' },
};

/** A visible, deterministic stand-in for the state's HMAC. */
export const hmac = (value: string): string => `hmac(${value.length})`;

export const dashboard = (name: string, extra = '', target = ''): string => `apiVersion: stacksync/v1
kind: Dashboard
metadata:
  name: ${name}${target ? `\n  target: ${target}` : ''}
spec:
  name: ${name} board
  tags: [team-a]
  tiles:
    - name: p99
      x: 0
      y: 0
      w: 6
      h: 4
      series:
        - { type: time, aggFn: quantile, dataSource: events }
    - name: errors
      x: 6
      y: 0
      w: 6
      h: 4
      asRatio: true
      series:
        - { type: number, aggFn: count, where: "level:error" }
${extra}`;

export const alert = (
  name: string,
  dashboardName: string,
  tile: string,
  target = '',
): string => `apiVersion: stacksync/v1
kind: Alert
metadata:
  name: ${name}${target ? `\n  target: ${target}` : ''}
spec:
  name: ${name} alert
  threshold: 1.5
  thresholdType: above
  interval: 5m
  source: tile
  dashboard: ${dashboardName}
  tile: ${tile}
  channel: { type: webhook, webhookId: hook-1 }
`;

export const PIPE_ID = '7a0e1f2c-0001-4b3a-9c4d-5e6f7a8b9c01';

export const kafkaPipe = (credentials = ''): string => `apiVersion: stacksync/v1
kind: Pipe
metadata:
  name: orders
spec:
  pipeId: ${PIPE_ID}
  name: orders-kafka
  source:
    kafka:
      iamRole: arn:aws:iam::123:role/ingest${credentials}
  destination:
    columns:
      - { name: id, type: UInt64 }
  fieldMappings:
    - { sourceField: id, destinationField: id }
  settings:
    streaming_max_insert_wait_ms: 5000
`;
