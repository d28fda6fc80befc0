/** Building blocks shared by the per-kind differs: one place that shapes a Change. */
import type { Kind } from '../../model/kinds.js';
import type { DesiredBase } from '../../model/desired.js';
import type { ErrorCode } from '../../errors.js';
import type { UnreadableResource } from '../../model/resources.js';
import { changeKey, type Action, type Change, type ChangeKey, type FieldDiff } from '../../model/plan.js';
import type { Match } from './match.js';

/** A change for a manifest, carrying its file and line. */
export function changeFor(target: string, resource: DesiredBase, action: Action): Change {
  const change: Change = {
    target,
    kind: resource.kind,
    name: resource.key,
    action,
    file: resource.location.file,
    diff: [],
    operations: [],
    dependsOn: [],
    warnings: [],
  };
  if (resource.location.line !== undefined) change.line = resource.location.line;
  if (resource.location.item !== undefined) change.item = resource.location.item;
  return change;
}

/** A manifest that cannot be planned: no operations, the reason in `code` and `error`. */
export function errorChange(
  target: string,
  resource: DesiredBase,
  code: ErrorCode,
  message: string,
  id?: string,
): Change {
  const change = changeFor(target, resource, 'error');
  change.code = code;
  change.error = message;
  if (id !== undefined) change.id = id;
  return change;
}

/**
 * A manifest whose live resource could not be read: an error on that resource only (code
 * `E_API_PROTOCOL`, with its id), so the rest of the target is planned as usual.
 */
export function unreadableChange(target: string, resource: DesiredBase, live: UnreadableResource): Change {
  const message = `the live ${live.kind} ${live.id} has a shape stacksync cannot read (${live.problem}); it is left alone until it can be read`;
  return errorChange(target, resource, 'E_API_PROTOCOL', message, live.id);
}

/** True for the stand-in of a live resource that could not be read. */
export function isUnreadable(live: object): live is UnreadableResource {
  return 'problem' in live;
}

/** Adds dependencies without duplicates, kept sorted so plans are stable. */
export function addDependsOn(change: Change, ...keys: ChangeKey[]): void {
  const all = new Set([...change.dependsOn, ...keys]);
  all.delete(changeKey(change.kind, change.name));
  change.dependsOn = [...all].sort();
}

/** The text every differ uses for an ambiguous name match. */
export function ambiguousMessage(kind: Kind, name: string | undefined, count: number): string {
  return `${count} live ${kind}s are named "${name ?? ''}" and none is in the inventory; rename or delete the extra ones so exactly one matches`;
}

/** A conflict warning for a same-named live resource stacksync does not own. */
export function adoptWarning(kind: Kind, name: string | undefined, adopt: boolean): string {
  return adopt
    ? `a live ${kind} named "${name ?? ''}" that stacksync did not create will be adopted`
    : `conflict: a live ${kind} named "${name ?? ''}" exists that stacksync did not create; it is left alone (use --adopt or sync.adopt: true to take it over)`;
}

/**
 * The change of a manifest matched to a live resource: `adopt` when it is someone else's, else
 * `update` or `unchanged` by its diff; with the live id, the API name and the adoption warning.
 */
export function matchedChange(
  target: string,
  desired: DesiredBase & { name?: string },
  live: { id: string; name?: string },
  diff: FieldDiff[],
  match: Match<unknown>,
  adopt: boolean,
): Change {
  const adopting = match.how === 'adopt';
  const change = changeFor(target, desired, adopting ? 'adopt' : diff.length > 0 ? 'update' : 'unchanged');
  change.id = live.id;
  if (desired.name !== undefined) change.liveName = desired.name;
  change.diff = diff;
  if (match.how === 'owned' && match.reclaimed) change.reclaimed = true;
  if (adopting) change.warnings.push(adoptWarning(desired.kind, live.name, adopt));
  return change;
}

/**
 * Marks a change that would send write-only values this run cannot resolve (`path: why`): the
 * plan says so beside it, and apply refuses this change alone (docs/secrets.md).
 */
export function withUnresolved(change: Change, unresolved: readonly string[]): Change {
  if (unresolved.length === 0) return change;
  change.unresolved = [...unresolved];
  change.warnings.push(`apply needs ${unresolved.join('; ')}: this write is refused until it can be read`);
  return change;
}
