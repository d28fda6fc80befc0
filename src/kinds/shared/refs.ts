/**
 * References by name across kinds, as a differ writes them into a body: a name resolves to the id
 * of a live resource (written now) or to a change of this run that creates it; then the body holds
 * a placeholder, and the operation's `refs` maps the place (a JSON pointer into the body,
 * `/tiles/0/config/sourceId`) to that change. The executor fills each place with the id the
 * change's write returned ({@link fillPointers}), after that change succeeded
 * ({@link pointerChanges}: the graph orders by them).
 */
import { StacksyncError } from '../../errors.js';
import type { Kind } from '../../model/kinds.js';
import {
  changeKey,
  isChangeKey,
  KNOWN_AFTER_APPLY,
  type ChangeKey,
  type OperationRefs,
  type WriteBody,
} from '../../model/plan.js';
import type { LiveBase } from '../../model/resources.js';
import type { KindRefs, Reference } from '../descriptor.js';
import { isRecord } from './values.js';

/** Whether a refs key is a place in the body (a JSON pointer) rather than a kind's own member. */
function isPointer(key: string): boolean {
  return key.startsWith('/');
}

/** A JSON pointer (RFC 6901) to `path`. */
export function pointerTo(...path: readonly (string | number)[]): string {
  return path.map((segment) => `/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function segmentsOf(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The changes whose ids a body's places take. */
export function pointerChanges(refs: OperationRefs): ChangeKey[] {
  return Object.entries(refs).flatMap(([key, change]) => (isPointer(key) && isChangeKey(change) ? [change] : []));
}

/** `body` with every place of `refs` set to the id its change wrote; throws `E_REF_UNRESOLVED` when that change wrote nothing. */
export function fillPointers(
  body: WriteBody,
  refs: OperationRefs,
  written: (key: ChangeKey) => LiveBase | undefined,
): WriteBody {
  let filled = body;
  for (const [pointer, change] of Object.entries(refs)) {
    if (!isPointer(pointer)) continue;
    const made = isChangeKey(change) ? written(change) : undefined;
    if (!made)
      throw new StacksyncError('E_REF_UNRESOLVED', `${change} was not written in this run, so its id is unknown`, {
        subject: change,
      });
    filled = setInBody(filled, segmentsOf(pointer), made.id);
  }
  return filled;
}

/** The change of `kind` a kind's own refs entry `member` names (none when it names none). */
export function changeKeyAt(refs: OperationRefs, member: string, kind: Kind): ChangeKey[] {
  const key = refs[member];
  return key?.startsWith(`${kind}/`) ? [changeKey(kind, key.slice(kind.length + 1))] : [];
}

/** {@link setAt} of a body: a pointer has at least one segment, so the body stays an object. */
function setInBody(body: WriteBody, segments: readonly string[], id: string): WriteBody {
  const [head, ...rest] = segments;
  return head === undefined ? body : { ...body, [head]: setAt(body[head], rest, id) };
}

/** A copy of `value` with `segments` set to `id`; the path must exist. */
function setAt(value: unknown, segments: readonly string[], id: string): unknown {
  const [head, ...rest] = segments;
  if (head === undefined) return id;
  if (Array.isArray(value)) return value.map((item, index) => (String(index) === head ? setAt(item, rest, id) : item));
  if (isRecord(value)) return { ...value, [head]: setAt(value[head], rest, id) };
  return value;
}

/**
 * `spec` with the resource it names at `member.name` (by name) or `member.id` (by id) written as
 * that resource's id at `member.as` (a placeholder and a ref when this run creates it).
 */
export function withIdOf(
  spec: Record<string, unknown>,
  refs: NameRefs,
  kind: Kind,
  member: { name: string; id: string; as: string },
): Record<string, unknown> {
  const { [member.name]: name, [member.id]: id, ...rest } = spec;
  const resolved = typeof name === 'string' ? refs.id(kind, name, pointerTo(member.as)) : id;
  return resolved === undefined ? rest : { ...rest, [member.as]: resolved };
}

/** The refs of kinds whose bodies take ids only at places (every kind but the alert's tile refs). */
export const POINTER_REFS: KindRefs = { changes: pointerChanges, fill: fillPointers };

/**
 * What a differ collects while it writes a body's names as ids: the places that wait for a change
 * of this run, and why a name names nothing.
 */
export class NameRefs {
  readonly refs: Record<string, ChangeKey> = {};
  readonly errors: string[] = [];

  constructor(private readonly refer: (kind: Kind, name: string) => Reference) {}

  /** The id to write at `pointer` for `name` (a `kind`): the live id, or the placeholder of one made in this run (or of nothing: an error). */
  id(kind: Kind, name: string, pointer: string): string {
    const reference = this.refer(kind, name);
    if ('id' in reference) return reference.id;
    if ('after' in reference) this.refs[pointer] = reference.after;
    else this.errors.push(reference.error);
    return KNOWN_AFTER_APPLY;
  }

  /** The place `pointer` takes the same id as `from` (a value written twice in a body). */
  alias(pointer: string, from: string): void {
    const change = this.refs[from];
    if (change !== undefined) this.refs[pointer] = change;
  }

  /** The changes the body waits for. */
  get after(): ChangeKey[] {
    return [...new Set(Object.values(this.refs))].sort();
  }

  /** The refs an operation carries, when there are any. */
  get operationRefs(): { refs?: OperationRefs } {
    return Object.keys(this.refs).length > 0 ? { refs: { ...this.refs } } : {};
  }
}
