/**
 * Export of the kinds that are a flat set of members: the live members the manifest schema
 * declares, ids of other kinds' resources written as their names where export names them, and
 * secrets as `fromEnv` placeholders the user fills in to manage them.
 */
import type { Kind } from '../../model/kinds.js';
import type { JsonSchema } from '../../schema/api.js';
import { isRecord, recordOr } from '../../support/json.js';
import type { CredentialPlaceholder, ExportContext, KindExport } from '../descriptor.js';
import { pickBySchema } from './pick.js';
import type { LiveFlat } from './flat-live.js';

/** What a kind of this shape tells the kinds that name its resources: the key they are named by. */
export interface ExportName {
  key: string;
}

/** The name export writes for the `kind` resource of `id`, or nothing when it has none (it is then named by id). */
export function exportedName(ctx: ExportContext, kind: Kind, id: string): string | undefined {
  const names = ctx.namesOf(kind, id);
  const key = isRecord(names) ? names['key'] : undefined;
  return typeof key === 'string' ? key : undefined;
}

/**
 * `members` with the id at `member` written as a name at `as.name` where export names the resource
 * it points at, and as an id at `as.id` otherwise.
 */
export function namedReference(
  ctx: ExportContext,
  members: Record<string, unknown>,
  kind: Kind,
  member: string,
  as: { name: string; id: string },
): Record<string, unknown> {
  const id = members[member];
  if (typeof id !== 'string') return members;
  const name = exportedName(ctx, kind, id);
  const { [member]: _id, ...rest } = members;
  return name === undefined ? { ...rest, [as.id]: id } : { ...rest, [as.name]: name };
}

/** The id a live flat resource names at `member` (its connection, its source), as a list. */
export function idsAt(member: string): (live: LiveFlat) => string[] {
  return (live) => {
    const id = live.members[member];
    return typeof id === 'string' ? [id] : [];
  };
}

export interface FlatExportOptions {
  /** Ids of other kinds' resources a live one names (export keeps, of same-named twins, the one most named). */
  namedIds?(live: LiveFlat): string[];
  /** Its secrets, as placeholders to fill in (the service never returns them, or they are not written). */
  credentials?(key: string): CredentialPlaceholder;
}

/** The export of a kind of this shape: `toSpec` turns its live members into a spec candidate (names for ids). */
export function flatExport(
  keyPrefix: string,
  schema: JsonSchema,
  toSpec: (live: LiveFlat, ctx: ExportContext) => Record<string, unknown>,
  options: FlatExportOptions = {},
): KindExport<LiveFlat> {
  return {
    keyPrefix,
    namedIds: (live) => options.namedIds?.(live) ?? [],
    names: (_live, key): ExportName => ({ key }),
    write: (live, key, ctx) => {
      const spec = recordOr(pickBySchema({ ...toSpec(live, ctx), name: live.name }, schema)) ?? {};
      const credentials = options.credentials?.(key);
      return credentials ? { spec, credentials } : { spec };
    },
  };
}
