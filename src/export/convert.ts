/**
 * Live state → manifest documents, for `stacksync export`. Pure: no I/O, no clock.
 *
 * A manifest holds only what stacksync can manage, so that `plan` on the result shows nothing to
 * change: members the API cannot write (kafka brokers, pipe state, tile ids, timestamps) are
 * left out by walking the manifest schema, and a document that the schema would still refuse is
 * skipped with the reason rather than written broken. Write-only credentials are never returned
 * by the API, so they are left out too (not managed) and offered as `fromEnv` placeholders.
 */
import { KINDS, type Kind } from '../model/kinds.js';
import { type LiveAlert, type LiveDashboard, type LivePipe, type LiveState } from '../model/resources.js';
import { API_VERSION, DOCUMENT_SCHEMAS, SPEC_SCHEMAS } from '../schema/manifest.js';
import { pipePatchSourceBlockSchemas, type JsonSchema } from '../schema/api.js';
import { compileSchema, describeIssues, toIssues } from '../schema/validate.js';
import { assignKeys, envName } from './names.js';

export interface ManifestDocument {
  apiVersion: string;
  kind: Kind;
  metadata: { name: string; target?: string };
  spec: Record<string, unknown>;
}

/** Credentials a pipe's source takes, written as placeholders the user fills in to manage them. */
export interface CredentialPlaceholder {
  /** Where they go: `spec.source.kafka`. */
  path: string;
  member: 'credentials' | 'accessKey';
  fields: Record<string, { fromEnv: string }>;
}

export interface ExportedManifest {
  kind: Kind;
  /** `metadata.name`. */
  key: string;
  /** Live id, recorded in the inventory by `--adopt`. */
  id: string;
  /** Live API name. */
  liveName: string;
  document: ManifestDocument;
  credentials?: CredentialPlaceholder;
}

export interface SkippedResource {
  kind: Kind;
  id: string;
  name?: string;
  reason: string;
}

export interface ExportResult {
  /** In kind order (Pipe, Dashboard, Alert), then by key. */
  manifests: ExportedManifest[];
  skipped: SkippedResource[];
}

export interface ExportOptions {
  target: string;
  /** Write `metadata.target`; set when the target is not the config's default. */
  setTarget: boolean;
  /** Kinds to export; default all. */
  kinds?: readonly Kind[];
  /** Live id → `metadata.name` already in the inventory, per kind: those keys are kept. */
  owned?: Partial<Record<Kind, ReadonlyMap<string, string>>>;
}

/** Where an alert's dashboard and tiles are known by name, for exportable dashboards. */
interface DashboardNames {
  key: string;
  tiles: Map<string, string>;
}

type Outcome = { ok: true; manifest: ExportedManifest } | { ok: false; skip: SkippedResource };

export function exportLiveState(live: LiveState, options: ExportOptions): ExportResult {
  const kinds = new Set(options.kinds ?? KINDS);
  const watchers = countBy(live.alerts.map((alert) => alert.dashboardId ?? ''));
  const dashboardTwins = sameNamed(live.dashboards, options.owned?.Dashboard, (id) => watchers.get(id) ?? 0);
  const alertTwins = sameNamed(live.alerts, options.owned?.Alert, () => 0);
  // Twins that cannot be exported get no key, so the one exported gets the plain name.
  const keys = {
    Pipe: assignKeys(live.pipes, 'pipe', options.owned?.Pipe),
    Dashboard: assignKeys(live.dashboards.filter((item) => !dashboardTwins.has(item.id)), 'dashboard', options.owned?.Dashboard),
    Alert: assignKeys(live.alerts.filter((item) => !alertTwins.has(item.id)), 'alert', options.owned?.Alert),
  };
  // Dashboards are named even when not exported: alerts refer to them by these keys.
  const dashboards = new Map<string, DashboardNames | string>(
    live.dashboards.map((dashboard) => [dashboard.id, dashboardTwins.get(dashboard.id) ?? dashboardNames(dashboard, keyOf(keys.Dashboard, dashboard.id))]),
  );
  const outcomes: Outcome[] = [];
  if (kinds.has('Pipe')) outcomes.push(...live.pipes.map((pipe) => exportPipe(pipe, keyOf(keys.Pipe, pipe.id), options)));
  if (kinds.has('Dashboard')) {
    outcomes.push(...live.dashboards.map((dashboard) => exportDashboard(dashboard, dashboards.get(dashboard.id), options)));
  }
  if (kinds.has('Alert')) {
    for (const alert of live.alerts) {
      const twin = alertTwins.get(alert.id);
      outcomes.push(twin !== undefined ? skip('Alert', alert, twin) : exportAlert(alert, keyOf(keys.Alert, alert.id), dashboards, options));
    }
  }
  const manifests = outcomes.flatMap((outcome) => (outcome.ok ? [outcome.manifest] : []));
  const skipped = outcomes.flatMap((outcome) => (outcome.ok ? [] : [outcome.skip]));
  manifests.sort((a, b) => KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { manifests, skipped };
}

/**
 * Dashboards and alerts are matched by API name, and the loader refuses two manifests with one
 * name in a target, so of several live resources sharing a name only one can be exported: the
 * one the inventory owns, else the one most alerts watch, else the first by id. The others map
 * to the reason they are skipped.
 */
function sameNamed(items: readonly { id: string; name?: string }[], owned: ReadonlyMap<string, string> | undefined, weight: (id: string) => number): Map<string, string> {
  const groups = new Map<string, { id: string }[]>();
  for (const item of items) if (item.name) groups.set(item.name, [...(groups.get(item.name) ?? []), item]);
  const losers = new Map<string, string>();
  for (const [name, group] of groups) {
    if (group.length < 2) continue;
    const rank = (id: string): [number, number] => [owned?.has(id) ? 0 : 1, -weight(id)];
    const [winner, ...rest] = [...group].sort((a, b) => compareRanks(rank(a.id), rank(b.id)) || (a.id < b.id ? -1 : 1));
    for (const other of rest) {
      losers.set(other.id, `${group.length} live resources are named "${name}" and manifests match by name; only ${winner?.id ?? ''} is exported (rename the others in the console, then export again)`);
    }
  }
  return losers;
}

function compareRanks(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

function countBy(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}

function keyOf(keys: ReadonlyMap<string, string>, id: string): string {
  const key = keys.get(id);
  if (key === undefined) throw new Error(`no key assigned to ${id}`);
  return key;
}

// ---------------------------------------------------------------- pipes

function exportPipe(pipe: LivePipe, key: string, options: ExportOptions): Outcome {
  const { kind, block } = pipe.source;
  const candidate = {
    pipeId: pipe.id,
    name: pipe.name,
    source: { [kind]: block },
    destination: pipe.destination,
    fieldMappings: pipe.fieldMappings,
    settings: pipe.settings,
  };
  const spec = pickBySchema(candidate, SPEC_SCHEMAS.Pipe) as Record<string, unknown>;
  // The kind block stays even when empty: it says where credentials would go.
  spec['source'] ??= { [kind]: {} };
  const outcome = finish('Pipe', pipe.id, pipe.name, key, spec, options);
  const credentials = credentialPlaceholder(kind, key);
  if (outcome.ok && credentials) outcome.manifest.credentials = credentials;
  return outcome;
}

function credentialPlaceholder(kind: LivePipe['source']['kind'], key: string): CredentialPlaceholder | undefined {
  const members = pipePatchSourceBlockSchemas[kind].properties as Record<string, unknown>;
  const member = 'credentials' in members ? 'credentials' : 'accessKey' in members ? 'accessKey' : undefined;
  if (member === undefined) return undefined;
  const names = member === 'credentials' ? ['username', 'password'] : ['accessKeyId', 'secretKey'];
  const fields = Object.fromEntries(names.map((field) => [field, { fromEnv: envName(key, field) }]));
  return { path: `spec.source.${kind}`, member, fields };
}

// ---------------------------------------------------------------- dashboards

/** Tile names are how manifests key tiles; a dashboard whose names cannot be keys is not exported. */
function dashboardNames(dashboard: LiveDashboard, key: string): DashboardNames | string {
  const seen = new Set<string>();
  for (const tile of dashboard.tiles) {
    if (tile.name === '') return `tile ${tile.id} has no name; tiles are managed by name, so name it in the console first`;
    if (seen.has(tile.name)) return `two tiles are named "${tile.name}"; tiles are managed by name, so rename one in the console first`;
    seen.add(tile.name);
  }
  return { key, tiles: new Map(dashboard.tiles.map((tile) => [tile.id, tile.name])) };
}

function exportDashboard(dashboard: LiveDashboard, names: DashboardNames | string | undefined, options: ExportOptions): Outcome {
  if (typeof names !== 'object') return skip('Dashboard', dashboard, names ?? 'internal: no names');
  const candidate = { name: dashboard.name, tags: dashboard.tags, tiles: dashboard.tiles };
  return finish('Dashboard', dashboard.id, dashboard.name, names.key, pickBySchema(candidate, SPEC_SCHEMAS.Dashboard), options);
}

// ---------------------------------------------------------------- alerts

function exportAlert(alert: LiveAlert, key: string, dashboards: ReadonlyMap<string, DashboardNames | string>, options: ExportOptions): Outcome {
  if (alert.name === undefined || alert.name === '') {
    return skip('Alert', alert, 'it has no name; alerts are matched by name, so name it in the console first');
  }
  const refs = alert.source === 'tile' ? tileRefs(alert, dashboards) : { savedSearchId: alert.savedSearchId };
  if (typeof refs === 'string') return skip('Alert', alert, refs);
  const candidate = {
    name: alert.name,
    message: alert.message,
    source: alert.source,
    ...refs,
    threshold: alert.threshold,
    thresholdType: alert.thresholdType,
    thresholdMax: alert.thresholdMax,
    interval: alert.interval,
    groupBy: alert.groupBy,
    // Only webhook channels can be written; any other (email, …) is left out, so it is kept live.
    channel: alert.channel?.type === 'webhook' ? alert.channel : undefined,
  };
  return finish('Alert', alert.id, alert.name, key, pickBySchema(candidate, SPEC_SCHEMAS.Alert), options);
}

function tileRefs(alert: LiveAlert, dashboards: ReadonlyMap<string, DashboardNames | string>): { dashboard: string; tile: string } | string {
  const names = dashboards.get(alert.dashboardId ?? '');
  if (names === undefined) return `it watches dashboard ${alert.dashboardId ?? '(none)'}, which does not exist`;
  if (typeof names === 'string') return `its dashboard ${alert.dashboardId ?? ''} is not exported: ${names}`;
  const tile = names.tiles.get(alert.tileId ?? '');
  if (tile === undefined) return `it watches tile ${alert.tileId ?? '(none)'}, which is not on dashboard ${alert.dashboardId ?? ''}`;
  return { dashboard: names.key, tile };
}

// ---------------------------------------------------------------- documents

function finish(kind: Kind, id: string, liveName: string, key: string, spec: unknown, options: ExportOptions): Outcome {
  const metadata = options.setTarget ? { name: key, target: options.target } : { name: key };
  const document: ManifestDocument = { apiVersion: API_VERSION, kind, metadata, spec: spec as Record<string, unknown> };
  const validate = compileSchema(`export:${kind}`, DOCUMENT_SCHEMAS[kind]);
  if (!validate(document)) {
    const issues = describeIssues(toIssues(validate.errors ?? []));
    return skip(kind, { id, name: liveName }, `the live ${kind.toLowerCase()} cannot be written as a valid manifest: ${issues}`);
  }
  return { ok: true, manifest: { kind, key, id, liveName, document } };
}

function skip(kind: Kind, live: { id: string; name?: string }, reason: string): Outcome {
  return { ok: false, skip: { kind, id: live.id, ...(live.name !== undefined ? { name: live.name } : {}), reason } };
}

/**
 * The members of `value` that `schema` declares, recursively (objects by `properties`, lists by
 * `items`). Absent, null and empty values are dropped unless required: an empty list or object
 * in a manifest would manage nothing the service's default does not already say.
 */
export function pickBySchema(value: unknown, schema: JsonSchema | undefined): unknown {
  if (Array.isArray(value)) return value.map((item) => pickBySchema(item, asSchema(schema?.['items'])));
  if (!isPlainObject(value)) return value;
  // An open object (a tile's config) is the service's own: kept whole.
  if (schema?.['additionalProperties'] === true) return value;
  const properties = asSchema(schema?.['properties']);
  if (properties === undefined) return value;
  const required = new Set(Array.isArray(schema?.['required']) ? (schema['required'] as string[]) : []);
  const picked: Record<string, unknown> = {};
  for (const [member, item] of Object.entries(value)) {
    if (!(member in properties)) continue;
    const kept = pickBySchema(item, asSchema(properties[member]));
    if (isEmpty(kept) && !required.has(member)) continue;
    picked[member] = kept;
  }
  return picked;
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return isPlainObject(value) && Object.keys(value).length === 0;
}

function asSchema(value: unknown): JsonSchema | undefined {
  return isPlainObject(value) ? value : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
