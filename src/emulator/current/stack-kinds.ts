/**
 * The current profile's stack kinds as one table both variants' routes are built from: where each
 * kind lives, which operations it has (webhooks have no GET by id; a managed service has no
 * connection path, its connections are the platform's), which lists page, and which body schema the
 * managed gateway checks. Managed paths are `…/stack/<segment>/{<idName>}`, self-hosted ones
 * `/api/v2/<segment>/{id}`.
 */
import type { Variant } from '../../model/kinds.js';
import type { CurrentWorkspace } from '../model.js';
import type { Fingerprint } from '../pipes.js';
import * as alerts from './alerts.js';
import * as connections from './connections.js';
import * as dashboards from './dashboards.js';
import type { GatewayOperation } from './gateway.js';
import * as roles from './roles.js';
import * as savedSearches from './saved-searches.js';
import * as sources from './sources.js';
import * as webhooks from './webhooks.js';

/** What an operation is given: the workspace, the path id, the body, the time, how write-only members are kept. */
export interface StackCall {
  ws: CurrentWorkspace;
  id: string;
  body: unknown;
  nowMs: number;
  fingerprint: Fingerprint;
}

export interface StackKind {
  segment: string;
  /** The managed path's id parameter (`dashboardId`), as route templates name it. */
  idName: string;
  /** The schema the managed gateway checks writes against. */
  gateway?: GatewayOperation;
  /** Variants that serve the kind at all (a managed service has no connection path: docs/api-client.md). */
  servedOn: readonly Variant[];
  /** Variants whose list takes `limit` and `offset` (self-hosted only: the managed lists declare no query parameter, and answer at most 1,000). */
  pagedOn: readonly Variant[];
  /** Variants that may create, update and delete. */
  writableOn: readonly Variant[];
  list(ws: CurrentWorkspace): readonly unknown[];
  get?(call: StackCall): unknown;
  create(call: StackCall): unknown;
  update(call: StackCall): unknown;
  remove(call: StackCall): void;
  /** A POST on `<segment>/<suffix>` that answers without storing; the self-hosted server answers it bare, not in `{data}`. */
  check?: { suffix: string; gateway: GatewayOperation; handle(call: StackCall): unknown };
}

const BOTH: readonly Variant[] = ['managed', 'self-hosted'];

export const CURRENT_STACK_KINDS: readonly StackKind[] = [
  {
    segment: 'dashboards',
    idName: 'dashboardId',
    gateway: 'dashboard',
    servedOn: BOTH,
    pagedOn: [],
    writableOn: BOTH,
    list: dashboards.listDashboards,
    get: ({ ws, id }) => dashboards.getDashboard(ws, id),
    create: ({ ws, body, nowMs }) => dashboards.createDashboard(ws, body, nowMs),
    update: ({ ws, id, body, nowMs }) => dashboards.updateDashboard(ws, id, body, nowMs),
    remove: ({ ws, id }) => dashboards.deleteDashboard(ws, id),
    check: { suffix: 'validate', gateway: 'dashboard', handle: ({ ws, body }) => dashboards.validateDashboard(ws, body) },
  },
  {
    segment: 'alerts',
    idName: 'alertId',
    gateway: 'alert',
    servedOn: BOTH,
    pagedOn: ['self-hosted'],
    writableOn: BOTH,
    list: alerts.listAlerts,
    get: ({ ws, id }) => alerts.getAlert(ws, id),
    create: ({ ws, body, nowMs }) => alerts.createAlert(ws, body, nowMs),
    update: ({ ws, id, body, nowMs }) => alerts.updateAlert(ws, id, body, nowMs),
    remove: ({ ws, id }) => alerts.deleteAlert(ws, id),
  },
  {
    segment: 'sources',
    idName: 'sourceId',
    gateway: 'source',
    servedOn: BOTH,
    pagedOn: [],
    writableOn: BOTH,
    list: sources.listSources,
    get: ({ ws, id }) => sources.getSource(ws, id),
    create: ({ ws, body, nowMs }) => sources.createSource(ws, body, nowMs),
    update: ({ ws, id, body }) => sources.updateSource(ws, id, body),
    remove: ({ ws, id }) => sources.deleteSource(ws, id),
  },
  {
    segment: 'connections',
    idName: 'connectionId',
    servedOn: ['self-hosted'],
    pagedOn: [],
    writableOn: ['self-hosted'],
    list: connections.listConnections,
    get: ({ ws, id }) => connections.getConnection(ws, id),
    create: ({ ws, body, nowMs, fingerprint }) => connections.createConnection(ws, body, nowMs, fingerprint),
    update: ({ ws, id, body, nowMs, fingerprint }) => connections.updateConnection(ws, id, body, nowMs, fingerprint),
    remove: ({ ws, id }) => connections.deleteConnection(ws, id),
  },
  {
    segment: 'webhooks',
    idName: 'webhookId',
    gateway: 'webhook',
    servedOn: BOTH,
    pagedOn: ['self-hosted'],
    writableOn: BOTH,
    list: webhooks.listWebhooks,
    create: ({ ws, body, nowMs, fingerprint }) => webhooks.createWebhook(ws, body, nowMs, fingerprint),
    update: ({ ws, id, body, nowMs, fingerprint }) => webhooks.updateWebhook(ws, id, body, nowMs, fingerprint),
    remove: ({ ws, id }) => webhooks.deleteWebhook(ws, id),
  },
  {
    segment: 'saved-searches',
    idName: 'savedSearchId',
    gateway: 'savedSearch',
    servedOn: BOTH,
    pagedOn: ['self-hosted'],
    writableOn: BOTH,
    list: savedSearches.listSavedSearches,
    get: ({ ws, id }) => savedSearches.getSavedSearch(ws, id),
    create: ({ ws, body, nowMs }) => savedSearches.createSavedSearch(ws, body, nowMs),
    update: ({ ws, id, body, nowMs }) => savedSearches.updateSavedSearch(ws, id, body, nowMs),
    remove: ({ ws, id }) => savedSearches.deleteSavedSearch(ws, id),
  },
  {
    segment: 'roles',
    idName: 'roleId',
    gateway: 'role',
    servedOn: ['managed'],
    pagedOn: [],
    writableOn: ['managed'],
    list: roles.listRoles,
    get: ({ ws, id }) => roles.getRole(ws, id),
    create: ({ ws, body, nowMs }) => roles.createRole(ws, body, nowMs),
    update: ({ ws, id, body, nowMs }) => roles.updateRole(ws, id, body, nowMs),
    remove: ({ ws, id }) => roles.deleteRole(ws, id),
  },
];

/** The managed path id parameters of the current stack (24-hex object ids, not UUIDs). */
export const CURRENT_STACK_ID_NAMES: readonly string[] = CURRENT_STACK_KINDS.map((kind) => kind.idName);
