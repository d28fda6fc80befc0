/**
 * References by name across kinds, pure: what a name a manifest gives for a resource of another
 * kind stands for in this plan. A manifest of that kind in the target (by `metadata.name`) first —
 * its live id, or the change that creates it in this run — else exactly one live resource with
 * that API name; never one this plan deletes. Every kind resolves its names here, so a new
 * source, a saved search on it and an alert on that apply in one run.
 */
import type { Kind, Variant } from '../model/kinds.js';
import { changeKey, type Change } from '../model/plan.js';
import type { ApiProfile } from '../schema/enums.js';
import type { LiveBase } from '../model/resources.js';
import { accessOf, descriptorOf, type KindPlan, type Reference } from '../kinds/index.js';

export interface ReferenceContext {
  target: string;
  variant: Variant;
  profile: ApiProfile;
  /** The plans of the kinds planned so far (every kind is planned after the kinds it names). */
  planned: ReadonlyMap<Kind, KindPlan>;
  /** The live objects of a kind. */
  liveOf(kind: Kind): readonly LiveBase[];
  /** The deletes of this plan, by kind. */
  deletes: ReadonlyMap<Kind, readonly Change[]>;
  /** What the inventory holds and no manifest names any more, by kind: this plan's deletes, and the orphans it keeps. */
  gone: ReadonlyMap<Kind, readonly Change[]>;
}

/** Listed in a message at most. */
const NAMES_SHOWN = 20;

export function referenceResolver(ctx: ReferenceContext): (kind: Kind, name: string) => Reference {
  return (kind, name) => {
    const access = accessOf(kind, ctx.variant, ctx.profile);
    const { collection } = descriptorOf(kind);
    if (access === 'none')
      return {
        error: `target ${ctx.target} (${ctx.variant}, api profile ${ctx.profile}) has no ${collection}, so ${kind} "${name}" cannot be named there`,
      };
    return fromManifest(ctx, kind, name) ?? fromLive(ctx, kind, name);
  };
}

function fromManifest(ctx: ReferenceContext, kind: Kind, name: string): Reference | undefined {
  const change = ctx.planned.get(kind)?.changes.find((candidate) => candidate.name === name);
  if (!change) return undefined;
  if (change.action === 'error')
    return {
      error: `${kind}/${name} cannot be applied (${change.error ?? 'see its row'}), so what names it cannot be either`,
    };
  if (change.action === 'create' || change.id === undefined) return { after: changeKey(kind, name) };
  return { id: change.id };
}

function fromLive(ctx: ReferenceContext, kind: Kind, name: string): Reference {
  const deleted = new Set((ctx.deletes.get(kind) ?? []).map((change) => change.id));
  const named = ctx.liveOf(kind).filter((item) => item.name === name);
  const kept = named.filter((item) => !deleted.has(item.id));
  const [only] = kept;
  if (only && kept.length === 1) return { id: only.id };
  if (kept.length > 1)
    return {
      error: `${kept.length} live ${descriptorOf(kind).collection} of target ${ctx.target} are named "${name}"; name one by its id, or rename the others`,
    };
  if (named.length > 0)
    return { error: `${kind} "${name}" is deleted by this plan (prune), so nothing can name it any more` };
  return { error: manifestGone(ctx, kind, name) ?? unknownName(ctx, kind, name) };
}

/** Why a name of a manifest that is gone names nothing: stacksync deletes what it made in this plan, or leaves it an orphan. */
function manifestGone(ctx: ReferenceContext, kind: Kind, name: string): string | undefined {
  const gone = ctx.gone.get(kind)?.find((change) => change.name === name);
  if (!gone) return undefined;
  if (gone.action === 'delete')
    return `the manifest of ${kind}/${name} is gone, and this plan deletes its ${kind} (prune): restore that manifest, or name another ${kind}`;
  const live = gone.liveName === undefined ? '' : `, or name the live one by its name "${gone.liveName}"`;
  return `the manifest of ${kind}/${name} is gone (its ${kind} is left live, an orphan): restore that manifest${live}, or name another ${kind}`;
}

function unknownName(ctx: ReferenceContext, kind: Kind, name: string): string {
  const manifests = (ctx.planned.get(kind)?.changes ?? [])
    .filter((change) => change.action !== 'delete' && change.action !== 'orphan')
    .map((change) => change.name);
  const live = ctx.liveOf(kind).flatMap((item) => (item.name === undefined ? [] : [item.name]));
  const known = [...new Set([...manifests, ...live])].sort();
  const listed =
    known.length === 0
      ? 'it has none'
      : `it has ${known
          .slice(0, NAMES_SHOWN)
          .map((each) => `"${each}"`)
          .join(', ')}${known.length > NAMES_SHOWN ? ', …' : ''}`;
  return `${kind} "${name}" is neither a ${kind} manifest nor a live ${kind} of target ${ctx.target} (${listed})`;
}
