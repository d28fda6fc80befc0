/**
 * Issue 32: a managed service's API has no connection path (docs/api-client.md, "What the
 * documents offer and stacksync does not"), so stacksync never calls one on a managed target. A
 * managed Source names the platform's connection by id: it plans, applies, plans clean and
 * exports on `--profile current`, and no request goes to `…/stack/connections` (the emulator's
 * current profile answers 404 there, as the real service does). A Source that names the
 * connection by name, or a Connection manifest, on a managed target is a problem `validate`
 * finds at its line, and changes nothing. Through the built CLI against the emulator on loopback.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CURRENT_IDS, DEFAULT_SEED_IDS, defaultSeed } from '../../src/emulator/index.js';
import { describeRun, parseJsonOutput } from '../helpers/e2e.js';
import { emulatorStats, resetEmulatorStats, sharedEmulator } from '../helpers/workspace.js';

const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 } as const;
const SERVICE = `/v1/organizations/${DEFAULT_SEED_IDS.organizationId}/services/${DEFAULT_SEED_IDS.serviceId}`;
const CONNECTION = DEFAULT_CURRENT_IDS.service.connection;

function sourceYaml(connection: string, select = 'Timestamp, Body'): string {
  return `apiVersion: stacksync/v1
kind: Source
metadata: { name: edge-logs, target: local }
spec:
  name: Edge logs
  kind: log
  ${connection}
  from: { databaseName: otel, tableName: edge_logs }
  timestampValueExpression: Timestamp
  defaultTableSelectExpression: ${select}
`;
}

/** Every request the emulator served whose route names connections. */
async function connectionCalls(url: string): Promise<string[]> {
  const stats = await emulatorStats(url);
  return stats.routes
    .filter((each) => each.route.includes('connections'))
    .map((each) => `${each.method} ${each.route}`);
}

describe('a managed Source on the current profile', () => {
  const shared = sharedEmulator({ profile: 'current', seed: defaultSeed('current') });

  it('the emulator answers 404 on the managed connection path, which the real service does not have', async () => {
    const { url } = shared.emulator;
    const auth = `Basic ${Buffer.from(`${DEFAULT_SEED_IDS.keyId}:${DEFAULT_SEED_IDS.keySecret}`).toString('base64')}`;
    for (const path of [`${SERVICE}/stack/connections`, `${SERVICE}/stack/connections/${CONNECTION}`]) {
      const response = await fetch(`${url}${path}`, { headers: { authorization: auth } });
      await response.body?.cancel();
      expect(response.status, path).toBe(404);
    }
    // The service's other lists still answer.
    const sources = await fetch(`${url}${SERVICE}/stack/sources`, { headers: { authorization: auth } });
    await sources.body?.cancel();
    expect(sources.status).toBe(200);
  });

  it('names the connection by id: plans, applies, plans clean and exports, without a call to a connection path', async () => {
    const { url } = shared.emulator;
    const workspace = await shared.workspace({ rateLimit: FAST, apiProfile: 'current' });
    await workspace.write('manifests/source.yaml', sourceYaml(`connectionId: "${CONNECTION}"`));
    await resetEmulatorStats(url);

    expect((await workspace.run(['validate'])).code).toBe(0);
    const first = await workspace.run(['plan', '--target', 'local', '--detailed-exitcode', '--output', 'json']);
    expect(first.code, describeRun(first)).toBe(2);
    expect(parseJsonOutput(first).changes.map((change) => `${change.action} ${change.kind}`)).toEqual([
      'create Source',
    ]);

    const applied = await workspace.run(['apply', '--target', 'local']);
    expect(applied.code, describeRun(applied)).toBe(0);
    const clean = await workspace.run(['plan', '--target', 'local', '--detailed-exitcode']);
    expect(clean.code, describeRun(clean)).toBe(0);

    // A change is sent, and then the plan is clean again.
    await workspace.write(
      'manifests/source.yaml',
      sourceYaml(`connectionId: "${CONNECTION}"`, 'Timestamp, ServiceName, Body'),
    );
    expect((await workspace.run(['apply', '--target', 'local'])).code).toBe(0);
    expect((await workspace.run(['plan', '--target', 'local', '--detailed-exitcode'])).code).toBe(0);

    // Export writes the connection as the id the live source holds, and its plan is clean.
    const fresh = await shared.workspace({ rateLimit: FAST, apiProfile: 'current' });
    const exported = await fresh.run([
      'export',
      '--out',
      'manifests',
      '--adopt',
      '--target',
      'local',
      '--kind',
      'Source',
    ]);
    expect(exported.code, describeRun(exported)).toBe(0);
    const text = await readFile(join(fresh.manifestsDir, 'sources', 'edge-logs.yaml'), 'utf8');
    expect(text).toContain(`connectionId: ${CONNECTION}`);
    const plan = await fresh.run(['plan', '--target', 'local', '--detailed-exitcode']);
    expect(plan.code, describeRun(plan)).toBe(0);

    expect(await connectionCalls(url)).toEqual([]);
  }, 120_000);

  it('a Source naming the connection by name, and a Connection manifest, are errors at their lines; nothing is written', async () => {
    const { url } = shared.emulator;
    const workspace = await shared.workspace({ rateLimit: FAST, apiProfile: 'current' });
    await workspace.write('manifests/source.yaml', sourceYaml('connection: Default'));
    await workspace.write(
      'manifests/connection.yaml',
      'apiVersion: stacksync/v1\nkind: Connection\nmetadata: { name: ch, target: local }\nspec:\n  name: ch\n  host: https://ch.example.com:8443\n  username: default\n',
    );
    await resetEmulatorStats(url);
    const validated = await workspace.run(['validate']);
    expect(validated.code, describeRun(validated)).toBe(1);
    const output = validated.stdout + validated.stderr;
    expect(output).toMatch(/manifests\/source\.yaml:7:\d+/);
    expect(output).toContain('name it by id with connectionId');
    expect(output).toMatch(/manifests\/connection\.yaml:3:\d+/);
    const plan = await workspace.run(['plan', '--target', 'local']);
    expect(plan.code, describeRun(plan)).toBe(1);
    const stats = await emulatorStats(url);
    expect(stats.writes).toBe(0);
    expect(await connectionCalls(url)).toEqual([]);
  }, 60_000);
});
