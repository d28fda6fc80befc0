/**
 * What a current-profile stack kind gives the routes of both variants: where it lives, which
 * operations it has, which lists page, and which body schema the managed gateway checks. Each kind
 * declares its own in its file (`current/<kind>.ts`, exported as `stackKind`); managed paths are
 * `…/stack/<segment>/{<idName>}`, self-hosted ones `/api/v2/<segment>/{id}`.
 */
import type { TSchema } from 'typebox';
import type { Variant } from '../../model/kinds.js';
import type { CurrentCollections, CurrentWorkspace, CurrentWorkspaceData } from '../model.js';
import type { Fingerprint } from '../pipes.js';
import type { SeedStack } from '../seed.js';

/** What an operation is given: the workspace, the path id, the body, the time, how write-only members are kept. */
export interface StackCall {
  ws: CurrentWorkspace;
  id: string;
  body: unknown;
  nowMs: number;
  fingerprint: Fingerprint;
}

/** The request schema the managed gateway checks a write against, by the body it is given (a source's by its `kind`); none leaves the body to the service. */
export type GatewaySchema = (body: Record<string, unknown>) => TSchema | undefined;

/** What seeding a workspace is given: the time, how write-only members are kept, and the connection of default sources. */
export interface Seeding {
  nowMs: number;
  fingerprint: Fingerprint;
  /** The id of the connection the default sources are on. */
  connection: string;
}

/** What restoring a saved workspace is given: the time for what older files lack, and how their secrets are salted. */
export interface Restoring {
  nowMs: number;
  upgrade: (secrets: Record<string, string>) => Record<string, string>;
}

/**
 * How a workspace holds a kind: its member (of the workspace, of a seed's service or team, and of
 * the data file; the kind's file declares its type by augmenting `CurrentCollections`), filled
 * from a seed or a data file, and saved back.
 */
export interface Collection {
  member: keyof CurrentCollections;
  /** What each item of the data file's member is; `optional` when files from before the kind lack the member. */
  data: { items: TSchema; optional?: boolean };
  /** Members filled before this one (its seeding or restoring reads them). */
  after?: readonly (keyof CurrentCollections)[];
  seed(ws: CurrentWorkspace, seeded: SeedStack, seeding: Seeding): void;
  restore(ws: CurrentWorkspace, saved: CurrentWorkspaceData, restoring: Restoring): void;
  /** What the data file holds of it; undefined leaves the member out. */
  save(ws: CurrentWorkspace): unknown;
}

export interface StackKind {
  /** How a workspace holds it. */
  collection: Collection;
  segment: string;
  /** The managed path's id parameter (`dashboardId`), as route templates name it. */
  idName: string;
  /** The schema the managed gateway checks writes against. */
  gateway?: GatewaySchema;
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
  check?: { suffix: string; gateway: GatewaySchema; handle(call: StackCall): unknown };
}

/** Both variants, for a kind both serve. */
export const BOTH: readonly Variant[] = ['managed', 'self-hosted'];
