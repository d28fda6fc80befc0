/**
 * The execution graph of one target's changes (pure). Two kinds of edges:
 * - `requires`: hard dependencies (`requiredChanges`); a change runs only when these succeeded,
 *   otherwise it is skipped.
 * - ranks: the kind-order table of `model/kinds.ts` (deletes reversed) — a change waits until
 *   every change of a lower rank has finished, whatever its outcome.
 */
import { kindRank } from '../kinds/index.js';
import { StacksyncError } from '../errors.js';
import { changeKey, type Change, type ChangeKey, type Operation, type OperationStep } from '../model/plan.js';
import { requiredChanges } from '../diff/graph.js';

/** Order of the operations of one change: pause, remove mappings, the rest, add mappings, resume. */
export const STEP_RANKS: Readonly<Record<OperationStep | 'none', number>> = {
  pause: 0,
  'remove-mappings': 1,
  none: 2,
  'add-mappings': 3,
  resume: 4,
};

export interface ExecutionNode {
  key: ChangeKey;
  change: Change;
  /** Effective rank: the table's rank, raised to that of any change it requires. */
  rank: number;
  /** Changes of this plan that must succeed first. */
  requires: ChangeKey[];
  /** The change's operations in execution order. */
  operations: Operation[];
}

export interface ExecutionGraph {
  /** Every change, in an order that respects ranks and requires (ties keep plan order). */
  nodes: ExecutionNode[];
  /** Changes in a dependency cycle: they cannot run (a planner bug), and the changes requiring them are skipped. */
  cycles: ChangeKey[];
}

function rankOf(change: Pick<Change, 'kind' | 'action'>): number {
  return kindRank(change.kind, change.action === 'delete');
}

/** Stable sort of one change's operations by step. */
export function orderOperations(operations: readonly Operation[]): Operation[] {
  const rank = (operation: Operation): number => STEP_RANKS[('step' in operation && operation.step) || 'none'];
  return operations
    .map((operation, index) => ({ operation, index }))
    .sort((a, b) => rank(a.operation) - rank(b.operation) || a.index - b.index)
    .map(({ operation }) => operation);
}

/** Builds the graph of one target's changes; throws `E_INTERNAL` on two changes with one key. */
export function buildExecutionGraph(changes: readonly Change[]): ExecutionGraph {
  const byKey = indexChanges(changes);
  const requires = new Map<ChangeKey, ChangeKey[]>();
  for (const [key, change] of byKey) requires.set(key, requiredKeys(change, key, byKey));
  const { order, left } = topologicalOrder([...byKey.keys()], requires);
  const ranks = effectiveRanks(order, byKey, requires);
  const nodes = order
    .map((key, index) => ({ key, index, rank: ranks.get(key) ?? 0 }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({ key, rank }) => toNode(byKey.get(key)!, key, rank, requires.get(key) ?? []));
  // Changes left over are in a cycle or require one; the latter are skipped like any dependent.
  const stuck = left.map((key) => toNode(byKey.get(key)!, key, rankOf(byKey.get(key)!), requires.get(key) ?? []));
  return { nodes: [...nodes, ...stuck], cycles: left.filter((key) => reaches(key, key, requires)) };
}

function toNode(change: Change, key: ChangeKey, rank: number, required: ChangeKey[]): ExecutionNode {
  return { key, change, rank, requires: required, operations: orderOperations(change.operations) };
}

function indexChanges(changes: readonly Change[]): Map<ChangeKey, Change> {
  const byKey = new Map<ChangeKey, Change>();
  for (const change of changes) {
    const key = changeKey(change.kind, change.name);
    if (byKey.has(key))
      throw new StacksyncError('E_INTERNAL', `the plan holds two changes for ${key}`, { subject: key });
    byKey.set(key, change);
  }
  return byKey;
}

/** What a change waits for, less itself and keys outside the plan. */
function requiredKeys(change: Change, self: ChangeKey, byKey: ReadonlyMap<ChangeKey, Change>): ChangeKey[] {
  return requiredChanges(change).filter((key) => key !== self && byKey.has(key));
}

/** Kahn's algorithm over `requires`, keeping plan order among ready keys; what is left is cyclic. */
function topologicalOrder(
  keys: ChangeKey[],
  requires: ReadonlyMap<ChangeKey, ChangeKey[]>,
): { order: ChangeKey[]; left: ChangeKey[] } {
  const done = new Set<ChangeKey>();
  const order: ChangeKey[] = [];
  let progressed = true;
  while (progressed) {
    progressed = false;
    for (const key of keys) {
      if (done.has(key) || !(requires.get(key) ?? []).every((required) => done.has(required))) continue;
      done.add(key);
      order.push(key);
      progressed = true;
    }
  }
  return { order, left: keys.filter((key) => !done.has(key)) };
}

/** Whether `to` can be reached from `from` by following `requires` (depth first). */
function reaches(from: ChangeKey, to: ChangeKey, requires: ReadonlyMap<ChangeKey, ChangeKey[]>): boolean {
  const seen = new Set<ChangeKey>();
  const stack = [...(requires.get(from) ?? [])];
  while (stack.length > 0) {
    const key = stack.pop()!;
    if (key === to) return true;
    if (seen.has(key)) continue;
    seen.add(key);
    stack.push(...(requires.get(key) ?? []));
  }
  return false;
}

/**
 * A change requiring one of a higher rank takes that rank, so the rank barrier can never wait on
 * a change that itself waits on the barrier.
 */
function effectiveRanks(
  order: ChangeKey[],
  byKey: ReadonlyMap<ChangeKey, Change>,
  requires: ReadonlyMap<ChangeKey, ChangeKey[]>,
): Map<ChangeKey, number> {
  const ranks = new Map<ChangeKey, number>();
  for (const key of order) {
    const own = rankOf(byKey.get(key)!);
    ranks.set(key, Math.max(own, ...(requires.get(key) ?? []).map((required) => ranks.get(required) ?? 0)));
  }
  return ranks;
}
