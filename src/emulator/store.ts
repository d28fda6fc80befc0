/**
 * The emulator's domain state: organizations (keys, services with pipes, sources and a stack),
 * and self-hosted teams (tokens, stack). Built from a seed or from saved data, serialised back
 * to data. Holds no secret in clear: key secrets and tokens are kept as SHA-256.
 */
import { createHash } from 'node:crypto';
import { isoTimestamp, newId } from './ids.js';
import type { EmulatorData, OrganizationRecord, ServiceRecord, TeamRecord, Workspace } from './model.js';
import { buildPipe } from './pipes.js';
import { defaultSources, type Seed, type SeedService } from './seed.js';

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export interface KeyRecord { organizationId: string; secretSha256: string }

export class Store {
  private readonly organizations = new Map<string, OrganizationRecord>();
  private readonly teams = new Map<string, TeamRecord>();
  private readonly keys = new Map<string, KeyRecord>();
  private readonly tokens = new Map<string, TeamRecord>();
  /** Called after every successful mutation; persistence hooks in here. */
  onChange: () => void = () => {};

  private constructor(readonly clock: () => number) {}

  static fromSeed(seed: Seed, clock: () => number): Store {
    const store = new Store(clock);
    for (const org of seed.organizations ?? []) {
      const keys = new Map(org.keys.map((key) => [key.id, sha256Hex(key.secret)]));
      const record: OrganizationRecord = { id: org.id, keys, services: new Map() };
      for (const service of org.services ?? []) record.services.set(service.id, store.seedService(org.id, service));
      store.addOrganization(record);
    }
    for (const team of seed.teams ?? []) {
      store.addTeam({ id: team.id, tokenHashes: team.tokens.map(sha256Hex), stack: emptyWorkspace(team.id, 'objectId') });
    }
    return store;
  }

  static fromData(data: EmulatorData, clock: () => number): Store {
    const store = new Store(clock);
    for (const org of data.organizations) {
      const keys = new Map(org.keys.map((key) => [key.id, key.secretSha256]));
      const record: OrganizationRecord = { id: org.id, keys, services: new Map() };
      for (const service of org.services) {
        record.services.set(service.id, {
          id: service.id,
          organizationId: org.id,
          state: service.state,
          pipes: new Map(service.pipes.map((pipe) => [pipe.id, pipe])),
          pipeSecrets: new Map(Object.entries(service.pipeSecrets)),
          sources: service.sources,
          stack: workspaceOf(service.id, 'uuid', service),
        });
      }
      store.addOrganization(record);
    }
    for (const team of data.teams) store.addTeam({ id: team.id, tokenHashes: team.tokenSha256, stack: workspaceOf(team.id, 'objectId', team) });
    return store;
  }

  private seedService(organizationId: string, seed: SeedService): ServiceRecord {
    const nowMs = this.clock();
    const service: ServiceRecord = {
      id: seed.id,
      organizationId,
      state: seed.state ?? 'running',
      pipes: new Map(),
      pipeSecrets: new Map(),
      sources: (seed.sources ?? defaultSources()).map((source) => ({ id: source.id ?? newId('uuid', nowMs), name: source.name, kind: source.kind })),
      stack: emptyWorkspace(seed.id, 'uuid'),
    };
    for (const entry of seed.pipes ?? []) {
      const { pipe, secrets } = buildPipe(seed.id, structuredClone(entry), nowMs, 'Running');
      service.pipes.set(pipe.id, pipe);
      service.pipeSecrets.set(pipe.id, secrets);
    }
    return service;
  }

  private addOrganization(record: OrganizationRecord): void {
    this.organizations.set(record.id, record);
    for (const [keyId, secretSha256] of record.keys) this.keys.set(keyId, { organizationId: record.id, secretSha256 });
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

  teamByTokenHash(tokenSha256: string): TeamRecord | undefined {
    return this.tokens.get(tokenSha256);
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

  toData(): EmulatorData {
    return {
      version: 1,
      organizations: this.allOrganizations().map((org) => ({
        id: org.id,
        keys: [...org.keys].map(([id, secretSha256]) => ({ id, secretSha256 })),
        services: [...org.services.values()].map((service) => ({
          id: service.id,
          state: service.state,
          pipes: [...service.pipes.values()],
          pipeSecrets: Object.fromEntries(service.pipeSecrets),
          sources: service.sources,
          dashboards: [...service.stack.dashboards.values()],
          alerts: [...service.stack.alerts.values()],
        })),
      })),
      teams: this.allTeams().map((team) => ({
        id: team.id,
        tokenSha256: team.tokenHashes,
        dashboards: [...team.stack.dashboards.values()],
        alerts: [...team.stack.alerts.values()],
      })),
    };
  }
}

function emptyWorkspace(owner: string, idFormat: Workspace['idFormat']): Workspace {
  return { owner, idFormat, dashboards: new Map(), alerts: new Map() };
}

function workspaceOf(owner: string, idFormat: Workspace['idFormat'], saved: Pick<EmulatorData['teams'][number], 'dashboards' | 'alerts'>): Workspace {
  return {
    owner,
    idFormat,
    dashboards: new Map(saved.dashboards.map((dashboard) => [dashboard.id, dashboard])),
    alerts: new Map(saved.alerts.map((alert) => [alert.id, alert])),
  };
}
