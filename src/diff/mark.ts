/**
 * `sync.markManaged` (docs/ownership.md, "The managed-by mark"): the tag stacksync puts on what it
 * writes, for the kinds whose descriptor says where their tags are. Pure. Before a kind is
 * planned, the mark is taken out of its live objects, so it is never a difference (not in a plan,
 * not drift, not exported); after, every create and update body of the kind gets it added to the
 * tags it sends: the manifest's own, or, when the body sends none, the live ones as they were.
 */
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { LiveBase } from '../model/resources.js';
import type { Change, Operation, WriteBody } from '../model/plan.js';

/** What marking one kind needs to remember between its live objects and its changes. */
export interface KindMarking<L extends LiveBase> {
  /** The live objects as the differ sees them: without the mark. */
  live: L[];
  /** The changes with the mark added to what they write. */
  mark(changes: readonly Change[]): void;
}

/** Marking for one kind, or undefined when it has no tags or there is no mark. */
export function kindMarking<L extends LiveBase>(
  descriptor: Pick<KindDescriptor, 'tags'>,
  live: readonly L[],
  mark: string | undefined,
): KindMarking<L> | undefined {
  const tags = descriptor.tags;
  if (mark === undefined || tags === undefined) return undefined;
  const liveTags = new Map<string, readonly string[]>();
  const stripped = live.map((object) => {
    const own = tags.of(object);
    if (own === undefined) return object;
    liveTags.set(object.id, own);
    return own.includes(mark)
      ? (tags.withTags(
          object,
          own.filter((tag) => tag !== mark),
        ) as L)
      : object;
  });
  const marked = (sent: unknown, id: string | undefined): string[] => {
    const base = Array.isArray(sent) ? (sent as string[]) : id === undefined ? [] : [...(liveTags.get(id) ?? [])];
    return base.includes(mark) ? [...base] : [...base, mark];
  };
  const markOperation = (operation: Operation): Operation => {
    const id = 'id' in operation ? operation.id : undefined;
    if ('body' in operation)
      return { ...operation, body: withMember(operation.body, tags.member, marked(operation.body[tags.member], id)) };
    // A merge update (PATCH) leaves tags it does not name as they are.
    if ('patch' in operation && tags.member in operation.patch)
      return {
        ...operation,
        patch: withMember(operation.patch, tags.member, marked(operation.patch[tags.member], id)),
      };
    return operation;
  };
  return {
    live: stripped,
    mark(changes) {
      for (const change of changes) {
        if (
          change.action !== 'create' &&
          change.action !== 'update' &&
          change.action !== 'adopt' &&
          change.action !== 'replace'
        )
          continue;
        change.operations = change.operations.map(markOperation);
      }
    },
  };
}

function withMember(body: WriteBody, member: string, value: string[]): WriteBody {
  return { ...body, [member]: value };
}

/** Whether a live resource's tags carry the mark (what letting go of it takes off). */
export function carriesMark(tags: readonly string[] | undefined, mark: string): boolean {
  return tags?.includes(mark) === true;
}

/** The tags without the mark, the others as they were and in their order (docs/ownership.md, "Letting go"). */
export function withoutMark(tags: readonly string[], mark: string): string[] {
  return tags.filter((tag) => tag !== mark);
}
