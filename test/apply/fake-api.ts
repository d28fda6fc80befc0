/**
 * An in-memory `Api` with the service's semantics where the executor relies on them (ids
 * assigned, tile ids kept on update only when sent, alerts removed with their tile or dashboard,
 * 404 on unknown alerts, dashboard deletes that always answer ok, mapping add/remove rules),
 * plus what tests need: injected failures, ambiguous creates, a call log, an in-flight count,
 * and a gate to hold calls open.
 */
import type { AlertWrite, LiveAlert } from '../../src/kinds/alert/model.js';
import type { DashboardWrite, LiveDashboard } from '../../src/kinds/dashboard/model.js';
import type { LivePipe, PipePatch, TableMapping } from '../../src/kinds/pipe/model.js';
import {
  liveOf,
  liveStateOf,
  withList,
  type LiveLists,
  type LiveOfKind,
  type LiveState,
} from '../../src/kinds/index.js';
import type { Api } from '../../src/api/port.js';
import type { Kind } from '../../src/model/kinds.js';
import type { ActionVerb, WriteBody } from '../../src/model/plan.js';
import { StacksyncError, type ErrorCode } from '../../src/errors.js';

export type Method =
  | 'updatePipe'
  | 'actPipe'
  | 'listDashboards'
  | 'createDashboard'
  | 'updateDashboard'
  | 'deleteDashboard'
  | 'listAlerts'
  | 'createAlert'
  | 'updateAlert'
  | 'deleteAlert';

export interface Call {
  method: Method;
  /** Resource id for id-addressed calls. */
  id?: string;
  /** Body name for creates and updates. */
  name?: string;
  body?: unknown;
}

interface Injection {
  method: Method;
  match: (call: Call) => boolean;
  times: number;
  /** `ambiguous-done`: the write happens, then the caller hears E_API_AMBIGUOUS; `ambiguous-lost`: nothing happens. */
  effect: { error: StacksyncError } | 'ambiguous-done' | 'ambiguous-lost';
  /** For the ambiguous effects: whether the transport would say the create may still land later (a timeout: yes; a reset or a 500: no). */
  mayLandLater?: boolean;
}

export function apiError(code: ErrorCode, status?: number, message = `${code} injected`): StacksyncError {
  return new StacksyncError(code, message, status === undefined ? {} : { status });
}

export class FakeApi implements Api {
  readonly variant = 'self-hosted' as const;
  readonly dashboards = new Map<string, LiveDashboard>();
  readonly alerts = new Map<string, LiveAlert>();
  readonly pipes = new Map<string, LivePipe>();
  readonly calls: Call[] = [];
  /** `start:<method>` and `end:<method>` in the order they happened, to see overlap. */
  readonly timeline: string[] = [];
  inFlight = 0;
  maxInFlight = 0;
  /** Awaited inside every call after it is logged; tests hold calls open with it. */
  gate: ((call: Call) => Promise<void> | void) | undefined;
  #injections: Injection[] = [];
  #nextId = 1;

  /** The next `times` calls of `method` (matching `match`) fail with `error`. */
  fail(method: Method, error: StacksyncError, options: { times?: number; match?: (call: Call) => boolean } = {}): void {
    this.#injections.push({
      method,
      match: options.match ?? (() => true),
      times: options.times ?? 1,
      effect: { error },
    });
  }

  /**
   * The next create of `method` times out ambiguously; `happened` says whether it took effect.
   * `mayLandLater: false` makes it a failure after which nothing can land later (a reset, a 500).
   */
  ambiguous(method: 'createDashboard' | 'createAlert', happened: boolean, times = 1, mayLandLater = true): void {
    this.#injections.push({
      method,
      match: () => true,
      times,
      effect: happened ? 'ambiguous-done' : 'ambiguous-lost',
      mayLandLater,
    });
  }

  seedDashboard(name: string, tiles: string[]): LiveDashboard {
    const dashboard: LiveDashboard = {
      id: this.#id('d'),
      name,
      tags: [],
      tiles: tiles.map((tile) => ({ ...tileOf(tile), id: this.#id('t') })),
    };
    this.dashboards.set(dashboard.id, dashboard);
    return dashboard;
  }

  seedAlert(body: AlertWrite): LiveAlert {
    const alert: LiveAlert = { ...body, id: this.#id('a'), state: 'inactive' };
    this.alerts.set(alert.id, alert);
    return alert;
  }

  seedPipe(pipe: LivePipe): void {
    this.pipes.set(pipe.id, structuredClone(pipe));
  }

  methods(): Method[] {
    return this.calls.map((call) => call.method);
  }

  async readLiveState(): Promise<LiveState> {
    return liveStateOf({
      Pipe: [...this.pipes.values()],
      Dashboard: [...this.dashboards.values()],
      Alert: [...this.alerts.values()],
    });
  }

  async readKinds(kinds: readonly Kind[]): Promise<LiveState> {
    const all = await this.readLiveState();
    return liveStateOf(kinds.reduce<LiveLists>((each, kind) => withList(each, kind, liveOf(all, kind)), {}));
  }

  async listPipes(): Promise<LivePipe[]> {
    return [...this.pipes.values()];
  }

  updatePipe(id: string, patch: PipePatch): Promise<LivePipe> {
    return this.#serve({ method: 'updatePipe', id, body: patch }, () => {
      const pipe = this.pipes.get(id);
      if (!pipe) throw apiError('E_API_NOT_FOUND', 404);
      applyMappings(pipe, patch);
      if (patch.name !== undefined) pipe.name = patch.name;
      return structuredClone(pipe);
    });
  }

  listDashboards(): Promise<LiveDashboard[]> {
    return this.#serve({ method: 'listDashboards' }, () =>
      [...this.dashboards.values()].map((dashboard) => structuredClone(dashboard)),
    );
  }

  createDashboard(body: DashboardWrite): Promise<LiveDashboard> {
    return this.#serve({ method: 'createDashboard', name: body.name, body }, () => {
      const dashboard: LiveDashboard = {
        id: this.#id('d'),
        name: body.name,
        tags: body.tags ?? [],
        tiles: body.tiles.map((tile) => ({ ...tile, id: this.#id('t') })),
      };
      this.dashboards.set(dashboard.id, dashboard);
      return structuredClone(dashboard);
    });
  }

  updateDashboard(id: string, body: DashboardWrite): Promise<LiveDashboard> {
    return this.#serve({ method: 'updateDashboard', id, name: body.name, body }, () => {
      const dashboard = this.dashboards.get(id);
      if (!dashboard) throw apiError('E_API_NOT_FOUND', 404);
      const existing = new Set(dashboard.tiles.map((tile) => tile.id));
      dashboard.name = body.name;
      if (body.tags) dashboard.tags = body.tags;
      dashboard.tiles = body.tiles.map((tile) => ({
        ...tile,
        id: tile.id !== undefined && existing.has(tile.id) ? tile.id : this.#id('t'),
      }));
      const kept = new Set(dashboard.tiles.map((tile) => tile.id));
      for (const alert of [...this.alerts.values()]) {
        if (alert.dashboardId === id && alert.tileId !== undefined && !kept.has(alert.tileId))
          this.alerts.delete(alert.id);
      }
      return structuredClone(dashboard);
    });
  }

  deleteDashboard(id: string): Promise<void> {
    return this.#serve({ method: 'deleteDashboard', id }, () => {
      this.dashboards.delete(id);
      for (const alert of [...this.alerts.values()]) if (alert.dashboardId === id) this.alerts.delete(alert.id);
    });
  }

  listAlerts(): Promise<LiveAlert[]> {
    return this.#serve({ method: 'listAlerts' }, () =>
      [...this.alerts.values()].map((alert) => structuredClone(alert)),
    );
  }

  createAlert(body: AlertWrite): Promise<LiveAlert> {
    return this.#serve({ method: 'createAlert', name: body.name, body }, () => {
      this.#checkTile(body);
      const alert: LiveAlert = { ...structuredClone(body), id: this.#id('a'), state: 'inactive', silenced: false };
      this.alerts.set(alert.id, alert);
      return structuredClone(alert);
    });
  }

  updateAlert(id: string, body: AlertWrite): Promise<LiveAlert> {
    return this.#serve({ method: 'updateAlert', id, name: body.name, body }, () => {
      if (!this.alerts.has(id)) throw apiError('E_API_NOT_FOUND', 404);
      this.#checkTile(body);
      const alert: LiveAlert = { ...structuredClone(body), id, state: 'inactive' };
      this.alerts.set(id, alert);
      return structuredClone(alert);
    });
  }

  deleteAlert(id: string): Promise<void> {
    return this.#serve({ method: 'deleteAlert', id }, () => {
      if (!this.alerts.delete(id)) throw apiError('E_API_NOT_FOUND', 404);
    });
  }

  // The port's calls, by kind, onto the named calls the log records (`createDashboard`, …).
  list<K extends Kind>(kind: K): Promise<LiveOfKind<K>[]> {
    const lists: Partial<Record<Kind, () => Promise<unknown[]>>> = {
      Pipe: () => this.listPipes(),
      Dashboard: () => this.listDashboards(),
      Alert: () => this.listAlerts(),
    };
    return (lists[kind] ?? (async () => []))() as Promise<LiveOfKind<K>[]>;
  }

  create<K extends Kind>(kind: K, body: WriteBody): Promise<LiveOfKind<K>> {
    const creates: Partial<Record<Kind, () => Promise<unknown>>> = {
      Dashboard: () => this.createDashboard(body as DashboardWrite),
      Alert: () => this.createAlert(body as AlertWrite),
    };
    return (creates[kind] ?? (() => Promise.reject(apiError('E_API_NOT_FOUND', 404))))() as Promise<LiveOfKind<K>>;
  }

  update<K extends Kind>(kind: K, id: string, body: WriteBody): Promise<LiveOfKind<K>> {
    const updates: Partial<Record<Kind, () => Promise<unknown>>> = {
      Pipe: () => this.updatePipe(id, body as PipePatch),
      Dashboard: () => this.updateDashboard(id, body as DashboardWrite),
      Alert: () => this.updateAlert(id, body as AlertWrite),
    };
    return (updates[kind] ?? (() => Promise.reject(apiError('E_API_NOT_FOUND', 404))))() as Promise<LiveOfKind<K>>;
  }

  /** A pipe's state command or scaling: `start` runs it, `stop` stops it (at once: the fake has no provisioning); the call is logged as `actPipe` with the verb as its name. */
  act<K extends Kind>(kind: K, verb: ActionVerb, id: string, body: WriteBody): Promise<LiveOfKind<K> | undefined> {
    if (kind !== 'Pipe') return Promise.reject(apiError('E_API_NOT_FOUND', 404));
    return this.#serve({ method: 'actPipe', id, name: verb, body }, () => {
      const pipe = this.pipes.get(id);
      if (!pipe) throw apiError('E_API_NOT_FOUND', 404);
      if (verb === 'start' && pipe.state === 'Running') throw apiError('E_API_VALIDATION', 400, 'already running');
      if (verb === 'start') pipe.state = 'Running';
      if (verb === 'stop') pipe.state = 'Stopped';
      return structuredClone(pipe) as LiveOfKind<K>;
    });
  }

  remove(kind: Kind, id: string): Promise<void> {
    const removes: Partial<Record<Kind, () => Promise<void>>> = {
      Dashboard: () => this.deleteDashboard(id),
      Alert: () => this.deleteAlert(id),
    };
    return (removes[kind] ?? (() => Promise.reject(apiError('E_API_NOT_FOUND', 404))))();
  }

  /** Checks nothing: the fake offers no check route. */
  async validate(): Promise<undefined> {
    return undefined;
  }

  async close(): Promise<void> {}

  #checkTile(body: AlertWrite): void {
    if (body.source !== 'tile') return;
    const dashboard = body.dashboardId === undefined ? undefined : this.dashboards.get(body.dashboardId);
    if (!dashboard) throw apiError('E_API_VALIDATION', 400, 'Dashboard not found');
    if (!dashboard.tiles.some((tile) => tile.id === body.tileId))
      throw apiError('E_API_VALIDATION', 400, 'Tile not found');
  }

  async #serve<T>(call: Call, handle: () => T): Promise<T> {
    this.calls.push(call);
    this.timeline.push(`start:${call.method}`);
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      // Yield to the event loop so calls the executor starts together overlap, as on a network.
      await new Promise((resolve) => setImmediate(resolve));
      await this.gate?.(call);
      const injection = this.#injections.find(
        (candidate) => candidate.method === call.method && candidate.times > 0 && candidate.match(call),
      );
      if (!injection) return handle();
      injection.times -= 1;
      if (injection.effect === 'ambiguous-done') handle();
      if (typeof injection.effect === 'object') throw injection.effect.error;
      throw new StacksyncError('E_API_AMBIGUOUS', `${call.method} timed out after sending`, {
        details: { mayLandLater: injection.mayLandLater !== false },
      });
    } finally {
      this.inFlight -= 1;
      this.timeline.push(`end:${call.method}`);
    }
  }

  #id(prefix: string): string {
    const id = `${prefix}${this.#nextId}`;
    this.#nextId += 1;
    return id;
  }
}

function tileOf(name: string): { name: string; x: number; y: number; w: number; h: number; series: [] } {
  return { name, x: 0, y: 0, w: 4, h: 2, series: [] };
}

/** The service's postgres mapping rules: remove only what exists, never add a duplicate, never both at once. */
function applyMappings(pipe: LivePipe, patch: PipePatch): void {
  const postgres = patch.source?.['postgres'] as
    | { tableMappingsToAdd?: TableMapping[]; tableMappingsToRemove?: TableMapping[] }
    | undefined;
  if (!postgres) return;
  const mappings = (pipe.source.block['tableMappings'] as TableMapping[] | undefined) ?? [];
  const key = (mapping: TableMapping): string => `${mapping.sourceSchemaName}.${mapping.sourceTable}`;
  const removing = new Set((postgres.tableMappingsToRemove ?? []).map(key));
  for (const mapping of postgres.tableMappingsToAdd ?? []) {
    if (removing.has(key(mapping))) throw apiError('E_API_VALIDATION', 400, 'same table in add and remove');
  }
  for (const name of removing) {
    if (!mappings.some((mapping) => key(mapping) === name))
      throw apiError('E_API_VALIDATION', 400, `no mapping ${name} to remove`);
  }
  const kept = mappings.filter((mapping) => !removing.has(key(mapping)));
  for (const mapping of postgres.tableMappingsToAdd ?? []) {
    if (kept.some((existing) => key(existing) === key(mapping)))
      throw apiError('E_API_VALIDATION', 400, `mapping ${key(mapping)} exists`);
    kept.push(mapping);
  }
  pipe.source.block['tableMappings'] = kept;
}
