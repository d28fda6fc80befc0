/**
 * Helpers the end-to-end tests of `plan` and `apply` share: manifest generators, typed reads of
 * the emulator's dump and the state file, out-of-band writes (someone else using the API), and
 * small polling utilities. Everything talks to loopback only.
 */
import { readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'vitest';
import type { EmulatorData } from '../../src/emulator/index.js';
import type { AlertResource, DashboardResource } from '../../src/emulator/model.js';
import { DEFAULT_SEED_IDS } from '../../src/emulator/index.js';
import { parseStateFile } from '../../src/state/store.js';
import type { StateFile } from '../../src/model/state.js';
import { emulatorDump, emulatorStats, type CliResult, type EmulatorStats } from './workspace.js';

export type TargetName = 'local' | 'local-selfhosted';
export const TARGETS: readonly TargetName[] = ['local', 'local-selfhosted'];

// ---------------------------------------------------------------- manifests

/** The seed's existing postgres pipe (`pipeId`) with two table mappings, the second into `customersTable`. */
export function billingPipe(customersTable: string): string {
  return `apiVersion: stacksync/v1
kind: Pipe
metadata: { name: billing-postgres, target: local }
spec:
  pipeId: ${DEFAULT_SEED_IDS.pipes.postgres}
  source:
    postgres:
      tableMappings:
        - { sourceSchemaName: public, sourceTable: invoices, targetTable: invoices }
        - { sourceSchemaName: public, sourceTable: customers, targetTable: ${customersTable} }
`;
}

export interface TileSpec {
  name: string;
  x?: number;
  y?: number;
  w?: number;
  h?: number;
}

export interface DashboardSpec {
  key: string;
  target: TargetName;
  /** API name; default `Dashboard <key>`. */
  name?: string;
  tags?: string[];
  tiles?: (string | TileSpec)[];
}

export interface AlertSpec {
  key: string;
  target: TargetName;
  /** API name; default `Alert <key>`. */
  name?: string;
  dashboard: string;
  tile: string;
  threshold?: number;
  interval?: string;
  message?: string;
}

export function dashboardName(key: string): string {
  return `Dashboard ${key}`;
}

export function alertName(key: string): string {
  return `Alert ${key}`;
}

/** One Dashboard document; tiles are laid out on a 24-wide grid, two per row. */
export function dashboardYaml(spec: DashboardSpec): string {
  const tiles = (spec.tiles ?? ['main']).map((tile) => (typeof tile === 'string' ? { name: tile } : tile));
  const tileLines = tiles.map((tile, index) =>
    [
      `    - name: ${tile.name}`,
      `      x: ${tile.x ?? (index % 2) * 12}`,
      `      y: ${tile.y ?? Math.floor(index / 2) * 4}`,
      `      w: ${tile.w ?? 12}`,
      `      h: ${tile.h ?? 4}`,
      `      series:`,
      `        - { type: time, dataSource: events, aggFn: count, where: "tile:${tile.name}" }`,
    ].join('\n'),
  );
  return [
    'apiVersion: stacksync/v1',
    'kind: Dashboard',
    'metadata:',
    `  name: ${spec.key}`,
    `  target: ${spec.target}`,
    'spec:',
    `  name: ${JSON.stringify(spec.name ?? dashboardName(spec.key))}`,
    ...(spec.tags ? [`  tags: ${JSON.stringify(spec.tags)}`] : []),
    '  tiles:',
    ...tileLines,
    '',
  ].join('\n');
}

export function alertYaml(spec: AlertSpec): string {
  return [
    'apiVersion: stacksync/v1',
    'kind: Alert',
    'metadata:',
    `  name: ${spec.key}`,
    `  target: ${spec.target}`,
    'spec:',
    `  name: ${JSON.stringify(spec.name ?? alertName(spec.key))}`,
    ...(spec.message === undefined ? [] : [`  message: ${JSON.stringify(spec.message)}`]),
    '  source: tile',
    `  dashboard: ${spec.dashboard}`,
    `  tile: ${spec.tile}`,
    `  threshold: ${spec.threshold ?? 100}`,
    '  thresholdType: above',
    `  interval: ${spec.interval ?? '5m'}`,
    '  channel: { type: webhook, webhookId: oncall }',
    '',
  ].join('\n');
}

/** Documents joined into one multi-document file. */
export function documents(parts: readonly string[]): string {
  return parts.join('---\n');
}

export interface FleetSpec {
  target: TargetName;
  /** Key prefix, so fleets of several targets or files do not collide. */
  prefix: string;
  dashboards: number;
  tilesPerDashboard: number;
  /** Alerts per dashboard, each on one of its tiles (round robin). */
  alertsPerDashboard: number;
  /** Threshold of each dashboard's first alert (the next ones count up); default 10. */
  threshold?: number;
}

export interface Fleet {
  /** `file → YAML`, one file per dashboard with its alerts. */
  files: Map<string, string>;
  dashboards: string[];
  alerts: string[];
  /** API names, for checking the live state. */
  dashboardNames: string[];
  alertNames: string[];
}

/** Generates dashboards with tiles and the alerts that watch them, one file per dashboard. */
export function generateFleet(spec: FleetSpec): Fleet {
  const fleet: Fleet = { files: new Map(), dashboards: [], alerts: [], dashboardNames: [], alertNames: [] };
  for (let d = 0; d < spec.dashboards; d++) {
    const key = `${spec.prefix}-d${d}`;
    const tiles = Array.from({ length: spec.tilesPerDashboard }, (_, t) => `t${t}`);
    const parts = [dashboardYaml({ key, target: spec.target, tiles })];
    fleet.dashboards.push(key);
    fleet.dashboardNames.push(dashboardName(key));
    for (let a = 0; a < spec.alertsPerDashboard; a++) {
      const alertKey = `${key}-a${a}`;
      parts.push(
        alertYaml({
          key: alertKey,
          target: spec.target,
          dashboard: key,
          tile: tiles[a % tiles.length] ?? 't0',
          threshold: (spec.threshold ?? 10) + a,
        }),
      );
      fleet.alerts.push(alertKey);
      fleet.alertNames.push(alertName(alertKey));
    }
    fleet.files.set(`manifests/${spec.prefix}/${key}.yaml`, documents(parts));
  }
  return fleet;
}

/** Fleets combined: their files and names. */
export function mergeFleets(fleets: readonly Fleet[]): Fleet {
  return {
    files: new Map(fleets.flatMap((fleet) => [...fleet.files])),
    dashboards: fleets.flatMap((fleet) => fleet.dashboards),
    alerts: fleets.flatMap((fleet) => fleet.alerts),
    dashboardNames: fleets.flatMap((fleet) => fleet.dashboardNames),
    alertNames: fleets.flatMap((fleet) => fleet.alertNames),
  };
}

export async function writeFiles(
  workspace: { write(path: string, text: string): Promise<void> },
  files: ReadonlyMap<string, string>,
): Promise<void> {
  await Promise.all([...files].map(([path, text]) => workspace.write(path, text)));
}

// ---------------------------------------------------------------- live state

export interface Live {
  dashboards: DashboardResource[];
  alerts: AlertResource[];
}

export async function dump(url: string): Promise<EmulatorData> {
  return (await emulatorDump(url)) as EmulatorData;
}

/** Dashboards and alerts of a target: the default seed's service (managed) or team (self-hosted). */
export function liveOf(data: EmulatorData, target: TargetName): Live {
  if (target === 'local') {
    const service = data.organizations
      .flatMap((org) => org.services)
      .find((candidate) => candidate.id === DEFAULT_SEED_IDS.serviceId);
    if (!service) throw new Error('the default seed service is missing from the dump');
    return { dashboards: service.dashboards, alerts: service.alerts };
  }
  const team = data.teams.find((candidate) => candidate.id === DEFAULT_SEED_IDS.teamId);
  if (!team) throw new Error('the default seed team is missing from the dump');
  return { dashboards: team.dashboards, alerts: team.alerts };
}

export async function liveTarget(url: string, target: TargetName): Promise<Live> {
  return liveOf(await dump(url), target);
}

/** A live object of the current profile's stack, as the dump holds it. */
export type StackJson = Record<string, unknown> & { id: string; name?: string | null };

/** Everything of a target's stack under the current profile, as the dump holds it. */
export interface Stack {
  connections: StackJson[];
  sources: StackJson[];
  webhooks: StackJson[];
  savedSearches: StackJson[];
  dashboards: (StackJson & { tiles: StackJson[]; hiddenTiles?: StackJson[] })[];
  alerts: StackJson[];
  secrets: Record<string, Record<string, string>>;
}

/** The stack of a target: the first service of the first organization (managed) or the first team (self-hosted). */
export async function stackOf(url: string, target: TargetName): Promise<Stack> {
  const data = (await emulatorDump(url)) as { organizations: { services: Stack[] }[]; teams: Stack[] };
  const stack = target === 'local' ? data.organizations[0]?.services[0] : data.teams[0];
  if (!stack) throw new Error(`no ${target} stack in the dump`);
  return stack;
}

/** The one live object named `name`; fails the test when there is none or more than one. */
export function named<T extends StackJson>(items: readonly T[], name: string): T {
  const found = items.filter((item) => item.name === name);
  expect(found, `exactly one live "${name}"`).toHaveLength(1);
  return found[0] as T;
}

/** The pipe of the default seed with this id, as the dump holds it. */
export function livePipe(
  data: EmulatorData,
  pipeId: string,
): EmulatorData['organizations'][number]['services'][number]['pipes'][number] {
  const pipe = data.organizations
    .flatMap((org) => org.services)
    .flatMap((service) => service.pipes)
    .find((candidate) => candidate.id === pipeId);
  if (!pipe) throw new Error(`pipe ${pipeId} is missing from the dump`);
  return pipe;
}

/** Names that occur more than once. */
export function duplicates(names: readonly (string | undefined)[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const name of names) {
    if (name === undefined) continue;
    if (seen.has(name)) twice.add(name);
    seen.add(name);
  }
  return [...twice].sort();
}

/**
 * The live dashboards and alerts of a target are exactly the names given: no duplicate, none
 * missing, none extra; and every alert watches a tile that exists on its dashboard.
 */
export function expectExactly(live: Live, want: { dashboards: readonly string[]; alerts: readonly string[] }): void {
  expect(duplicates(live.dashboards.map((d) => d.name))).toEqual([]);
  expect(duplicates(live.alerts.map((a) => a.name))).toEqual([]);
  expect(live.dashboards.map((d) => d.name).sort()).toEqual([...want.dashboards].sort());
  expect(live.alerts.map((a) => a.name ?? '').sort()).toEqual([...want.alerts].sort());
  const tiles = new Map(live.dashboards.map((d) => [d.id, new Set(d.tiles.map((tile) => tile.id))]));
  for (const alert of live.alerts) {
    if (alert.source !== 'tile') continue;
    expect(tiles.get(alert.dashboard ?? '')?.has(alert.tileId ?? ''), `alert ${alert.name} watches a live tile`).toBe(
      true,
    );
  }
}

// ---------------------------------------------------------------- state file

export async function readState(path: string): Promise<StateFile> {
  return parseStateFile(path, await readFile(path, 'utf8'));
}

/** Every inventory id of the state names a live resource of its target, and no intent is left. */
export function expectStateMatchesLive(
  state: StateFile,
  data: EmulatorData,
  target: TargetName,
  want: { dashboards: readonly string[]; alerts: readonly string[] },
): void {
  const targetState = state.targets[target];
  expect(targetState, `state of ${target}`).toBeDefined();
  if (!targetState) return;
  const live = liveOf(data, target);
  const dashboardIds = new Set(live.dashboards.map((d) => d.id));
  const alertIds = new Set(live.alerts.map((a) => a.id));
  expect(Object.keys(targetState.inventory.Dashboard).sort()).toEqual([...want.dashboards].sort());
  expect(Object.keys(targetState.inventory.Alert).sort()).toEqual([...want.alerts].sort());
  for (const [key, entry] of Object.entries(targetState.inventory.Dashboard))
    expect(dashboardIds.has(entry.id), `Dashboard/${key} is live`).toBe(true);
  for (const [key, entry] of Object.entries(targetState.inventory.Alert))
    expect(alertIds.has(entry.id), `Alert/${key} is live`).toBe(true);
  expect(targetState.intents).toEqual([]);
}

// ---------------------------------------------------------------- stats

/** Writes (non-GET requests) by `METHOD route`, with their count. */
export function writesByRoute(stats: EmulatorStats): Record<string, number> {
  const writes: Record<string, number> = {};
  for (const route of stats.routes) if (route.method !== 'GET') writes[`${route.method} ${route.route}`] = route.count;
  return writes;
}

/** GET requests by route template. */
export function readsByRoute(stats: EmulatorStats): Record<string, number> {
  const reads: Record<string, number> = {};
  for (const route of stats.routes) if (route.method === 'GET') reads[route.route] = route.count;
  return reads;
}

export const ROUTES = {
  managedPipes: '/v1/organizations/{organizationId}/services/{serviceId}/pipes',
  managedPipe: '/v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}',
  managedSources: '/v1/organizations/{organizationId}/services/{serviceId}/stack/sources',
  managedDashboards: '/v1/organizations/{organizationId}/services/{serviceId}/stack/dashboards',
  managedDashboard: '/v1/organizations/{organizationId}/services/{serviceId}/stack/dashboards/{dashboardId}',
  managedAlerts: '/v1/organizations/{organizationId}/services/{serviceId}/stack/alerts',
  managedAlert: '/v1/organizations/{organizationId}/services/{serviceId}/stack/alerts/{alertId}',
  selfDashboards: '/api/v2/dashboards',
  selfDashboard: '/api/v2/dashboards/{id}',
  selfAlerts: '/api/v2/alerts',
  selfAlert: '/api/v2/alerts/{id}',
} as const;

export async function writesSince(url: string): Promise<number> {
  return (await emulatorStats(url)).writes;
}

// ---------------------------------------------------------------- out-of-band API use

const MANAGED_BASE = `/v1/organizations/${DEFAULT_SEED_IDS.organizationId}/services/${DEFAULT_SEED_IDS.serviceId}/stack`;

function authHeader(target: TargetName): string {
  if (target === 'local-selfhosted') return `Bearer ${DEFAULT_SEED_IDS.token}`;
  return `Basic ${Buffer.from(`${DEFAULT_SEED_IDS.keyId}:${DEFAULT_SEED_IDS.keySecret}`).toString('base64')}`;
}

function collectionUrl(url: string, target: TargetName, collection: 'dashboards' | 'alerts'): string {
  return target === 'local' ? `${url}${MANAGED_BASE}/${collection}` : `${url}/api/v2/${collection}`;
}

async function send(method: string, url: string, target: TargetName, body?: unknown): Promise<unknown> {
  const response = await fetch(url, {
    method,
    headers: {
      authorization: authHeader(target),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url} answered ${response.status}: ${text}`);
  const json = JSON.parse(text) as { result?: unknown; data?: unknown };
  return target === 'local' ? json.result : json.data;
}

/** Creates a dashboard directly through the API, as a person in the UI would (not through stacksync). */
export async function createDashboardOutOfBand(
  url: string,
  target: TargetName,
  name: string,
  tiles: string[] = ['main'],
): Promise<DashboardResource> {
  const body = {
    name,
    tags: [],
    tiles: tiles.map((tile, index) => ({
      name: tile,
      x: 0,
      y: index * 4,
      w: 12,
      h: 4,
      series: [{ type: 'time', dataSource: 'events', aggFn: 'count' }],
    })),
  };
  return (await send('POST', collectionUrl(url, target, 'dashboards'), target, body)) as DashboardResource;
}

export async function createAlertOutOfBand(
  url: string,
  target: TargetName,
  name: string,
  dashboard: DashboardResource,
): Promise<AlertResource> {
  const tile = dashboard.tiles[0];
  if (!tile) throw new Error('the dashboard has no tile');
  const body = {
    name,
    source: 'tile',
    dashboardId: dashboard.id,
    tileId: tile.id,
    threshold: 1,
    thresholdType: 'above',
    interval: '5m',
    channel: { type: 'webhook', webhookId: 'oncall' },
  };
  return (await send('POST', collectionUrl(url, target, 'alerts'), target, body)) as AlertResource;
}

/** Replaces a dashboard directly through the API (PUT), as a person editing it in the UI would. */
export async function updateDashboardOutOfBand(
  url: string,
  target: TargetName,
  id: string,
  body: Pick<DashboardResource, 'name' | 'tags' | 'tiles'>,
): Promise<DashboardResource> {
  return (await send('PUT', `${collectionUrl(url, target, 'dashboards')}/${id}`, target, body)) as DashboardResource;
}

// ---------------------------------------------------------------- utilities

/** Polls until `check` returns true; fails after `timeoutMs`. */
export async function waitFor(
  check: () => Promise<boolean> | boolean,
  timeoutMs = 10_000,
  everyMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await delay(everyMs);
  }
}

/** The CLI's JSON output, parsed; fails the test with the output when it is not JSON. */
export function parseJsonOutput(result: CliResult): PlanJson {
  try {
    return JSON.parse(result.stdout) as PlanJson;
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.code}):\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
}

/** `plan --output json` / `apply --output json` as docs/reference/cli.md fixes it. */
export interface PlanJson {
  version: number;
  summary: {
    create: number;
    update: number;
    replace?: number;
    delete: number;
    deleteByKind?: Record<string, number>;
    adopt: number;
    orphan: number;
    suspended: number;
    unchanged: number;
    errors: number;
  };
  changes: {
    target: string;
    kind: string;
    name: string;
    action: string;
    id?: string;
    file?: string;
    line?: number;
    diff: { path: string; before?: unknown; after?: unknown }[];
    result?: string;
    error?: string;
    /** The error code of an `error` row or of a failed result. */
    code?: string;
    warnings?: string[];
    reclaimed?: boolean;
  }[];
  errors: { file?: string; line?: number; column?: number; message: string; code?: string; target?: string }[];
  warnings?: { message: string }[];
}

/** Human-readable description of a CLI run, for assertion messages. */
export function describeRun(result: CliResult): string {
  return `exit ${String(result.code)} signal ${String(result.signal)}\n--- stdout\n${result.stdout.slice(-4000)}\n--- stderr\n${result.stderr.slice(-4000)}`;
}
