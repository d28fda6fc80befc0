/**
 * The let-go use case behind `stacksync state forget` (docs/ownership.md, "Letting go of a
 * resource"): resources leave the inventory, so stacksync no longer owns them and never deletes
 * them, and the managed-by mark leaves their tags, so people in the UI no longer read them as
 * managed through Git. Nothing is deleted.
 *
 * Taking the mark off is one update that changes the tags and nothing else. The body is not made
 * here: the live resource is written in manifest terms (export's conversion), its tags without
 * the mark, and planned against live by the kind's own differ, which lays it over the live value
 * as every update does. A plan whose only difference is the tags member is sent; anything else
 * (a live value export cannot write back exactly) is an error for that resource, and nothing of
 * it changes. A resource leaves the inventory only after its mark is off.
 */
import type { Api } from '../api/port.js';
import { profileOf } from '../config/profile.js';
import { carriesMark, withoutMark } from '../diff/mark.js';
import { planTargetAsking } from '../diff/plan-target.js';
import { StacksyncError, errorCodeOf } from '../errors.js';
import { exportLiveState } from '../export/index.js';
import {
  descriptorOf,
  liveOf,
  withKindsRead,
  type DesiredResource,
  type KindManifests,
  type LiveState,
} from '../kinds/index.js';
import type { DesiredBase, SecretValue } from '../model/desired.js';
import type { Target } from '../model/config.js';
import type { Manifest } from '../model/manifest.js';
import type { Kind } from '../model/kinds.js';
import type { Change, WriteBody } from '../model/plan.js';
import type { TargetState } from '../model/state.js';
import { MANAGED_MARK } from '../schema/config.js';
import { targetNamed, type ReconcileContext } from './reconcile.js';
import { inventoryExportOptions } from './export.js';

export interface ForgetSubject {
  kind: Kind;
  /** The inventory key: the manifest's `metadata.name`. */
  name: string;
}

export interface ForgetRequest {
  target: string;
  subjects: readonly ForgetSubject[];
  /** Say what would be done; write neither the API nor the state. */
  dryRun: boolean;
}

/** What became of one resource. */
export interface ForgetOutcome extends ForgetSubject {
  /** Its live id, as the inventory recorded it. */
  id: string;
  /** Whether it left the inventory (with `dryRun`: would leave it). */
  forgotten: boolean;
  /**
   * The mark: `removed` (with `dryRun`: would be), `absent` (the live resource does not carry it,
   * or is gone), `untagged` (its kind has no tags), `kept` (it could not be taken off: `error`).
   */
  mark: 'removed' | 'absent' | 'untagged' | 'kept';
  /** Why its mark could not be taken off; it then stays in the inventory, its tags as they were. */
  error?: string;
}

/**
 * Forgets `subjects` of one target. A subject the inventory does not hold is `E_USAGE` before
 * anything is read or written. The caller holds the state lock (unless `dryRun`).
 */
export async function forgetResources(ctx: ReconcileContext, request: ForgetRequest): Promise<ForgetOutcome[]> {
  const target = targetNamed(ctx.config, request.target);
  const state = ctx.store.get(target.name);
  const owned = request.subjects.map((subject) => ({ ...subject, id: ownedId(state, subject, target.name) }));
  const tagged = owned.filter((subject) => descriptorOf(subject.kind).tags !== undefined);
  const read =
    tagged.length > 0
      ? { live: await readLive(ctx.apiFor(target), [...new Set(tagged.map((subject) => subject.kind))]) }
      : undefined;
  const outcomes: ForgetOutcome[] = [];
  for (const subject of owned) {
    const outcome = await forgetOne(ctx, target, subject, read, request.dryRun);
    outcomes.push(outcome);
    if (outcome.forgotten && !request.dryRun) {
      ctx.store.add(target.name, { type: 'forgotten', kind: subject.kind, key: subject.name });
      await ctx.store.save();
    }
  }
  return outcomes;
}

function ownedId(state: TargetState, subject: ForgetSubject, target: string): string {
  const entry = Object.hasOwn(state.inventory[subject.kind], subject.name)
    ? state.inventory[subject.kind][subject.name]
    : undefined;
  if (entry) return entry.id;
  throw new StacksyncError(
    'E_USAGE',
    `${subject.kind}/${subject.name} is not in the inventory of target ${target}: stacksync does not own it, ` +
      `so there is nothing to forget; nothing was changed`,
    {
      subject: `${subject.kind}/${subject.name}`,
    },
  );
}

async function readLive(api: Api, kinds: readonly Kind[]): Promise<LiveState> {
  const live = await api.readLiveState(kinds);
  const unread = kinds.filter((kind) => live.unread?.includes(kind) === true);
  return unread.length === 0 ? live : withKindsRead(live, await api.readKinds(unread), unread);
}

/** What was read of the target's live state; a plan that looks at kinds not read yet reads them into it. */
interface LiveRead {
  live: LiveState;
}

async function forgetOne(
  ctx: ReconcileContext,
  target: Target,
  subject: ForgetSubject & { id: string },
  read: LiveRead | undefined,
  dryRun: boolean,
): Promise<ForgetOutcome> {
  const tags = descriptorOf(subject.kind).tags;
  if (tags === undefined || read === undefined) return { ...subject, forgotten: true, mark: 'untagged' };
  if (read.live.unreadable?.some((item) => item.kind === subject.kind && item.id === subject.id) === true) {
    return {
      ...subject,
      forgotten: false,
      mark: 'kept',
      error: 'its live value could not be read, so whether it carries the mark is not known',
    };
  }
  const object = liveOf(read.live, subject.kind).find((item) => item.id === subject.id);
  if (object === undefined || !carriesMark(tags.of(object as never), MANAGED_MARK))
    return { ...subject, forgotten: true, mark: 'absent' };
  try {
    const update = await unmarkingUpdate(ctx, target, subject, read);
    if (!dryRun) await ctx.apiFor(target).update(subject.kind, subject.id, update);
    return { ...subject, forgotten: true, mark: 'removed' };
  } catch (error) {
    const code = errorCodeOf(error);
    const message = error instanceof Error ? error.message : String(error);
    return { ...subject, forgotten: false, mark: 'kept', error: code === undefined ? message : `${code}: ${message}` };
  }
}

/**
 * The body of the one update that takes the mark off `subject`: its kind's own update of the live
 * value, in manifest terms, without the mark. Throws when that update would change more than the
 * tags, or cannot be made.
 */
async function unmarkingUpdate(
  ctx: ReconcileContext,
  target: Target,
  subject: ForgetSubject & { id: string },
  read: LiveRead,
): Promise<WriteBody> {
  const descriptor = descriptorOf(subject.kind);
  const member = descriptor.tags!.member;
  const named = referencedKinds(subject.kind);
  const exported = exportLiveState(read.live, inventoryExportOptions(ctx, target, [subject.kind, ...named]));
  const manifest = exported.manifests.find((each) => each.kind === subject.kind && each.id === subject.id);
  if (!manifest) {
    const skipped = exported.skipped.find((each) => each.kind === subject.kind && each.id === subject.id);
    throw new StacksyncError(
      'E_CONFLICT',
      `its live value cannot be written as a manifest (${skipped?.reason ?? 'export skips it'}), so its tags cannot be changed alone`,
    );
  }
  const spec = manifest.document.spec;
  const liveTags = Array.isArray(spec[member]) ? (spec[member] as string[]) : [];
  const own = {
    ...manifest.document,
    metadata: { ...manifest.document.metadata, name: subject.name },
    spec: { ...spec, [member]: withoutMark(liveTags, MANAGED_MARK) },
  };
  // What it names is there too, as it is live, so its names resolve as in a plan of the manifests.
  const others = exported.manifests
    .filter((each) => named.has(each.kind) && each !== manifest)
    .map((each) => ({ key: each.key, document: each.document as unknown }));
  const desired = [{ key: subject.name, document: own as unknown }, ...others].map(({ key, document }) =>
    desiredOf(document as Manifest, key, target.name),
  );
  const plan = (): ReturnType<typeof planTargetAsking> =>
    planTargetAsking({
      target: { name: target.name, variant: target.variant, profile: profileOf(target) },
      desired,
      live: read.live,
      state: ctx.store.get(target.name),
      options: { prune: false, adopt: false, blocked: false, lateCreateWindowMs: ctx.config.sync.lateCreateWindowMs },
      nowMs: ctx.now?.() ?? Date.now(),
    });
  let planned = plan();
  // A kind the plan looks at across kinds (evidence of hidden tiles) is read, and it plans again, as every plan does.
  while (planned.asked.length > 0) {
    read.live = withKindsRead(read.live, await ctx.apiFor(target).readKinds(planned.asked), planned.asked);
    planned = plan();
  }
  const { changes } = planned;
  const change = changes.find((each) => each.kind === subject.kind && each.name === subject.name);
  return onlyTags(change, member);
}

/** The kinds `kind` names, and the kinds those name, and so on. */
function referencedKinds(kind: Kind): Set<Kind> {
  const found = new Set<Kind>();
  const visit = (each: Kind): void => {
    for (const named of descriptorOf(each).references) {
      if (found.has(named)) continue;
      found.add(named);
      visit(named);
    }
  };
  visit(kind);
  return found;
}

/**
 * A live resource in manifest terms as a desired one. Its secrets are not read (the service
 * never returns them): each is unknown, which a plan shows and only a write of it would need.
 */
function desiredOf(manifest: Manifest, key: string, target: string): DesiredResource {
  const manifests = descriptorOf(manifest.kind).manifests as KindManifests<DesiredBase, Manifest>;
  const unknown: SecretValue = { value: '', hmac: '', unknown: 'state forget reads no secrets' };
  const secrets = new Map((manifests.secrets?.(manifest) ?? []).map((site) => [site.path, unknown] as const));
  return manifests.build(
    manifest,
    { key, target, location: { file: `(live ${manifest.kind} ${key})` } },
    secrets,
  ) as DesiredResource;
}

/** The update body of `change`, when it is one write of the tags member and nothing else. */
function onlyTags(change: Change | undefined, member: string): WriteBody {
  if (change === undefined || change.action !== 'update') {
    throw new StacksyncError(
      'E_CONFLICT',
      `its tags cannot be changed alone (its plan is ${change?.action ?? 'empty'}${change?.error ? `: ${change.error}` : ''})`,
    );
  }
  const others = change.diff
    .map((diff) => diff.path)
    .filter((path) => path !== member && !path.startsWith(`${member}[`) && !path.startsWith(`${member}.`));
  if (others.length > 0)
    throw new StacksyncError(
      'E_CONFLICT',
      `taking the mark off would also change ${others.join(', ')}, so its tags cannot be changed alone`,
    );
  const [operation, ...more] = change.operations;
  if (operation === undefined || more.length > 0 || !('id' in operation))
    throw new StacksyncError('E_CONFLICT', 'its tags cannot be changed with one update');
  // Places a create of this run would fill are no update of the tags alone.
  if (
    'refs' in operation &&
    operation.refs !== undefined &&
    Object.keys(operation.refs).some((key) => key.startsWith('/'))
  ) {
    throw new StacksyncError('E_CONFLICT', 'its update names a resource that does not exist yet');
  }
  if ('body' in operation) return operation.body;
  if ('patch' in operation) return operation.patch;
  throw new StacksyncError('E_CONFLICT', 'its tags cannot be changed with one update');
}
