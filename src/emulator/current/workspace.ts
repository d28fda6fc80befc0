/**
 * A workspace of the current profile built from a seed or a data file, and saved back: each stack
 * kind fills and saves its own collection (`collection` of its `stackKind`), a kind after those it
 * reads (a seeded dashboard after the sources it names, an alert after its dashboard, webhooks
 * and saved search). Seeded records a kind's rules would refuse fail the start, naming where.
 */
import type { Variant } from '../../model/kinds.js';
import type { CurrentWorkspace, CurrentWorkspaceData, StackSecrets } from '../model.js';
import type { Fingerprint } from '../pipes.js';
import { newObjectId } from '../ids.js';
import type { SeedStack } from '../seed.js';
import type { Restoring } from './stack-kind.js';
import { CURRENT_COLLECTIONS } from './stack-kinds.js';

export type { Restoring } from './stack-kind.js';

/** A workspace with no collection yet: each kind fills its own, in order. */
function bare(owner: string, variant: Variant, secrets: Map<string, StackSecrets>): CurrentWorkspace {
  return { profile: 'current', owner, variant, secrets } as CurrentWorkspace;
}

/** The workspace of a seeded service (managed) or team (self-hosted) under the current profile. */
export function seededWorkspace(
  owner: string,
  variant: Variant,
  seeded: SeedStack,
  nowMs: number,
  fingerprint: Fingerprint,
): CurrentWorkspace {
  const seeding = { nowMs, fingerprint, connection: newObjectId(nowMs) };
  const ws = bare(owner, variant, new Map());
  for (const collection of CURRENT_COLLECTIONS) collection.seed(ws, seeded, seeding);
  return ws;
}

/** A workspace as saved; what files from before a kind lack, the kind fills in. */
export function restoredWorkspace(
  owner: string,
  variant: Variant,
  saved: CurrentWorkspaceData,
  restoring: Restoring,
): CurrentWorkspace {
  const ws = bare(
    owner,
    variant,
    new Map(Object.entries(saved.secrets ?? {}).map(([id, secrets]) => [id, restoring.upgrade(secrets)])),
  );
  for (const collection of CURRENT_COLLECTIONS) collection.restore(ws, saved, restoring);
  return ws;
}

/** What the data file holds of a workspace: each kind's collection, then the write-only members' fingerprints. */
export function workspaceData(ws: CurrentWorkspace): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const collection of CURRENT_COLLECTIONS) {
    const saved = collection.save(ws);
    if (saved !== undefined) data[collection.member] = saved;
  }
  return { ...data, secrets: Object.fromEntries(ws.secrets) };
}
