/**
 * Issue 32: ClickStack roles are a kind of their own (`Role`, managed services of the current
 * profile; docs/manifests/role.md). Beyond the conformance walk (`src/kinds/role/conformance.yaml`):
 * the service's predefined roles are never changed, adopted, exported or deleted; a plan of a
 * target without a Role manifest makes no call for the list; a Role manifest for a self-hosted
 * target is an error at its line. The emulator answers as the managed API does: predefined roles
 * refuse changes (400), a custom role cannot take a predefined one's name (400). Through the
 * built CLI and over HTTP against the emulator on loopback.
 */
import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SEED_IDS, defaultSeed } from '../../src/emulator/index.js';
import { describeRun, parseJsonOutput } from '../helpers/e2e.js';
import { emulatorStats, resetEmulatorStats, sharedEmulator } from '../helpers/workspace.js';

const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 } as const;
const ROLES = `/v1/organizations/${DEFAULT_SEED_IDS.organizationId}/services/${DEFAULT_SEED_IDS.serviceId}/stack/roles`;
const AUTH = `Basic ${Buffer.from(`${DEFAULT_SEED_IDS.keyId}:${DEFAULT_SEED_IDS.keySecret}`).toString('base64')}`;

interface Role {
  id: string;
  name: string;
  isPredefined: boolean;
}

function roleYaml(key: string, name: string, target = 'local'): string {
  return `apiVersion: stacksync/v1
kind: Role
metadata: { name: ${key}, target: ${target} }
spec:
  name: ${name}
  permissions:
    - { action: read, subject: dashboard }
`;
}

async function call(
  url: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: { result?: unknown; error?: string } }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: AUTH, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as { result?: unknown; error?: string } };
}

async function roleCalls(url: string): Promise<number> {
  const stats = await emulatorStats(url);
  return stats.routes.filter((each) => each.route.endsWith('/stack/roles')).reduce((sum, each) => sum + each.count, 0);
}

describe('ClickStack roles on a managed service', () => {
  const shared = sharedEmulator({ profile: 'current', seed: defaultSeed('current') });

  it('the emulator keeps predefined roles as the service does: listed, never changed, deleted or renamed onto', async () => {
    const { url } = shared.emulator;
    const listed = (await call(url, 'GET', ROLES)).json.result as Role[];
    const predefined = listed.filter((role) => role.isPredefined);
    expect(predefined.map((role) => role.name)).toEqual(['Admin', 'Member', 'Read Only']);
    const [admin] = predefined;
    if (!admin) throw new Error('a predefined role');
    const permissions = [{ action: 'read', subject: 'all' }];
    expect((await call(url, 'PUT', `${ROLES}/${admin.id}`, { permissions })).status).toBe(400);
    expect((await call(url, 'DELETE', `${ROLES}/${admin.id}`)).status).toBe(400);
    expect((await call(url, 'POST', ROLES, { name: 'Admin', permissions })).status).toBe(400);
    // The gateway refuses a member the request schema does not name; a missing required member is a 400 too.
    expect((await call(url, 'POST', ROLES, { name: 'Ops', permissions, isPredefined: false })).status).toBe(400);
    expect((await call(url, 'POST', ROLES, { name: 'Ops' })).status).toBe(400);
    const made = await call(url, 'POST', ROLES, { name: 'Ops', permissions });
    expect(made.status).toBe(200);
    const ops = made.json.result as Role;
    expect(ops).toMatchObject({ name: 'Ops', isPredefined: false });
    expect((await call(url, 'POST', ROLES, { name: 'Ops', permissions })).status).toBe(400);
    expect((await call(url, 'GET', `${ROLES}/${ops.id}`)).json.result).toEqual(ops);
    expect((await call(url, 'DELETE', `${ROLES}/${ops.id}`)).status).toBe(200);
    expect((await call(url, 'GET', `${ROLES}/${ops.id}`)).status).toBe(404);
  });

  it('a manifest named as a predefined role is an error row; nothing is written, and a plan without roles never lists them', async () => {
    const { url } = shared.emulator;
    const workspace = await shared.workspace({ rateLimit: FAST, apiProfile: 'current' });
    await workspace.write('manifests/readme.yaml', '# nothing yet\n');
    await resetEmulatorStats(url);
    expect((await workspace.run(['plan', '--target', 'local', '--detailed-exitcode'])).code).toBe(0);
    expect(await roleCalls(url)).toBe(0);

    await workspace.write('manifests/admin.yaml', roleYaml('admin', 'Admin'));
    const plan = await workspace.run(['plan', '--target', 'local', '--output', 'json', '--adopt']);
    expect(plan.code, describeRun(plan)).toBe(1);
    const [change] = parseJsonOutput(plan).changes;
    expect(change).toMatchObject({ kind: 'Role', name: 'admin', action: 'error', code: 'E_MANIFEST_INVALID' });
    expect(change?.error).toContain('predefined');
    const apply = await workspace.run(['apply', '--target', 'local', '--adopt']);
    expect(apply.code).not.toBe(0);
    expect((await emulatorStats(url)).writes).toBe(0);
  }, 60_000);

  it('export writes custom roles and leaves the predefined ones out; prune deletes only the role stacksync made', async () => {
    const { url } = shared.emulator;
    const workspace = await shared.workspace({ rateLimit: FAST, apiProfile: 'current' });
    await workspace.write('manifests/deploy.yaml', roleYaml('deploy', 'Deploy bot'));
    const applied = await workspace.run(['apply', '--target', 'local']);
    expect(applied.code, describeRun(applied)).toBe(0);
    expect((await workspace.run(['plan', '--target', 'local', '--detailed-exitcode'])).code).toBe(0);

    const fresh = await shared.workspace({ rateLimit: FAST, apiProfile: 'current' });
    const exported = await fresh.run(['export', '--out', 'manifests', '--target', 'local', '--kind', 'Role']);
    expect(exported.code, describeRun(exported)).toBe(0);
    expect(await readdir(`${fresh.manifestsDir}/roles`)).toEqual(['deploy-bot.yaml']);
    expect(exported.stdout + exported.stderr).toContain('predefined role');

    await workspace.remove('manifests/deploy.yaml');
    await workspace.write('manifests/readme.yaml', '# nothing here\n');
    const pruned = await workspace.run(['apply', '--target', 'local', '--prune', '--force']);
    expect(pruned.code, describeRun(pruned)).toBe(0);
    const left = (await call(url, 'GET', ROLES)).json.result as Role[];
    expect(left.map((role) => role.name)).toEqual(['Admin', 'Member', 'Read Only']);
  }, 90_000);

  it('a Role manifest for a self-hosted target is an error at its line', async () => {
    const workspace = await shared.workspace({ rateLimit: FAST, apiProfile: 'current' });
    await workspace.write('manifests/role.yaml', roleYaml('ops', 'Ops', 'local-selfhosted'));
    const validated = await workspace.run(['validate']);
    expect(validated.code, describeRun(validated)).toBe(1);
    expect(validated.stdout).toMatch(
      /manifests\/role\.yaml:3:\d+: E_MANIFEST_INVALID: metadata\.target: a Role needs a managed target with api profile current/,
    );
  });
});
