/**
 * Issue 23's conformance walk (run by the contract suite, `test/contract/traffic-seed.test.ts` and `traffic-current.test.ts`, one
 * profile each, so the two run side by side): every registered kind, from its one fixture in its
 * folder (`src/kinds/<kind>/conformance.yaml`; README.md beside this file), through every stage — validate, plan, apply, plan clean,
 * update, prune without and with proof, export → plan clean — on both emulator profiles and on
 * every variant that can write the kind under that profile (a seed-profile target has no webhooks,
 * a managed service's connections are the platform's), through the built CLI against the
 * emulator on loopback. A kind added to the registry without a fixture fails here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { DEFAULT_CURRENT_IDS, DEFAULT_SEED_IDS, type Profile, type RunningEmulator } from '../../src/emulator/index.js';
import { accessOf, descriptorOf, DESCRIPTORS } from '../../src/kinds/index.js';
import type { Kind, Variant } from '../../src/model/kinds.js';
import { conformanceFileOf, ROOT } from '../helpers/kinds.js';
import { createWorkspace, startTestEmulator, type CliResult, type Workspace } from '../helpers/workspace.js';

interface ProfileFixture {
  requires?: string;
  manifest: string;
  /** One `spec` member and its new value, or several members that only change together (a CDC scaling's CPU and memory). */
  update: { member: string; value: unknown } | { members: Record<string, unknown> };
}

interface KindFixture {
  kind: string;
  /** What the walk is of, when a kind's file holds more than one (a pipe born in Git, an existing pipe). */
  form?: string;
  firstAction: 'create' | 'update';
  prunable: boolean;
  /** One entry per profile under which some variant can write the kind; none for the others. */
  profiles: Partial<Record<Profile, ProfileFixture>>;
}

const PROFILES: readonly Profile[] = ['seed', 'current'];

/** The variants that can write `kind` under `profile`: where its manifests apply (elsewhere they are an error, or it has no such kind). */
function writableVariants(kind: Kind, profile: Profile): Variant[] {
  return (Object.keys(descriptorOf(kind).routes) as Variant[]).filter(
    (variant) => accessOf(kind, variant, profile) === 'write',
  );
}

const TARGET_OF: Record<Variant, 'local' | 'local-selfhosted'> = {
  managed: 'local',
  'self-hosted': 'local-selfhosted',
};

function fixtureOf(kind: string): KindFixture | undefined {
  return fixturesOf(kind)[0];
}

/** Every walk of a kind: its file may hold several documents, one per form of its manifests. */
function fixturesOf(kind: string): KindFixture[] {
  const path = join(ROOT, conformanceFileOf(kind));
  return existsSync(path) ? parseAllDocuments(readFileSync(path, 'utf8')).map((doc) => doc.toJS() as KindFixture) : [];
}

/** The fixture's text with its placeholders filled for one target of one profile. */
function filled(text: string, variant: Variant, profile: Profile): string {
  const current = variant === 'managed' ? DEFAULT_CURRENT_IDS.service : DEFAULT_CURRENT_IDS.team;
  const values: Record<string, string> = {
    target: TARGET_OF[variant],
    savedSearch: profile === 'current' ? current.savedSearch : 'saved-1',
    connection: current.connection,
    ...Object.fromEntries(Object.entries(DEFAULT_SEED_IDS.pipes).map(([source, id]) => [`pipes.${source}`, id])),
  };
  return text.replace(/\{\{([\w.]+)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`unknown placeholder {{${name}}}`);
    return value;
  });
}

interface PlanJson {
  changes: { kind: string; name: string; action: string }[];
}

function actionOf(result: CliResult, kind: string, name: string): string | undefined {
  const plan = JSON.parse(result.stdout) as PlanJson;
  return plan.changes.find((change) => change.kind === kind && change.name === name)?.action;
}

function expectExit(result: CliResult, code: number, what: string): void {
  expect(result.code, `${what}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(code);
}

/** Every registered kind has a fixture, and every fixture names a registered kind. */
export function checkFixtures(): void {
  it('every registered kind has a fixture, and every fixture names a registered kind', async () => {
    const missing = DESCRIPTORS.filter((descriptor) => fixtureOf(descriptor.kind) === undefined).map(
      (descriptor) => descriptor.kind,
    );
    expect(missing).toEqual([]);
    // Each fixture in a kind's folder is that kind's: it names the kind the folder is of.
    for (const descriptor of DESCRIPTORS)
      for (const fixture of fixturesOf(descriptor.kind))
        expect(fixture.kind, conformanceFileOf(descriptor.kind)).toBe(descriptor.kind);
    const kinds = join(ROOT, 'src', 'kinds');
    const folders = (await readdir(kinds, { withFileTypes: true })).filter((entry) => entry.isDirectory());
    const fixtures = folders
      .filter((folder) => existsSync(join(kinds, folder.name, 'conformance.yaml')))
      .map((folder) => `src/kinds/${folder.name}/conformance.yaml`);
    expect(fixtures.sort()).toEqual(DESCRIPTORS.map((descriptor) => conformanceFileOf(descriptor.kind)).sort());
  });

  it('every fixture, each form of it, covers exactly the profiles under which its kind can be written', () => {
    for (const descriptor of DESCRIPTORS) {
      const writable = PROFILES.filter((profile) => writableVariants(descriptor.kind, profile).length > 0).sort();
      for (const fixture of fixturesOf(descriptor.kind))
        expect(Object.keys(fixture.profiles).sort(), `${descriptor.kind} (${fixture.form ?? 'manifest'})`).toEqual(
          writable,
        );
    }
  });
}

/** Something in front of the walk's emulator that the CLI talks to instead (the contract suite's recording proxy). */
export interface Front {
  url: string;
  close(): Promise<void>;
}

/**
 * Registers the walk of every kind on every variant it has, against one emulator of `profile`;
 * with `front`, the CLI talks to what it puts in front of the emulator.
 */
export function walkEveryKind(profile: Profile, front?: (emulatorUrl: string) => Promise<Front>): void {
  let emulator: RunningEmulator | undefined;
  let url: string | undefined;
  let before: Front | undefined;
  const workspaces: Workspace[] = [];
  beforeAll(async () => {
    emulator = await startTestEmulator({ profile });
    before = front ? await front(emulator.url) : undefined;
    url = before?.url ?? emulator.url;
  });
  afterAll(async () => {
    await Promise.all(workspaces.map((workspace) => workspace.dispose()));
    await before?.close();
    await emulator?.close();
  });
  const workspaceOn = async (): Promise<Workspace> => {
    if (!url) throw new Error(`no ${profile} emulator`);
    const workspace = await createWorkspace(url, {
      apiProfile: profile,
      rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
    });
    workspaces.push(workspace);
    return workspace;
  };
  const cases = DESCRIPTORS.flatMap((descriptor) =>
    writableVariants(descriptor.kind, profile).flatMap((variant) =>
      fixturesOf(descriptor.kind).map((fixture, index) => ({
        kind: descriptor.kind,
        variant,
        index,
        form: fixture.form ?? 'manifest',
      })),
    ),
  );
  describe.each(cases)(`$kind ($form) on $variant, ${profile} profile`, ({ kind, variant, index }) =>
    walkKind(kind, index, variant, profile, workspaceOn),
  );
}

function walkKind(
  kind: string,
  index: number,
  variant: Variant,
  profile: Profile,
  workspaceOn: () => Promise<Workspace>,
): void {
  const fixture = fixturesOf(kind)[index];
  if (!fixture) return;
  const target = TARGET_OF[variant];
  const own = fixture.profiles[profile];
  if (!own) throw new Error(`the ${kind} fixture (${fixture.form ?? 'manifest'}) has no ${profile} profile`);
  const manifest = parse(filled(own.manifest, variant, profile)) as {
    metadata: { name: string };
    spec: Record<string, unknown>;
  };
  const key = manifest.metadata.name;
  const requires = own.requires ? filled(own.requires, variant, profile) : undefined;

  it('goes through every stage', async () => {
    const workspace = await workspaceOn();
    const write = (spec: unknown): Promise<void> =>
      workspace.write('manifests/kind.yaml', [requires, stringify(spec)].filter(Boolean).join('---\n'));
    const plan = (): Promise<CliResult> =>
      workspace.run(['plan', '--target', target, '--output', 'json', '--detailed-exitcode']);

    // 1. Validate, offline.
    await write(manifest);
    expectExit(await workspace.run(['validate']), 0, 'validate');
    // 2. Plan: the kind's first action.
    const first = await plan();
    expectExit(first, 2, 'first plan');
    expect(actionOf(first, kind, key)).toBe(fixture.firstAction);
    // 3. Apply, then the plan is clean.
    expectExit(await workspace.run(['apply', '--target', target]), 0, 'apply');
    expectExit(await plan(), 0, 'plan after apply');
    // 4. Update one member: planned as an update, applied, clean again.
    const changed = 'members' in own.update ? own.update.members : { [own.update.member]: own.update.value };
    const updated = { ...manifest, spec: { ...manifest.spec, ...changed } };
    await write(updated);
    const update = await plan();
    expectExit(update, 2, 'plan of the update');
    expect(actionOf(update, kind, key)).toBe('update');
    expectExit(await workspace.run(['apply', '--target', target]), 0, 'apply of the update');
    expectExit(await plan(), 0, 'plan after the update');
    // 5. Export → plan clean: a fresh workspace adopts the export and finds nothing to change.
    const onboarding = await workspaceOn();
    expectExit(await onboarding.run(['export', '--target', target, '--out', 'exported', '--adopt']), 0, 'export');
    const exported = await onboarding.run([
      'plan',
      '--target',
      target,
      '-m',
      'exported',
      '--output',
      'json',
      '--detailed-exitcode',
    ]);
    expectExit(exported, 0, 'plan of the export');
    const adopted = (JSON.parse(exported.stdout) as PlanJson).changes.filter((change) => change.kind === kind);
    expect(adopted.length, 'the export holds the kind').toBeGreaterThan(0);
    expect(adopted.every((change) => change.action === 'unchanged')).toBe(true);
    // 6. Prune without proof: a workspace that named it but never owned it (no --adopt) deletes nothing.
    const stranger = await workspaceOn();
    await stranger.write('manifests/kind.yaml', [requires, stringify(updated)].filter(Boolean).join('---\n'));
    const conflict = await stranger.run(['plan', '--target', target, '--output', 'json']);
    if (fixture.prunable) expect(actionOf(conflict, kind, key)).toBe('adopt');
    await stranger.run(['apply', '--target', target]);
    await stranger.remove('manifests/kind.yaml');
    expectExit(await stranger.run(['apply', '--target', target, '--prune', '--force']), 0, 'prune without proof');
    expectExit(await plan(), 0, 'still live, unchanged, after a prune without proof');
    await workspace.remove('manifests/kind.yaml');
    if (requires) await workspace.write('manifests/kind.yaml', requires);
    const orphaned = await workspace.run(['plan', '--target', target, '--output', 'json']);
    expectExit(orphaned, 0, 'plan without the manifest');
    expect(actionOf(orphaned, kind, key)).toBe(fixture.prunable ? 'orphan' : undefined);
    // 7. Prune with proof: what the inventory holds is deleted when the kind may be pruned, never otherwise.
    const pruned = await workspace.run(['plan', '--target', target, '--prune', '--output', 'json']);
    expect(actionOf(pruned, kind, key)).toBe(fixture.prunable ? 'delete' : undefined);
    expectExit(await workspace.run(['apply', '--target', target, '--prune', '--force']), 0, 'prune with proof');
    const after = await workspace.run([
      'plan',
      '--target',
      target,
      '--prune',
      '--output',
      'json',
      '--detailed-exitcode',
    ]);
    expectExit(after, 0, 'plan after the prune');
  }, 120_000);
}
