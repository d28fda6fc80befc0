/**
 * The emulator's domain state: organizations (keys, services with pipes and a stack), and
 * self-hosted teams (tokens, stack). Built from a seed or from saved data, serialised back to
 * data. Holds no secret in clear: key secrets and tokens are kept as salted hashes.
 */
import { StacksyncError } from '../errors.js';
import { CredentialHasher } from './credentials.js';
import * as current from './current/workspace.js';
import { ApiError } from './errors.js';
import { isoTimestamp } from './ids.js';
import type {
  CurrentEmulatorData,
  EmulatorData,
  OrganizationRecord,
  Profile,
  ProfileData,
  ServiceRecord,
  TeamRecord,
  Workspace,
} from './model.js';
import { profileOf } from './model.js';
import { advancePipes, emptyRuntime, runtimeFromData, runtimeToData } from './current/pipe-lifecycle.js';
import { seededCurrentPipe } from './current/pipe.js';
import { buildPipe, fingerprintWith } from './pipes.js';
import type { PipeSecrets } from './model.js';
import { seedWorkspace } from './stack.js';
import type { Seed, SeedService, SeedStack } from './seed.js';

export interface KeyRecord {
  organizationId: string;
  secretHash: string;
}

/** Where a seed came from, for errors about what it holds. */
export interface SeedOrigin {
  origin: string;
}

export class Store {
  private readonly organizations = new Map<string, OrganizationRecord>();
  private readonly teams = new Map<string, TeamRecord>();
  private readonly keys = new Map<string, KeyRecord>();
  private readonly tokens = new Map<string, TeamRecord>();
  /** Called after every successful mutation; persistence hooks in here. */
  onChange: () => void = () => {};

  private constructor(
    readonly clock: () => number,
    readonly profile: Profile,
    readonly credentials: CredentialHasher,
  ) {}

  static fromSeed(seed: Seed, clock: () => number, profile: Profile, origin = 'seed'): Store {
    const store = new Store(clock, profile, CredentialHasher.fresh());
    const nowMs = clock();
    for (const [orgIndex, org] of (seed.organizations ?? []).entries()) {
      const keys = new Map(org.keys.map((key) => [key.id, store.credentials.hash(key.secret)]));
      const record: OrganizationRecord = { id: org.id, keys, services: new Map() };
      for (const [index, service] of (org.services ?? []).entries()) {
        const path = `organizations[${orgIndex}].services[${index}]`;
        record.services.set(
          service.id,
          seeding(origin, path, () => store.seedService(org.id, service, nowMs)),
        );
      }
      store.addOrganization(record);
    }
    for (const [index, team] of (seed.teams ?? []).entries()) {
      const stack = seeding(origin, `teams[${index}]`, () => store.workspace(team.id, 'objectId', team, nowMs));
      store.addTeam({ id: team.id, tokenHashes: team.tokens.map((token) => store.credentials.hash(token)), stack });
    }
    return store;
  }

  /**
   * State saved earlier. `salt` is the data file's credential salt; a file from before salting has
   * none, and its plain SHA-256 hashes are salted on the way in.
   */
  static fromData(data: ProfileData, clock: () => number, salt: string | undefined): Store {
    const credentials = salt === undefined ? CredentialHasher.fresh() : CredentialHasher.fromSalt(salt);
    const upgrade = (hash: string): string => (salt === undefined ? credentials.fromSha256(hash) : hash);
    const upgradeSecrets = (secrets: PipeSecrets): PipeSecrets =>
      salt === undefined
        ? Object.fromEntries(
            Object.entries(secrets).map(([path, value]) => [path, `sha256:${upgrade(value.replace(/^sha256:/, ''))}`]),
          )
        : secrets;
    const store = new Store(clock, profileOf(data), credentials);
    for (const org of data.organizations) {
      const keys = new Map(org.keys.map((key) => [key.id, upgrade(key.secretSha256)]));
      const record: OrganizationRecord = { id: org.id, keys, services: new Map() };
      for (const service of org.services) {
        record.services.set(service.id, {
          id: service.id,
          organizationId: org.id,
          state: service.state,
          pipes: new Map(service.pipes.map((pipe) => [pipe.id, pipe])),
          pipeSecrets: new Map(
            Object.entries(service.pipeSecrets).map(([pipeId, secrets]) => [pipeId, upgradeSecrets(secrets)]),
          ),
          // The seed profile has one only once it took a create of today's shape.
          ...((profileOf(data) === 'current' || ('pipeRuntime' in service && service.pipeRuntime !== undefined)) && {
            pipeRuntime: runtimeFromData('pipeRuntime' in service ? service.pipeRuntime : undefined),
          }),
          stack: restoredWorkspace(data, service.id, 'uuid', service, { nowMs: clock(), upgrade: upgradeSecrets }),
        });
      }
      store.addOrganization(record);
    }
    for (const team of data.teams) {
      store.addTeam({
        id: team.id,
        tokenHashes: team.tokenSha256.map(upgrade),
        stack: restoredWorkspace(data, team.id, 'objectId', team, { nowMs: clock(), upgrade: upgradeSecrets }),
      });
    }
    return store;
  }

  private seedService(organizationId: string, seed: SeedService, nowMs: number): ServiceRecord {
    const service: ServiceRecord = {
      id: seed.id,
      organizationId,
      state: seed.state ?? 'running',
      pipes: new Map(),
      pipeSecrets: new Map(),
      stack: this.workspace(seed.id, 'uuid', seed, nowMs),
    };
    const fingerprint = fingerprintWith(this.credentials);
    for (const entry of seed.pipes ?? []) {
      const { pipe, secrets } =
        this.profile === 'current'
          ? seededCurrentPipe(seed.id, structuredClone(entry), nowMs, fingerprint)
          : buildPipe(seed.id, structuredClone(entry), nowMs, 'Running', fingerprint);
      service.pipes.set(pipe.id, pipe);
      service.pipeSecrets.set(pipe.id, secrets);
    }
    if (this.profile === 'current') {
      service.pipeRuntime = emptyRuntime(seed.failPipes ?? []);
      advancePipes(service, nowMs);
    }
    return service;
  }

  private workspace(owner: string, idFormat: 'uuid' | 'objectId', seeded: SeedStack, nowMs: number): Workspace {
    if (this.profile === 'seed') return seedWorkspace(owner, idFormat, seeded, nowMs);
    // Services are the managed variant's workspaces (UUIDs), teams the self-hosted one's.
    return current.seededWorkspace(
      owner,
      idFormat === 'uuid' ? 'managed' : 'self-hosted',
      seeded,
      nowMs,
      fingerprintWith(this.credentials),
    );
  }

  private addOrganization(record: OrganizationRecord): void {
    this.organizations.set(record.id, record);
    for (const [keyId, secretHash] of record.keys) this.keys.set(keyId, { organizationId: record.id, secretHash });
  }

  private addTeam(team: TeamRecord): void {
    this.teams.set(team.id, team);
    for (const hash of team.tokenHashes) this.tokens.set(hash, team);
  }

  now(): number {
    return this.clock();
  }

  timestamp(): string {
    return isoTimestamp(this.clock());
  }

  /** Runs a mutation; only when it succeeds are listeners told, so a rejected request writes nothing. */
  mutate<T>(change: () => T): T {
    const result = change();
    this.onChange();
    return result;
  }

  key(keyId: string): KeyRecord | undefined {
    return this.keys.get(keyId);
  }

  teamByTokenHash(tokenHash: string): TeamRecord | undefined {
    return this.tokens.get(tokenHash);
  }

  organization(id: string): OrganizationRecord | undefined {
    return this.organizations.get(id);
  }

  allOrganizations(): OrganizationRecord[] {
    return [...this.organizations.values()];
  }

  allTeams(): TeamRecord[] {
    return [...this.teams.values()];
  }

  toData(): ProfileData {
    const organizations = this.allOrganizations().map((org) => ({
      id: org.id,
      keys: [...org.keys].map(([id, secretSha256]) => ({ id, secretSha256 })),
      services: [...org.services.values()].map((service) => ({
        id: service.id,
        state: service.state,
        pipes: [...service.pipes.values()],
        pipeSecrets: Object.fromEntries(service.pipeSecrets),
        ...(service.pipeRuntime && { pipeRuntime: runtimeToData(service.pipeRuntime) }),
        ...workspaceData(service.stack, 'service'),
      })),
    }));
    const teams = this.allTeams().map((team) => ({
      id: team.id,
      tokenSha256: team.tokenHashes,
      ...workspaceData(team.stack, 'team'),
    }));
    // Each workspace serialises in the shape of its own profile, and all of them share the store's.
    return { version: 1, profile: this.profile, organizations, teams } as ProfileData;
  }
}

/** Runs one part of seeding; a rule it breaks becomes a seed error naming where in the seed. */
function seeding<T>(origin: string, path: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const detail = error.issues?.length
      ? error.issues.map((issue) => `${path}.${issue.path}: ${issue.message}`).join('; ')
      : `${path}: ${error.message}`;
    throw new StacksyncError('E_EMULATOR_DATA', `invalid emulator seed (${origin}): ${detail}`, { subject: origin });
  }
}

function workspaceData(ws: Workspace, owner: 'service' | 'team'): Record<string, unknown> {
  if (ws.profile === 'current') return current.workspaceData(ws);
  const dashboards = [...ws.dashboards.values()];
  const alerts = [...ws.alerts.values()];
  // Seed-profile teams have no sources: the data keeps the shape it had before profiles.
  return owner === 'service' ? { sources: ws.sources, dashboards, alerts } : { dashboards, alerts };
}

type ServiceData = EmulatorData['organizations'][number]['services'][number];
type TeamData = EmulatorData['teams'][number];
type CurrentStackData = CurrentEmulatorData['teams'][number];
type SavedStack =
  | ServiceData
  | TeamData
  | CurrentStackData
  | CurrentEmulatorData['organizations'][number]['services'][number];

/** How a saved workspace is brought back: the time for what older files lack, and the salting of their secrets. */
type Restoring = current.Restoring;

function restoredWorkspace(
  data: ProfileData,
  owner: string,
  idFormat: 'uuid' | 'objectId',
  saved: SavedStack,
  restoring: Restoring,
): Workspace {
  if (profileOf(data) === 'current')
    return current.restoredWorkspace(
      owner,
      idFormat === 'uuid' ? 'managed' : 'self-hosted',
      saved as CurrentStackData,
      restoring,
    );
  const stack = saved as ServiceData | TeamData;
  return {
    profile: 'seed',
    owner,
    idFormat,
    sources: 'sources' in stack ? stack.sources : [],
    dashboards: new Map(stack.dashboards.map((dashboard) => [dashboard.id, dashboard])),
    alerts: new Map(stack.alerts.map((alert) => [alert.id, alert])),
  };
}
