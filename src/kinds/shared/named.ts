/**
 * The differ of the kinds that are a flat set of members matched by API name (sources,
 * connections, webhooks, saved searches): one shape, so each kind gives only what is its own —
 * its members as the API takes them (names resolved to ids), its live members, its secrets.
 *
 * Server-side apply: only the members a manifest sets are compared, and an update is a full
 * replace (PUT) built from the live object with the manifest's members laid over it, so a member
 * the manifest leaves out is sent back as it was, never reset.
 */
import type { ErrorCode } from '../../errors.js';
import type { DesiredBase } from '../../model/desired.js';
import type { Kind } from '../../model/kinds.js';
import {
  changeKey,
  operationType,
  SENSITIVE,
  UNKNOWN_IN_PLAN,
  type Change,
  type FieldDiff,
  type WriteBody,
} from '../../model/plan.js';
import { secretHashKey, type TargetState } from '../../model/state.js';
import { withUnreadable, type UnreadableResource } from '../../model/resources.js';
import type { KindPlan, KindPlanInput } from '../descriptor.js';
import {
  ambiguousMessage,
  changeFor,
  errorChange,
  isUnreadable,
  matchedChange,
  unreadableChange,
  withUnresolved,
} from './change.js';
import { keepLive } from './ignore.js';
import { matchAll, type Match } from './match.js';
import type { LiveFlat } from './flat-live.js';
import { NameRefs } from './refs.js';
import { diffValues, fieldDiff, overlayMembers } from './values.js';

/** A desired resource of such a kind: its API name, and what its descriptor makes of the rest. */
export type DesiredNamed = DesiredBase & { name: string };

/** What the write-only and secret members of one resource add to its plan. */
export interface SecretPart {
  /** Rows of the diff; values are `(sensitive)`. */
  diff: FieldDiff[];
  /** Members to send (only those whose value changed, where the service keeps what is left out). */
  body: WriteBody;
  /** HMACs (or digests of them) of what is sent, by secret path, recorded once the write succeeded. */
  hashes: Record<string, string>;
  warnings: string[];
  /** Members the write needs whose value this run cannot resolve (`path: why`): apply refuses it. */
  unresolved?: string[];
}

/** What one kind of this shape is. */
export interface NamedKind<D extends DesiredNamed> {
  kind: Kind;
  /** The members the manifest manages, as the API takes them: names written as ids through `refs`. */
  members(desired: D, refs: NameRefs, input: KindPlanInput<D, LiveFlat>): WriteBody;
  /** Why a resource of this manifest cannot be created (a member a create needs is left out). */
  createProblem?(desired: D, members: WriteBody): string | undefined;
  /** What its secrets add to a write (none: the kind has no secret). `live` absent on a create. */
  secrets?(desired: D, live: LiveFlat | undefined, members: WriteBody, state: TargetState): SecretPart;
}

export interface NamedOutcome {
  key: string;
  change: Change;
  live?: LiveFlat;
}

/** Every manifest of the kind against its live resources: its changes, and by key what each became. */
export function planNamed<D extends DesiredNamed>(
  input: KindPlanInput<D, LiveFlat>,
  rules: NamedKind<D>,
): KindPlan & { outcome: NamedOutcome[] } {
  const matches = matchAll(
    rules.kind,
    input.desired,
    withUnreadable(rules.kind, input.live, input.unreadable),
    input.state,
    input.timing,
  );
  const outcome = input.desired.map((desired) =>
    planOne(input, rules, desired, matches.get(desired.key) ?? { how: 'none' }),
  );
  return { changes: outcome.map((each) => each.change), outcome };
}

function planOne<D extends DesiredNamed>(
  input: KindPlanInput<D, LiveFlat>,
  rules: NamedKind<D>,
  desired: D,
  match: Match<LiveFlat | UnreadableResource>,
): NamedOutcome {
  const matched = match.how === 'owned' || match.how === 'adopt' ? match.live : undefined;
  const failed = (code: ErrorCode, message: string): NamedOutcome => ({
    key: desired.key,
    change: errorChange(input.target, desired, code, message, matched?.id),
  });
  if (matched && isUnreadable(matched))
    return { key: desired.key, change: unreadableChange(input.target, desired, matched) };
  if (match.how === 'ambiguous') return failed('E_CONFLICT', ambiguousMessage(rules.kind, desired.name, match.count));
  const live: LiveFlat | undefined = matched;
  const refs = new NameRefs(input.refer);
  const drafted = rules.members(desired, refs, input);
  const members = live ? keepLive(drafted, live.members, desired.policy?.ignore) : drafted;
  if (refs.errors.length > 0) return failed('E_REF_UNRESOLVED', refs.errors.join('; '));
  const secrets = rules.secrets?.(desired, live, members, input.state) ?? {
    diff: [],
    body: {},
    hashes: {},
    warnings: [],
  };
  if (!live) {
    const problem = rules.createProblem?.(desired, members);
    if (problem !== undefined) return failed('E_MANIFEST_INVALID', problem);
    return { key: desired.key, change: createChange(input, rules.kind, desired, members, refs, secrets) };
  }
  return {
    key: desired.key,
    live,
    change: existingChange(input, rules.kind, desired, { members, refs, secrets }, live, match),
  };
}

function createChange(
  input: KindPlanInput<DesiredNamed, LiveFlat>,
  kind: Kind,
  desired: DesiredNamed,
  members: WriteBody,
  refs: NameRefs,
  secrets: SecretPart,
): Change {
  const change = changeFor(input.target, desired, 'create');
  change.liveName = desired.name;
  change.diff = [...Object.entries(members).map(([path, value]) => fieldDiff(path, undefined, value)), ...secrets.diff];
  change.operations = [
    { type: operationType('create', kind), body: { ...members, ...secrets.body }, ...refs.operationRefs },
  ];
  return withSecrets(change, secrets);
}

interface Drafted {
  members: WriteBody;
  refs: NameRefs;
  secrets: SecretPart;
}

function existingChange(
  input: KindPlanInput<DesiredNamed, LiveFlat>,
  kind: Kind,
  desired: DesiredNamed,
  drafted: Drafted,
  live: LiveFlat,
  match: Match<unknown>,
): Change {
  const { members, refs, secrets } = drafted;
  const diff: FieldDiff[] = [];
  for (const [path, value] of Object.entries(members)) diffValues(path, value, live.members[path], diff);
  diff.push(...secrets.diff);
  const change = matchedChange(input.target, desired, live, diff, match, input.adopt);
  if (diff.length === 0 || (match.how === 'adopt' && !input.adopt)) return change;
  const body = { ...overlayMembers(members, live.members), ...secrets.body };
  change.operations = [{ type: operationType('update', kind), id: live.id, body, ...refs.operationRefs }];
  return withSecrets(change, secrets);
}

function withSecrets(change: Change, secrets: SecretPart): Change {
  if (Object.keys(secrets.hashes).length > 0) change.secretHashes = { ...secrets.hashes };
  change.warnings.push(...secrets.warnings);
  return withUnresolved(change, secrets.unresolved ?? []);
}

/** A diff row of a secret member: both sides masked. */
export function secretRow(path: string, before: boolean, after: boolean): FieldDiff {
  return fieldDiff(path, before ? SENSITIVE : undefined, after ? SENSITIVE : undefined);
}

/** A diff row of a secret member the write needs and this run cannot resolve. */
export function unknownRow(path: string, before: boolean): FieldDiff {
  return fieldDiff(path, before ? SENSITIVE : undefined, UNKNOWN_IN_PLAN);
}

/** The HMAC last sent for `path` of `kind/key`, as the state file holds it. */
export function sentHash(state: TargetState, kind: Kind, key: string, path: string): string | undefined {
  return state.secretHashes[secretHashKey(kind, key, path)];
}

/** The key of a change of this kind, for what waits on it. */
export function keyOf(kind: Kind, name: string): ReturnType<typeof changeKey> {
  return changeKey(kind, name);
}
