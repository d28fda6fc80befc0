/**
 * What docs/export.md says export does, claim by claim, through the built CLI against the
 * emulator of each profile: which pipes come out with `spec.pipeId` and which born in Git (with
 * `state` and `scaling`), how a saved-search alert names its saved search and spells its source,
 * which kinds a plan of the export shows as `adopt`, and the one sentence that names a live
 * resource export cannot write.
 */
import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { DEFAULT_SEED_IDS, type Profile, type RunningEmulator } from '../../src/emulator/index.js';
import { describeRun, parseJsonOutput } from '../helpers/e2e.js';
import { createWorkspace, startTestEmulator, type CliResult, type Workspace } from '../helpers/workspace.js';

const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 };
const KAFKA_ENV = { KAFKA_USERNAME: 'consumer', KAFKA_PASSWORD: 'hunter2' };

/** A kafka pipe born in Git (as docs/manifests/pipe.md writes one), stopped. */
const BORN_PIPE = `apiVersion: stacksync/v1
kind: Pipe
metadata: { name: payments-stream }
spec:
  name: payments-stream
  source:
    kafka:
      type: confluent
      format: JSONEachRow
      brokers: pkc-1234.eu-west-1.aws.confluent.cloud:9092
      topics: payments
      consumerGroup: stacksync-payments
      offset: { strategy: from_latest }
      authentication: PLAIN
      credentials:
        username: { fromEnv: KAFKA_USERNAME }
        password: { fromEnv: KAFKA_PASSWORD }
  destination:
    database: default
    table: payments
    managedTable: true
    tableDefinition: { engine: { type: MergeTree }, sortingKey: [payment_id] }
    columns:
      - { name: payment_id, type: String }
  fieldMappings:
    - { sourceField: paymentId, destinationField: payment_id }
  scaling: { replicas: 2, replicaCpuMillicores: 500, replicaMemoryGb: 2 }
  state: Stopped
`;

const searchAlert = (reference: string, channel: string): string => `apiVersion: stacksync/v1
kind: Alert
metadata: { name: error-burst }
spec:
  name: Error burst
  source: saved_search
  ${reference}
  threshold: 10
  thresholdType: above
  interval: 5m
  channel: ${channel}
`;

const specOf = async (workspace: Workspace, file: string): Promise<Record<string, unknown>> =>
  (
    parseDocument(await readFile(join(workspace.dir, 'exported', file), 'utf8')).toJS() as {
      spec: Record<string, unknown>;
    }
  ).spec;

interface Opened {
  emulator: RunningEmulator;
  workspace: Workspace;
  /** `plan --output json` before the apply. */
  plan: ReturnType<typeof parseJsonOutput>;
  exported: CliResult;
}

async function open(profile: Profile, manifests: Record<string, string>): Promise<Opened> {
  const emulator = await startTestEmulator({ profile, pipeTransitionMs: 0 });
  const workspace = await createWorkspace(emulator.url, { apiProfile: profile, rateLimit: FAST });
  Object.assign(workspace.env, KAFKA_ENV);
  for (const [name, text] of Object.entries(manifests)) await workspace.write(`manifests/${name}`, text);
  const planned = await workspace.run(['plan', '--output', 'json', '--target', 'local']);
  const plan = parseJsonOutput(planned);
  const applied = await workspace.run(['apply', '--target', 'local']);
  if (applied.code !== 0) throw new Error(describeRun(applied));
  const exported = await workspace.run(['export', '--target', 'local', '--out', 'exported']);
  return { emulator, workspace, plan, exported };
}

describe('export, as docs/export.md describes it, on the current profile', () => {
  let opened: Opened;
  let fresh: Workspace;
  beforeAll(async () => {
    opened = await open('current', {
      'pipe.yaml': BORN_PIPE,
      'alert.yaml': searchAlert('savedSearch: errors', '{ type: webhook, webhook: on-call }'),
    });
    // A plan of the export by someone who owns nothing yet.
    fresh = await createWorkspace(opened.emulator.url, { apiProfile: 'current', rateLimit: FAST });
    await cp(join(opened.workspace.dir, 'exported'), fresh.manifestsDir, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await fresh?.dispose();
    await opened?.workspace.dispose();
    await opened?.emulator.close();
  });

  it('plans a saved-search alert with source saved_search, the spelling the manifests document', () => {
    const alert = opened.plan.changes.find((change) => change.kind === 'Alert');
    expect(alert?.diff.find((field) => field.path === 'source')).toMatchObject({ after: 'saved_search' });
  });

  it('writes a pipe whose live object holds what a create takes born in Git: no pipeId, with scaling and state', async () => {
    expect(opened.exported.code, describeRun(opened.exported)).toBe(0);
    const spec = await specOf(opened.workspace, 'pipes/payments-stream.yaml');
    expect(spec).not.toHaveProperty('pipeId');
    expect(spec).toMatchObject({ name: 'payments-stream', scaling: { replicas: 2 }, state: 'Stopped' });
  });

  it('writes a pipe that lacks what a create takes with spec.pipeId, and neither state nor scaling', async () => {
    const spec = await specOf(opened.workspace, 'pipes/orders-kafka.yaml');
    expect(spec['pipeId']).toBe(DEFAULT_SEED_IDS.pipes.kafka);
    expect(spec).not.toHaveProperty('state');
    expect(spec).not.toHaveProperty('scaling');
  });

  it('names a search alert its saved search and webhook by name, with source saved_search', async () => {
    const spec = await specOf(opened.workspace, 'alerts/error-burst.yaml');
    expect(spec).toMatchObject({
      source: 'saved_search',
      savedSearch: 'errors',
      channel: { type: 'webhook', webhook: 'on-call' },
    });
    expect(spec).not.toHaveProperty('savedSearchId');
  });

  it('writes every live object it can, and skips only the predefined roles, each with its reason', () => {
    // What export cannot write is skipped with one sentence (test/export/convert.test.ts); the
    // emulator's current account holds nothing of that kind but the service's predefined roles.
    const skipped = opened.exported.stderr.split('\n').filter((line) => line.includes('skipped'));
    expect(skipped).toHaveLength(3);
    for (const line of skipped)
      expect(line).toMatch(
        /^stacksync: skipped Role "[^"]+" \([0-9a-f]{24}\): a predefined role: the service makes it, and it cannot be changed$/,
      );
  });

  it('shows, without --adopt, what is matched by name as adopt (born pipes, sources, webhooks, alerts) and pipes by pipeId as unchanged', async () => {
    const plan = await fresh.run(['plan', '--output', 'json', '--target', 'local', '--detailed-exitcode']);
    expect(plan.code, describeRun(plan)).toBe(2);
    const { changes, summary } = parseJsonOutput(plan);
    expect(summary).toMatchObject({ create: 0, update: 0, delete: 0, errors: 0 });
    const actions = (kind: string): string[] =>
      [...new Set(changes.filter((change) => change.kind === kind).map((change) => change.action))].sort();
    expect(actions('Source')).toEqual(['adopt']);
    expect(actions('Webhook')).toEqual(['adopt']);
    expect(actions('Alert')).toEqual(['adopt']);
    expect(changes.find((change) => change.name === 'payments-stream')?.action).toBe('adopt');
    expect(changes.find((change) => change.name === 'orders-kafka')?.action).toBe('unchanged');
  });
});

describe('export, as docs/export.md describes it, on the seed profile', () => {
  let opened: Opened;
  beforeAll(async () => {
    opened = await open('seed', {
      'alert.yaml': searchAlert('savedSearchId: 65f5e4a3b9e77c001a123456', '{ type: webhook, webhookId: any-id }'),
    });
  }, 120_000);
  afterAll(async () => {
    await opened?.workspace.dispose();
    await opened?.emulator.close();
  });

  it('plans and exports a search alert as saved_search though the seed answers search, naming its saved search by id', async () => {
    const alert = opened.plan.changes.find((change) => change.kind === 'Alert');
    expect(alert?.diff.find((field) => field.path === 'source')).toMatchObject({ after: 'saved_search' });
    expect(opened.exported.code, describeRun(opened.exported)).toBe(0);
    const spec = await specOf(opened.workspace, 'alerts/error-burst.yaml');
    expect(spec).toMatchObject({
      source: 'saved_search',
      savedSearchId: '65f5e4a3b9e77c001a123456',
      channel: { type: 'webhook', webhookId: 'any-id' },
    });
    expect(spec).not.toHaveProperty('savedSearch');
  });

  it("writes the seed's pipes that lack what a create takes with spec.pipeId, without state or scaling", async () => {
    for (const [file, id] of [
      ['pipes/orders-kafka.yaml', DEFAULT_SEED_IDS.pipes.kafka],
      ['pipes/events-s3.yaml', DEFAULT_SEED_IDS.pipes.objectStorage],
      ['pipes/clicks-kinesis.yaml', DEFAULT_SEED_IDS.pipes.kinesis],
    ]) {
      const spec = await specOf(opened.workspace, file ?? '');
      expect(spec['pipeId'], file).toBe(id);
      expect(spec, file).not.toHaveProperty('state');
      expect(spec, file).not.toHaveProperty('scaling');
    }
  });
});
