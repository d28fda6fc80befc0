/**
 * Scheduling one target's plan: which change runs when. A change runs once every change it
 * requires finished and every lower rank finished (the rank barrier); one that must wait is parked
 * under what it waits for; the changes decided to run are admitted a few per request slot. What a
 * running change does, its writes and their saves, is `write.ts`'s.
 */
import type { Kind } from '../model/kinds.js';
import type { Api } from '../api/port.js';
import { StacksyncError, type ErrorCode } from '../errors.js';
import { isWrite, type Change, type ChangeKey, type ChangeResult } from '../model/plan.js';
import type { StateStore } from '../state/store.js';
import { addToSummary, emptySummary, type ApplyEvent, type SkipReason } from './events.js';
import { buildExecutionGraph, type ExecutionNode } from './order.js';
import type { WaitOptions } from './await-ready.js';
import { Cancelled, ChangeWriter, changeEventBase, describeError } from './write.js';

export interface ApplyDeps {
  api: Api;
  store: StateStore;
  /** The target the changes belong to; changes of other targets are left out. */
  target: string;
  /** The target's request slots: its `concurrency`, what its client's pacer holds requests to. At least 1. */
  requestSlots: number;
  /** Take over same-named live resources stacksync does not manage (`--adopt`, `sync.adopt`). */
  adopt: boolean;
  onEvent?: (event: ApplyEvent) => void;
  /** When it aborts, no new operation starts; in-flight ones finish and the state is saved. */
  signal?: AbortSignal;
  /** Milliseconds since the epoch; default `Date.now`. */
  clock?: () => number;
  /**
   * `sync.settleWindow`, milliseconds: how long after it was sent a create whose answer never came
   * may still land; recorded in its intent, later runs wait that long before creating it again.
   */
  lateCreateWindowMs: number;
  /** Delete and create again where a create-only member changed (`--allow-replace`); default false. */
  allowReplace?: boolean;
  /** How resources that become ready asynchronously are waited for (`apply --wait`); default: only where a later operation needs it. */
  wait?: WaitOptions;
  /** Resolves after `ms`; default a global `setTimeout`. What the polls of those waits wait with. */
  sleep?: (ms: number) => Promise<void>;
}

/** What an apply waits for when the caller says nothing: only what a later operation of a change needs. */
const DEFAULT_WAIT: WaitOptions = { timeoutMs: 0, followLast: false };

/** Per change of the target (`Kind/name`), what happened. Unchanged changes are `ok`. */
export type ApplyResults = Map<ChangeKey, ChangeResult>;

/** Applies the changes of `deps.target`; never throws for a failed change, it reports it. */
export async function applyPlan(changes: readonly Change[], deps: ApplyDeps): Promise<ApplyResults> {
  return new ApplyRun(
    changes.filter((change) => change.target === deps.target),
    deps,
  ).execute();
}

/**
 * Changes running at once (outside a wait) per request slot, the slots the client's pacer holds
 * requests to; the only bound the apply adds. Each running change has at most one request out, so
 * the pacer always holds the next ones ready when a slot frees, and each also waits for its records
 * to be durable (the intent before a create, the result after it: two fsyncs, about as long as a
 * request on loopback), which overlaps the requests of the others instead of idling the slots; each
 * fsync is shared by every change waiting at the time. Bounded, because started all at once a first
 * apply of 10,000 resources held 10,000 suspended changes, each with its queued request (peak RSS
 * 248 MiB, against 222 MiB with a few per slot).
 */
export const CHANGES_PER_REQUEST_SLOT = 4;

class ApplyRun {
  readonly #deps: ApplyDeps;
  readonly #clock: () => number;
  readonly #nodes: ExecutionNode[];
  readonly #cycles: ReadonlySet<ChangeKey>;
  readonly #pending = new Set<ExecutionNode>();
  readonly #results: ApplyResults = new Map();
  readonly #writer: ChangeWriter;
  /** Changes not yet finished, per rank: the rank barrier. */
  readonly #unfinishedByRank = new Map<number, number>();
  /**
   * Pending changes to decide again: each waiting one is parked under what it waits for and comes
   * back only when that finishes, so a finish costs what it unblocks, not a pass over every pending
   * change (which made a first apply of 30,000 resources quadratic).
   */
  readonly #candidates = new Set<ExecutionNode>();
  readonly #waitingOnChange = new Map<ChangeKey, ExecutionNode[]>();
  readonly #waitingOnRank = new Map<number, ExecutionNode[]>();
  /**
   * Changes decided to run and not yet started, oldest first: `#admit` starts them while fewer
   * than `#admitLimit` (`CHANGES_PER_REQUEST_SLOT` per request slot) run outside a wait (a wait
   * holds no place: it sends nothing).
   */
  readonly #ready: ExecutionNode[] = [];
  #readyHead = 0;
  #running = 0;
  readonly #admitLimit: number;
  #summary = emptySummary();
  #allFinished!: () => void;

  constructor(changes: readonly Change[], deps: ApplyDeps) {
    this.#deps = deps;
    this.#clock = deps.clock ?? Date.now;
    const requestSlots = Math.max(1, Math.floor(deps.requestSlots));
    this.#writer = new ChangeWriter({
      api: deps.api,
      store: deps.store,
      target: deps.target,
      ...(deps.signal ? { signal: deps.signal } : {}),
      clock: this.#clock,
      lateCreateWindowMs: deps.lateCreateWindowMs,
      wait: deps.wait ?? DEFAULT_WAIT,
      sleep: deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      emit: (event) => this.#emit(event),
      whileWaiting: (wait) => this.#waiting(wait),
    });
    const graph = buildExecutionGraph(changes);
    this.#nodes = graph.nodes;
    this.#cycles = new Set(graph.cycles);
    for (const node of this.#nodes)
      this.#unfinishedByRank.set(node.rank, (this.#unfinishedByRank.get(node.rank) ?? 0) + 1);
    this.#admitLimit = requestSlots * CHANGES_PER_REQUEST_SLOT;
  }

  async execute(): Promise<ApplyResults> {
    const startedAt = this.#clock();
    const finished = new Promise<void>((resolve) => {
      this.#allFinished = resolve;
    });
    this.#emit({
      type: 'apply-started',
      target: this.#deps.target,
      at: startedAt,
      total: this.#nodes.filter(reportsProgress).length,
    });
    // 1. Finish what does not run: unchanged changes, planning errors, dependency cycles.
    for (const node of this.#nodes) this.#finishWithoutRunning(node);
    // 2. Run changes as their dependencies and lower ranks finish; each finish schedules again.
    const onAbort = (): void => {
      for (const node of this.#pending) this.#candidates.add(node);
      this.#schedule();
    };
    this.#deps.signal?.addEventListener('abort', onAbort, { once: true });
    this.#schedule();
    await finished;
    // A daemon reuses one signal for many runs; leave no listener behind.
    this.#deps.signal?.removeEventListener('abort', onAbort);
    // 3. Every change saved its own writes; this only retries a save that failed along the way.
    await this.#deps.store.save().catch(() => undefined);
    this.#emit({
      type: 'apply-finished',
      target: this.#deps.target,
      at: this.#clock(),
      durationMs: this.#clock() - startedAt,
      summary: this.#summary,
    });
    return this.#results;
  }

  #finishWithoutRunning(node: ExecutionNode): void {
    const { change } = node;
    if (this.#cycles.has(node.key)) {
      this.#fail(
        node,
        this.#clock(),
        new StacksyncError('E_INTERNAL', `${node.key} is in a dependency cycle of the plan`, { subject: node.key }),
      );
    } else if (
      change.action === 'error' ||
      (isWrite(change.action) && change.error !== undefined && change.operations.length === 0)
    ) {
      // A write with nothing to send that still cannot succeed (`Change.error`) fails as planned.
      this.#failPlanned(node);
    } else if (change.action === 'unchanged' && !change.reclaimed) {
      this.#finish(node, { result: 'ok' });
    } else {
      this.#pending.add(node);
      this.#candidates.add(node);
    }
  }

  /** Starts or skips every pending change that can be decided now, until nothing more can. */
  #schedule(): void {
    for (const node of this.#candidates) {
      this.#candidates.delete(node);
      if (!this.#pending.has(node)) continue;
      const decision = this.#decide(node);
      if (decision === 'wait') {
        this.#park(node);
        continue;
      }
      this.#pending.delete(node);
      // Started by `#admit`, a few per request slot; its waits hold no place.
      if (decision === 'run') this.#ready.push(node);
      else if ('refused' in decision)
        this.#fail(node, this.#clock(), new StacksyncError(decision.code, decision.error, { subject: node.key }));
      else this.#skip(node, decision.reason, decision.error, decision.code);
    }
    this.#admit();
    if (this.#pending.size === 0 && this.#results.size === this.#nodes.length) this.#allFinished();
  }

  /** Starts ready changes while there is room among those running outside a wait. */
  #admit(): void {
    while (this.#running < this.#admitLimit && this.#readyHead < this.#ready.length) {
      const node = this.#ready[this.#readyHead++] as ExecutionNode;
      this.#running++;
      void this.#run(node).catch((error: unknown) => this.#crashed(node, error));
    }
    if (this.#readyHead === this.#ready.length) {
      this.#ready.length = 0;
      this.#readyHead = 0;
    }
  }

  /** Waits outside the changes that count against the limit: another starts meanwhile. */
  async #waiting<T>(wait: () => Promise<T>): Promise<T> {
    this.#running--;
    this.#admit();
    try {
      return await wait();
    } finally {
      this.#running++;
    }
  }

  /** Parks a waiting change under every unfinished change it requires, and under its rank while lower ranks run. */
  #park(node: ExecutionNode): void {
    for (const required of node.requires)
      if (!this.#results.has(required)) pushTo(this.#waitingOnChange, required, node);
    if (!this.#lowerRanksFinished(node.rank)) pushTo(this.#waitingOnRank, node.rank, node);
  }

  /** Sends back to be decided what waited on `node`, or on its rank once that rank is done. */
  #wake(node: ExecutionNode): void {
    for (const waiting of this.#waitingOnChange.get(node.key) ?? []) this.#candidates.add(waiting);
    this.#waitingOnChange.delete(node.key);
    if ((this.#unfinishedByRank.get(node.rank) ?? 0) > 0) return;
    for (const [rank, waiting] of this.#waitingOnRank) {
      if (rank <= node.rank) continue;
      for (const each of waiting) this.#candidates.add(each);
      this.#waitingOnRank.delete(rank);
    }
  }

  #decide(
    node: ExecutionNode,
  ):
    | 'wait'
    | 'run'
    | { reason: SkipReason; error: string; code: ErrorCode }
    | { refused: true; error: string; code: ErrorCode } {
    for (const required of node.requires) {
      const result = this.#results.get(required);
      if (result && result.result !== 'ok') {
        // What stopped the blocker stops this one too: a cancellation stays a cancellation.
        const code = result.code === 'E_CANCELLED' ? 'E_CANCELLED' : 'E_DEPENDENCY_FAILED';
        return {
          reason: 'dependency',
          code,
          error: `depends on ${required}, which ${result.result === 'failed' ? 'failed' : 'was skipped'}`,
        };
      }
    }
    if (!node.requires.every((required) => this.#results.has(required)) || !this.#lowerRanksFinished(node.rank))
      return 'wait';
    if (this.#deps.signal?.aborted) return { reason: 'cancelled', code: 'E_CANCELLED', error: 'cancelled' };
    if (node.change.action === 'adopt' && !this.#deps.adopt && !node.change.reclaimed) {
      const name = node.change.liveName ?? node.change.name;
      return {
        reason: 'conflict',
        code: 'E_CONFLICT',
        error: `conflict: a live ${node.change.kind} named "${name}" exists that stacksync does not manage; re-run with --adopt`,
      };
    }
    if (node.change.unresolved !== undefined && node.change.unresolved.length > 0) {
      // Only the write that would send a value this run cannot read is refused; the rest of the target goes ahead (docs/secrets.md).
      return {
        refused: true,
        code: 'E_SECRET_MISSING',
        error: `not applied: it sends ${node.change.unresolved.join('; ')}`,
      };
    }
    if (node.change.action === 'replace' && !this.#deps.allowReplace && !node.change.replaceAllowed) {
      // An error on that resource, not a skip: what the manifest asks cannot be done as things are.
      return {
        refused: true,
        code: 'E_REPLACE_REFUSED',
        error:
          `not replaced: this change deletes the live ${node.change.kind} and creates it again (see the plan's warning); ` +
          `apply --allow-replace, or the annotation stacksync.io/replace: allow, lets it`,
      };
    }
    return 'run';
  }

  #lowerRanksFinished(rank: number): boolean {
    for (const [other, count] of this.#unfinishedByRank) if (other < rank && count > 0) return false;
    return true;
  }

  /** A bug escaped `#run`; fail the change rather than leave the apply waiting for it forever. */
  #crashed(node: ExecutionNode, error: unknown): void {
    if (!this.#results.has(node.key)) this.#fail(node, this.#clock(), error);
    this.#schedule();
  }

  async #run(node: ExecutionNode): Promise<void> {
    try {
      await this.#runStarted(node);
    } finally {
      this.#running--;
    }
    this.#schedule();
  }

  async #runStarted(node: ExecutionNode): Promise<void> {
    if (this.#deps.signal?.aborted) {
      this.#skip(node, 'cancelled', 'cancelled', 'E_CANCELLED');
      return;
    }
    const startedAt = this.#clock();
    this.#emit({ ...this.#base(node), type: 'change-started' });
    try {
      await this.#writer.write(node);
      // Its writes went out, and still the resource stays where its manifest does not want it.
      if (isWrite(node.change.action) && node.change.error !== undefined)
        throw new StacksyncError(node.change.code ?? 'E_INTERNAL', node.change.error, { subject: node.key });
      this.#finish(node, { result: 'ok' });
      this.#emit({ ...this.#base(node), type: 'change-succeeded', durationMs: this.#clock() - startedAt });
    } catch (error) {
      // Stopped between operations: what ran is saved; the rest is simply not applied.
      if (error instanceof Cancelled) this.#skip(node, 'cancelled', error.message, 'E_CANCELLED');
      else this.#fail(node, startedAt, error);
    }
  }

  #fail(node: ExecutionNode, startedAt: number, error: unknown): void {
    const { code, message } = describeError(error);
    this.#finish(node, { result: 'failed', code, error: message });
    this.#emit({
      ...this.#base(node),
      type: 'change-failed',
      durationMs: this.#clock() - startedAt,
      code,
      error: message,
    });
  }

  /** A change the planner could not plan: failed, with the planner's message. */
  #failPlanned(node: ExecutionNode): void {
    const message = node.change.error ?? 'the change could not be planned';
    const code = node.change.code ?? 'E_INTERNAL';
    this.#finish(node, { result: 'failed', code, error: message });
    this.#emit({ ...this.#base(node), type: 'change-failed', durationMs: 0, code, error: message });
  }

  #skip(node: ExecutionNode, reason: SkipReason, error: string, code: ErrorCode): void {
    this.#finish(node, { result: 'skipped', code, error });
    this.#emit({ ...this.#base(node), type: 'change-skipped', reason, error, code });
  }

  #finish(node: ExecutionNode, result: ChangeResult): void {
    this.#results.set(node.key, result);
    this.#unfinishedByRank.set(node.rank, (this.#unfinishedByRank.get(node.rank) ?? 1) - 1);
    this.#summary = addToSummary(this.#summary, node.change, result);
    this.#wake(node);
  }

  #base(node: ExecutionNode): { target: string; key: ChangeKey; kind: Kind; action: Change['action']; at: number } {
    return changeEventBase(this.#deps.target, node, this.#clock());
  }

  #emit(event: ApplyEvent): void {
    try {
      this.#deps.onEvent?.(event);
    } catch {
      // A failing progress or metrics sink must not break an apply half-way.
    }
  }
}

/** Whether a change reports a finish event (unchanged ones do not, unless reclaimed). */
function reportsProgress(node: ExecutionNode): boolean {
  return node.change.action !== 'unchanged' || node.change.reclaimed === true;
}

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
