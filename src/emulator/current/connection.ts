/**
 * Connections of the current profile (hyperdx `routers/external-api/v2/connections.ts`,
 * `controllers/connection.ts`), pure over one workspace: the ClickHouse endpoint and credentials a
 * source queries through. `password` is write-only: stored as a fingerprint, never answered; an
 * update without one (or with `""`) keeps it. `hyperdxSettingPrefix` null or `""` clears it on
 * update, absent keeps it. A delete checks no source that names the connection (the real one does
 * not). On a managed service the platform makes the connections, and no route serves them (the
 * managed API has no connection path): its sources name them by id.
 */
import {
  CurrentConnection,
  CurrentConnectionCreate,
  CurrentConnectionUpdate,
  type CurrentConnection as Connection,
  type CurrentConnectionCreate as ConnectionCreate,
  type CurrentConnectionUpdate as ConnectionUpdate,
} from '../../kinds/connection/wire.js';
import type { Variant } from '../../model/kinds.js';
import type { CurrentSource } from '../../kinds/source/wire.js';
import { notFound } from '../errors.js';
import { isObjectId, isoTimestamp, newObjectId } from '../ids.js';
import { idOf, timesOf } from './seeded.js';
import type { CurrentWorkspace, StackSecrets } from '../model.js';
import type { SeedConnection } from '../seed.js';
import type { Fingerprint } from '../pipes.js';
import { cleaned, inSchemaOrder, refused } from './validate.js';
import type { StackKind } from './stack-kind.js';

declare module '../model.js' {
  interface CurrentCollections {
    /** On a managed service, the platform's connections: no route serves them; its sources name them by id. */
    connections: Connection[];
  }
  interface CurrentCollectionsData {
    /** Absent in files from before connections were kept: then the connections the sources name. */
    connections?: Connection[];
  }
}

/** The connection a source must name: an object id (400 otherwise) of one of the workspace's connections (400 otherwise). */
export function checkConnectionId(ws: CurrentWorkspace, connection: unknown): void {
  if (typeof connection !== 'string' || !isObjectId(connection))
    throw refused('connection must be a valid connection id');
  if (!ws.connections.some((candidate) => candidate.id === connection))
    throw refused('connection must be an existing connection id');
}

/**
 * The connections of a workspace seeded (or saved) without any: one for each connection its sources
 * name, as the service would have them (the platform's on a managed service).
 */
export function connectionsNamedBy(
  sources: readonly CurrentSource[],
  variant: Variant,
  owner: string,
  nowMs: number,
): Connection[] {
  const now = isoTimestamp(nowMs);
  const host = variant === 'managed' ? `https://${owner}.clickhouse.cloud:8443` : 'http://localhost:8123';
  return [...new Set(sources.map((source) => source.connection))].map((id) => ({
    id,
    name: 'Default',
    host,
    username: 'default',
    createdAt: now,
    updatedAt: now,
  }));
}

// ---------------------------------------------------------------- operations

export function listConnections(ws: CurrentWorkspace): Connection[] {
  return ws.connections;
}

/** Unknown ids answer the plain 404 of the router's `sendStatus(404)`. */
export function getConnection(ws: CurrentWorkspace, id: string): Connection {
  const connection = ws.connections.find((candidate) => candidate.id === id);
  if (!connection) throw notFound(`connection ${id} not found`);
  return connection;
}

export function createConnection(
  ws: CurrentWorkspace,
  body: unknown,
  nowMs: number,
  fingerprint: Fingerprint,
): Connection {
  const write = cleaned<ConnectionCreate>(CurrentConnectionCreate, body);
  const now = isoTimestamp(nowMs);
  const { password, hyperdxSettingPrefix, ...members } = write;
  const connection = inSchemaOrder(CurrentConnection, {
    id: newObjectId(nowMs),
    ...members,
    hyperdxSettingPrefix: hyperdxSettingPrefix ?? undefined,
    createdAt: now,
    updatedAt: now,
  });
  ws.connections.push(connection);
  keepPassword(ws, connection.id, password, fingerprint);
  return connection;
}

/** Sets what the body names; keeps the password unless a non-empty one is sent. */
export function updateConnection(
  ws: CurrentWorkspace,
  id: string,
  body: unknown,
  nowMs: number,
  fingerprint: Fingerprint,
): Connection {
  const write = cleaned<ConnectionUpdate>(CurrentConnectionUpdate, body);
  const current = getConnection(ws, id);
  const { password, hyperdxSettingPrefix, ...members } = write;
  const prefix =
    hyperdxSettingPrefix === null || hyperdxSettingPrefix === ''
      ? undefined
      : (hyperdxSettingPrefix ?? current.hyperdxSettingPrefix);
  const next = inSchemaOrder(CurrentConnection, {
    ...current,
    ...members,
    hyperdxSettingPrefix: prefix,
    updatedAt: isoTimestamp(nowMs),
  });
  ws.connections[ws.connections.indexOf(current)] = next;
  keepPassword(ws, id, password, fingerprint);
  return next;
}

export function deleteConnection(ws: CurrentWorkspace, id: string): void {
  const connection = getConnection(ws, id);
  ws.connections.splice(ws.connections.indexOf(connection), 1);
  ws.secrets.delete(id);
}

function keepPassword(ws: CurrentWorkspace, id: string, password: string | undefined, fingerprint: Fingerprint): void {
  if (password) ws.secrets.set(id, { password: fingerprint(password) });
}

// ---------------------------------------------------------------- seeds

/** A seeded connection as answered; its password goes to `secrets`. */
function connectionOf(
  seed: SeedConnection,
  nowMs: number,
  secrets: Map<string, StackSecrets>,
  fingerprint: Fingerprint,
): Connection {
  const { id: _id, password, createdAt: _created, updatedAt: _updated, ...members } = seed;
  const connection = inSchemaOrder(CurrentConnection, {
    id: idOf(seed, nowMs),
    ...members,
    ...timesOf(seed, nowMs),
  }) as Connection;
  if (typeof password === 'string' && password) secrets.set(connection.id, { password: fingerprint(password) });
  return connection;
}

/** Self-hosted only: a managed service has no connection path (its connections are the platform's; docs/api-client.md). */
export const stackKind: StackKind = {
  // Seeded without connections, a workspace has those its sources name.
  collection: {
    member: 'connections',
    data: { items: CurrentConnection, optional: true },
    after: ['sources'],
    seed: (ws, seeded, { nowMs, fingerprint }) => {
      ws.connections =
        seeded.connections?.map((entry) => connectionOf(entry, nowMs, ws.secrets, fingerprint)) ??
        connectionsNamedBy(ws.sources, ws.variant, ws.owner, nowMs);
    },
    restore: (ws, saved, { nowMs }) => {
      ws.connections = saved.connections ?? connectionsNamedBy(ws.sources, ws.variant, ws.owner, nowMs);
    },
    save: (ws) => ws.connections,
  },
  segment: 'connections',
  idName: 'connectionId',
  servedOn: ['self-hosted'],
  pagedOn: [],
  writableOn: ['self-hosted'],
  list: listConnections,
  get: ({ ws, id }) => getConnection(ws, id),
  create: ({ ws, body, nowMs, fingerprint }) => createConnection(ws, body, nowMs, fingerprint),
  update: ({ ws, id, body, nowMs, fingerprint }) => updateConnection(ws, id, body, nowMs, fingerprint),
  remove: ({ ws, id }) => deleteConnection(ws, id),
};
