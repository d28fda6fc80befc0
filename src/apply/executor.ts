/**
 * Carries out one target's plan through the `Api` port, and keeps the state file in step:
 * an intent before every create, the inventory after every completed write, saved each time,
 * so a kill at any moment loses at most the operation in flight and never yields a duplicate.
 * Each is one journal record; the saves of writes in flight share one fsync.
 */
import PQueue from 'p-queue';
import type { Kind } from '../model/kinds.js';
import type { LiveBase } from '../model/resources.js';
import { mayStillLand } from '../api/failure.js';
import type { Api } from '../api/port.js';
import { StacksyncError, errorCodeOf, isRefusal, isStacksyncError, type ErrorCode } from '../errors.js';
import { isWrite, operationVerb, type ActionVerb, type Change, type ChangeKey, type ChangeResult, type Operation, type OperationRefs, type WriteBody } from '../model/plan.js';
import { descriptorOf } from '../kinds/index.js';
import { ownedRecord } from '../state/inventory.js';
import type { MarkChanges, StateRecord } from '../model/state.js';
import type { StateStore } from '../state/store.js';
import { addToSummary, emptySummary, type ApiCall, type ApplyEvent, type SkipReason } from './events.js';
import { operationType as operationTypeOf } from '../model/plan.js';
import { buildExecutionGraph, type ExecutionNode } from './order.js';
import { NEEDED_WAIT_MS, PRESENT_GOAL, SettleWatch, type SettleOptions } from './settle.js';

export interface ApplyDeps {
  api: Api;
  store: StateStore;
  /** The target the changes belong to; changes of other targets are left out. */
  target: string;
  /** Changes in flight at once (the client paces requests itself). At least 1. */
  concurrency: number;
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
  settleMs: number;
  /** Delete and create again where a create-only member changed (`--allow-replace`); default false. */
  allowReplace?: boolean;
  /** How resources that settle asynchronously are waited for (`apply --wait`); default: only where a later operation needs it. */
  settle?: SettleOptions;
  /** Resolves after `ms`; default a global `setTimeout`. What the settle polls wait with. */
  sleep?: (ms: number) => Promise<void>;
}

/** What the executor waits when the caller says nothing: only what a later operation of a change needs. */
const DEFAULT_SETTLE: SettleOptions = { timeoutMs: 0, followLast: false };

/** Per change of the target (`Kind/name`), what happened. Unchanged changes are `ok`. */
export type ApplyResults = Map<ChangeKey, ChangeResult>;

/** Applies the changes of `deps.target`; never throws for a failed change, it reports it. */
export async function applyPlan(changes: readonly Change[], deps: ApplyDeps): Promise<ApplyResults> {
  return new ApplyRun(
    changes.filter((change) => change.target === deps.target),
    deps,
  ).execute();
}

/** What an operation changes in the state, once it succeeded. */
type Transition = StateRecord[];

/** Changes started per request slot: enough to keep every slot busy while some wait for theirs. */
const CHANGES_PER_SLOT = 4;

/** Thrown to stop a change between operations after cancellation. */
class Cancelled extends Error {}

class ApplyRun {
  readonly #deps: ApplyDeps;
  readonly #clock: () => number;
  readonly #nodes: ExecutionNode[];
  readonly #cycles: ReadonlySet<ChangeKey>;
  readonly #pending = new Set<ExecutionNode>();
  readonly #results: ApplyResults = new Map();
  /** What each change wrote in this run, for the operations that take ids from it (an alert's dashboard). */
  readonly #written = new Map<ChangeKey, LiveBase>();
  readonly #queue: PQueue;
  /** Changes not yet settled, per rank: the rank barrier. */
  readonly #unsettledByRank = new Map<number, number>();
  /**
   * Pending changes to decide again: each waiting one is parked under what it waits for and comes
   * back only when that settles, so a finish costs what it unblocks, not a pass over every pending
   * change (which made a first apply of 30,000 resources quadratic).
   */
  readonly #candidates = new Set<ExecutionNode>();
  readonly #waitingOnChange = new Map<ChangeKey, ExecutionNode[]>();
  readonly #waitingOnRank = new Map<number, ExecutionNode[]>();
  /**
   * Changes decided to run and not yet started, oldest first: `#admit` starts them while fewer
   * than `#admitLimit` run outside a wait (a wait holds no place, as it holds no request slot).
   * Started all at once, a first apply of 10,000 resources held 10,000 suspended changes, each with
   * its queued request, that a request slot would reach only much later (peak RSS 248 MiB, against
   * 222 MiB with a few per slot).
   */
  readonly #ready: ExecutionNode[] = [];
  #readyHead = 0;
  #running = 0;
  readonly #admitLimit: number;
  #summary = emptySummary();
  #allSettled!: () => void;
  readonly #settleOptions: SettleOptions;
  readonly #watch: SettleWatch;

  constructor(changes: readonly Change[], deps: ApplyDeps) {
    this.#deps = deps;
    this.#clock = deps.clock ?? Date.now;
    this.#settleOptions = deps.settle ?? DEFAULT_SETTLE;
    this.#watch = new SettleWatch({
      api: deps.api,
      clock: this.#clock,
      sleep: deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      options: this.#settleOptions,
      onProgress: (progress) => this.#emit({ type: 'settle-progress', target: deps.target, at: this.#clock(), ...progress }),
    });
    const graph = buildExecutionGraph(changes);
    this.#nodes = graph.nodes;
    this.#cycles = new Set(graph.cycles);
    for (const node of this.#nodes) this.#unsettledByRank.set(node.rank, (this.#unsettledByRank.get(node.rank) ?? 0) + 1);
    const slots = Math.max(1, Math.floor(deps.concurrency));
    this.#queue = new PQueue({ concurrency: slots });
    this.#admitLimit = slots * CHANGES_PER_SLOT;
  }

  async execute(): Promise<ApplyResults> {
    const startedAt = this.#clock();
    const settled = new Promise<void>((resolve) => {
      this.#allSettled = resolve;
    });
    this.#emit({ type: 'apply-started', target: this.#deps.target, at: startedAt, total: this.#nodes.filter(reportsProgress).length });
    // 1. Settle what does not run: unchanged changes, planning errors, dependency cycles.
    for (const node of this.#nodes) this.#settleWithoutRunning(node);
    // 2. Run changes as their dependencies and lower ranks finish; each finish schedules again.
    const onAbort = (): void => {
      for (const node of this.#pending) this.#candidates.add(node);
      this.#schedule();
    };
    this.#deps.signal?.addEventListener('abort', onAbort, { once: true });
    this.#schedule();
    await settled;
    await this.#queue.onIdle();
    // A daemon reuses one signal for many runs; leave no listener behind.
    this.#deps.signal?.removeEventListener('abort', onAbort);
    // 3. Every change saved its own writes; this only retries a save that failed along the way.
    await this.#deps.store.save().catch(() => undefined);
    this.#emit({ type: 'apply-finished', target: this.#deps.target, at: this.#clock(), durationMs: this.#clock() - startedAt, summary: this.#summary });
    return this.#results;
  }

  #settleWithoutRunning(node: ExecutionNode): void {
    const { change } = node;
    if (this.#cycles.has(node.key)) {
      this.#fail(node, this.#clock(), new StacksyncError('E_INTERNAL', `${node.key} is in a dependency cycle of the plan`, { subject: node.key }));
    } else if (change.action === 'error' || (isWrite(change.action) && change.error !== undefined && change.operations.length === 0)) {
      // A write with nothing to send that still cannot succeed (`Change.error`) fails as planned.
      this.#failPlanned(node);
    } else if (change.action === 'unchanged' && !change.reclaimed) {
      this.#settle(node, { result: 'ok' });
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
      // A change runs outside the queue; each of its requests takes a slot, its waits do not.
      if (decision === 'run') this.#ready.push(node);
      else if ('refused' in decision) this.#fail(node, this.#clock(), new StacksyncError(decision.code, decision.error, { subject: node.key }));
      else this.#skip(node, decision.reason, decision.error, decision.code);
    }
    this.#admit();
    if (this.#pending.size === 0 && this.#results.size === this.#nodes.length) this.#allSettled();
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

  /** Parks a waiting change under every unsettled change it requires, and under its rank while lower ranks run. */
  #park(node: ExecutionNode): void {
    for (const required of node.requires) if (!this.#results.has(required)) pushTo(this.#waitingOnChange, required, node);
    if (!this.#lowerRanksSettled(node.rank)) pushTo(this.#waitingOnRank, node.rank, node);
  }

  /** Sends back to be decided what waited on `node`, or on its rank once that rank is done. */
  #wake(node: ExecutionNode): void {
    for (const waiting of this.#waitingOnChange.get(node.key) ?? []) this.#candidates.add(waiting);
    this.#waitingOnChange.delete(node.key);
    if ((this.#unsettledByRank.get(node.rank) ?? 0) > 0) return;
    for (const [rank, waiting] of this.#waitingOnRank) {
      if (rank <= node.rank) continue;
      for (const each of waiting) this.#candidates.add(each);
      this.#waitingOnRank.delete(rank);
    }
  }

  #decide(node: ExecutionNode): 'wait' | 'run' | { reason: SkipReason; error: string; code: ErrorCode } | { refused: true; error: string; code: ErrorCode } {
    for (const required of node.requires) {
      const result = this.#results.get(required);
      if (result && result.result !== 'ok') {
        // What stopped the blocker stops this one too: a cancellation stays a cancellation.
        const code = result.code === 'E_CANCELLED' ? 'E_CANCELLED' : 'E_DEPENDENCY_FAILED';
        return { reason: 'dependency', code, error: `depends on ${required}, which ${result.result === 'failed' ? 'failed' : 'was skipped'}` };
      }
    }
    if (!node.requires.every((required) => this.#results.has(required)) || !this.#lowerRanksSettled(node.rank)) return 'wait';
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
      return { refused: true, code: 'E_SECRET_MISSING', error: `not applied: it sends ${node.change.unresolved.join('; ')}` };
    }
    if (node.change.action === 'replace' && !this.#deps.allowReplace && !node.change.replaceAllowed) {
      // An error on that resource, not a skip: what the manifest asks cannot be done as things are.
      return {
        refused: true,
        code: 'E_REPLACE_REFUSED',
        error: `not replaced: this change deletes the live ${node.change.kind} and creates it again (see the ` +
          `plan's warning); apply --allow-replace, or the annotation stacksync.io/replace: allow, lets it`,
      };
    }
    return 'run';
  }

  #lowerRanksSettled(rank: number): boolean {
    for (const [other, count] of this.#unsettledByRank) if (other < rank && count > 0) return false;
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
    // Its first request waits for a slot like any other; whether it may start is decided then.
    const started = await this.#queue.add(() => !this.#deps.signal?.aborted);
    if (!started) {
      this.#skip(node, 'cancelled', 'cancelled', 'E_CANCELLED');
      return;
    }
    const startedAt = this.#clock();
    this.#emit({ ...this.#base(node), type: 'change-started' });
    try {
      await this.#runChange(node);
      // Its writes went out, and still the resource stays where its manifest does not want it.
      if (isWrite(node.change.action) && node.change.error !== undefined) throw new StacksyncError(node.change.code ?? 'E_INTERNAL', node.change.error, { subject: node.key });
      this.#settle(node, { result: 'ok' });
      this.#emit({ ...this.#base(node), type: 'change-succeeded', durationMs: this.#clock() - startedAt });
    } catch (error) {
      // Stopped between operations: what ran is saved; the rest is simply not applied.
      if (error instanceof Cancelled) this.#skip(node, 'cancelled', error.message, 'E_CANCELLED');
      else this.#fail(node, startedAt, error);
    }
  }

  /**
   * The operations of one change, in order, each followed by its state transition and a save, and
   * by the wait it asks for. After a failure only the operations that restore what earlier ones
   * changed (`always`) run; the first failure is the change's.
   */
  async #runChange(node: ExecutionNode): Promise<void> {
    const { operations } = node;
    if (operations.length === 0) {
      await this.#queue.add(async () => this.#commit(node, this.#stateOnly(node), true));
      return;
    }
    let failure: { error: unknown } | undefined;
    for (const [index, operation] of operations.entries()) {
      if (failure && !operation.always) continue;
      try {
        // Outside the queue, like every wait: it holds no request slot.
        if (operation.awaitPresence !== undefined && !failure) await this.#awaitPresence(node, operation, operation.awaitPresence);
        await this.#queue.add(async () => {
          // Checked when its slot comes: a signal while it queued stops it before anything is sent.
          if (!failure && this.#deps.signal?.aborted && !operation.always) throw new Cancelled(index === 0 ? 'cancelled' : `cancelled after ${index} of ${operations.length} operations`);
          if (operation.marksBefore) await this.#mark(node, operation.marksBefore);
          const transition = await this.#runOperation(node, operation);
          await this.#commit(node, transition, index === operations.length - 1 && !failure, operation.marks);
        });
        await this.#awaitSettled(node, operation, index === operations.length - 1);
      } catch (error) {
        // A cancellation too: what restores the resource (`always`) still runs.
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }

  /** Waits for what the operation asks (`await`), if this run follows it there. */
  async #awaitSettled(node: ExecutionNode, operation: Operation, last: boolean): Promise<void> {
    const goal = operation.await;
    if (goal === undefined) return;
    const needed = !last;
    if (!needed && (!this.#settleOptions.followLast || this.#settleOptions.timeoutMs <= 0)) return;
    const id = operationId(operation) ?? this.#written.get(node.key)?.id;
    if (id === undefined) throw new StacksyncError('E_INTERNAL', `${node.key}: nothing to wait for (no id)`, { subject: node.key });
    const timeoutMs = this.#settleOptions.timeoutMs > 0 ? this.#settleOptions.timeoutMs : NEEDED_WAIT_MS;
    const live = await this.#waiting(() => this.#watch.wait(node.change.kind, id, goal, node.key, timeoutMs));
    this.#written.set(node.key, live);
  }

  /**
   * Waits until the resource an operation acts on exists (`Operation.awaitPresence`), as long as
   * the run waits at all; one that does not wait (the daemon) fails the change for a later run.
   */
  async #awaitPresence(node: ExecutionNode, operation: Operation, why: string): Promise<void> {
    const id = operationId(operation);
    if (id === undefined) throw new StacksyncError('E_INTERNAL', `${node.key}: ${operation.type} names no resource to wait for`, { subject: node.key });
    const { timeoutMs } = this.#settleOptions;
    const later = 'the next run sends it once it is there';
    if (timeoutMs <= 0) throw new StacksyncError('E_WAIT_TIMEOUT', `${why}; not waited for (apply --wait 0, or the daemon, which never holds a sync for it): ${later}`, { subject: node.key });
    try {
      await this.#waiting(() => this.#watch.wait(node.change.kind, id, PRESENT_GOAL, node.key, timeoutMs));
    } catch (error) {
      if (!isStacksyncError(error, 'E_WAIT_TIMEOUT')) throw error;
      throw new StacksyncError('E_WAIT_TIMEOUT', `${why}; it was not there within ${Math.round(timeoutMs / 1000)}s (apply --wait gives it longer): ${later}`, { subject: node.key, cause: error });
    }
  }

  /** Records marks on the change's inventory entry and saves them. */
  async #mark(node: ExecutionNode, marks: MarkChanges): Promise<void> {
    this.#deps.store.record(this.#deps.target, { type: 'marked', kind: node.change.kind, key: node.change.name, marks });
    await this.#deps.store.save();
  }

  /** A change without API writes: taking over a resource, or forgetting one that cannot be deleted. */
  #stateOnly(node: ExecutionNode): Transition {
    const { change } = node;
    if (change.action === 'delete') return [{ type: 'forgotten', kind: change.kind, key: change.name }];
    if (!change.id) throw new StacksyncError('E_INTERNAL', `${node.key} has no operations and no live id to record`, { subject: node.key });
    return [ownedRecord(change.kind, change.name, { ...withName({ id: change.id }, change.liveName), ...(change.reclaimed && recordsCreated(change.kind) ? { created: true as const } : {}) })];
  }

  /**
   * Records a completed write and saves it. After a change's last write, also the secret hashes
   * it sent and the digest of the manifest it applied: only a change applied in full counts.
   */
  async #commit(node: ExecutionNode, transition: Transition, last: boolean, marks?: MarkChanges): Promise<void> {
    const { kind, name, secretHashes, spec } = node.change;
    const records = [...transition];
    if (marks) records.push({ type: 'marked', kind, key: name, marks });
    if (last && node.change.action !== 'delete') {
      if (secretHashes && Object.keys(secretHashes).length > 0) records.push({ type: 'secrets', kind, key: name, hashes: { ...secretHashes } });
      if (spec !== undefined) records.push({ type: 'spec', kind, key: name, spec, ...(node.change.pruneDisabled ? { prune: 'disabled' as const } : {}), ...(node.change.tenant !== undefined ? { tenant: node.change.tenant } : {}) });
      if (node.change.marks) records.push({ type: 'marked', kind, key: name, marks: node.change.marks });
    }
    this.#deps.store.record(this.#deps.target, ...records);
    await this.#deps.store.save();
  }

  async #runOperation(node: ExecutionNode, operation: Operation): Promise<Transition> {
    const { api } = this.#deps;
    const { kind, name } = node.change;
    const verb = operationVerb(operation, kind);
    switch (verb) {
      case 'create': {
        const body = this.#resolveRefs(node, operation);
        const apiName = apiNameOf(body) ?? name;
        return this.#owned(node, await this.#create(node, apiName, () => this.#createOf(node, body), () => this.#find(node, apiName)), true);
      }
      case 'update':
        if ('patch' in operation) return this.#owned(node, await this.#call(node, operation.type, () => api.update(kind, operation.id, operation.patch)));
        return this.#owned(node, await this.#updateOrRecreate(node, 'id' in operation ? operation.id : '', this.#resolveRefs(node, operation)));
      case 'delete':
        await this.#deleteGone(node, operation.type, () => api.remove(kind, 'id' in operation ? operation.id : ''));
        return [{ type: 'forgotten', kind, key: name }];
      default:
        return this.#act(node, verb, operation);
    }
  }

  /**
   * An action on the change's resource (a pipe's `start`, `stop`, `scale`); without an id of its
   * own, on what the change created earlier in this run. An action the API refuses (400) only
   * because its work is done or under way (a start of a pipe the service already resumed by
   * itself) is no failure: the kind's `settle.redundant` tells from the live resource, never from
   * the message.
   */
  async #act(node: ExecutionNode, verb: ActionVerb, operation: Operation): Promise<Transition> {
    const { kind } = node.change;
    const id = operationId(operation) ?? this.#written.get(node.key)?.id;
    if (id === undefined) throw new StacksyncError('E_INTERNAL', `${node.key}: ${operation.type} names no resource`, { subject: node.key });
    const body = 'body' in operation ? operation.body : 'patch' in operation ? operation.patch : {};
    try {
      const live = await this.#call(node, operation.type, () => this.#deps.api.act(kind, verb, id, body));
      return live ? this.#owned(node, live) : [];
    } catch (error) {
      if (!isStacksyncError(error, 'E_API_VALIDATION')) throw error;
      const redundant = descriptorOf(kind).settle?.redundant;
      const current = redundant ? (await this.#call(node, `list${kind}s`, () => this.#deps.api.list(kind))).find((item: LiveBase) => item.id === id) : undefined;
      if (current && redundant?.(verb, current)) return this.#owned(node, current);
      throw error;
    }
  }

  /** Records what a write made as owned (`created` when this run made it), and keeps it for the operations of this run that take ids from it. */
  #owned(node: ExecutionNode, live: LiveBase, created = false): Transition {
    const { kind, name, liveName } = node.change;
    this.#written.set(node.key, live);
    const made = (created || node.change.reclaimed === true) && recordsCreated(kind);
    const entry = { ...withName({ id: live.id }, liveName ?? live.name), ...(made ? { created: true as const } : {}) };
    return [ownedRecord(kind, name, entry)];
  }

  #createOf(node: ExecutionNode, body: WriteBody): Promise<LiveBase> {
    const { kind } = node.change;
    return this.#call(node, operationTypeOf('create', kind), () => this.#deps.api.create(kind, body));
  }

  async #find(node: ExecutionNode, name: string): Promise<LiveBase[]> {
    const { kind } = node.change;
    const list = await this.#call(node, `list${kind}s`, () => this.#deps.api.list(kind));
    return list.filter((item: LiveBase) => item.name === name);
  }

  /**
   * A create, crash-safe: the intent is durable before the request leaves. When the API cannot
   * tell whether the create happened (the transport's `E_API_AMBIGUOUS`: a timeout, a cut, a 5xx
   * after the body was sent), a list by name decides: exactly one → it is ours. Anything else
   * fails the change and keeps the intent, and the create is never sent again in this run: a proxy
   * may still hold the first request and forward it later, and a second create would then leave
   * two. When nobody answered it at all (`mayStillLand`: a timeout, a close without an answer, a
   * gateway's 502/504), the intent also records until when it may land (the settle window): later
   * runs wait for it until then (the plan shows it `waiting`) and take it back if it lands.
   */
  async #create<T extends { id: string }>(node: ExecutionNode, apiName: string, create: () => Promise<T>, find: () => Promise<T[]>): Promise<T> {
    const { kind, name } = node.change;
    const sentAt = this.#clock();
    const intent = { type: 'intent', kind, key: name, name: apiName, at: new Date(sentAt).toISOString() } as const;
    this.#deps.store.record(this.#deps.target, intent);
    await this.#deps.store.save();
    try {
      return await create();
    } catch (error) {
      if (!isStacksyncError(error, 'E_API_AMBIGUOUS')) {
        await this.#dropIntentIfNotCreated(kind, name, error);
        throw error;
      }
      const settleUntil = mayStillLand(error) ? new Date(sentAt + this.#deps.settleMs).toISOString() : undefined;
      if (settleUntil !== undefined) {
        this.#deps.store.record(this.#deps.target, { ...intent, settleUntil });
        // Best effort: without it a later run would not wait for the create before sending it again.
        await this.#deps.store.save().catch(() => undefined);
      }
      return this.#settleAmbiguous(node, apiName, error, find, settleUntil);
    }
  }

  async #settleAmbiguous<T>(node: ExecutionNode, apiName: string, error: StacksyncError, find: () => Promise<T[]>, settleUntil: string | undefined): Promise<T> {
    const { kind } = node.change;
    const pending =
      settleUntil === undefined
        ? 'its intent stays pending, so the next run takes it back once it shows, or creates it if it never does'
        : `its intent stays pending: later runs wait for it until ${settleUntil} and take it back if it lands, and create it after that if it never does`;
    let found: T[];
    try {
      found = await find();
    } catch (lookup) {
      const why = lookup instanceof Error ? lookup.message : String(lookup);
      throw new StacksyncError('E_API_AMBIGUOUS', `${error.message}; looking it up by name failed too (${why}); it was not sent again, and ${pending}`, { subject: node.key, cause: error });
    }
    const [only] = found;
    if (found.length === 1 && only !== undefined) return only;
    if (found.length > 1) {
      const message = `${error.message}; now ${found.length} live ${kind}s are named "${apiName}", so which one this ` +
        `create made cannot be told; delete the extra ones`;
      throw new StacksyncError('E_CONFLICT', message, { subject: node.key, cause: error });
    }
    throw new StacksyncError('E_API_AMBIGUOUS', `${error.message}; no live ${kind} is named "${apiName}" yet; it was not sent again (the first request may still land), and ${pending}`, {
      subject: node.key,
      cause: error,
    });
  }

  async #dropIntentIfNotCreated(kind: Kind, key: string, error: unknown): Promise<void> {
    // Only an outright refusal proves nothing was created; after a timeout the create may have landed.
    if (!(error instanceof StacksyncError) || !isRefusal(error.code)) return;
    this.#deps.store.record(this.#deps.target, { type: 'intent-dropped', kind, key });
    // Best effort: a stale intent only means a same-named resource would be taken back later.
    await this.#deps.store.save().catch(() => undefined);
  }

  /**
   * An update whose target vanished (404) since the plan was made — e.g. the alert on a tile that
   * this run's dashboard update removed, which the service deletes with the tile — is created anew.
   */
  async #updateOrRecreate(node: ExecutionNode, id: string, body: WriteBody): Promise<LiveBase> {
    const { kind } = node.change;
    try {
      return await this.#call(node, operationTypeOf('update', kind), () => this.#deps.api.update(kind, id, body));
    } catch (error) {
      if (!isStacksyncError(error, 'E_API_NOT_FOUND')) throw error;
      const apiName = apiNameOf(body) ?? node.change.name;
      return this.#create(node, apiName, () => this.#createOf(node, body), () => this.#find(node, apiName));
    }
  }

  /** A delete; a 404 means someone (or a dashboard delete) removed it already, which is the goal. */
  async #deleteGone(node: ExecutionNode, call: ApiCall, remove: () => Promise<void>): Promise<void> {
    try {
      await this.#call(node, call, remove);
    } catch (error) {
      if (!isStacksyncError(error, 'E_API_NOT_FOUND')) throw error;
    }
  }

  /** The operation's body with the ids it takes from changes written earlier in this run filled in. */
  #resolveRefs(node: ExecutionNode, operation: Operation): WriteBody {
    const body = 'body' in operation ? operation.body : {};
    const refs: OperationRefs | undefined = 'refs' in operation ? operation.refs : undefined;
    const fill = descriptorOf(node.change.kind).refs?.fill;
    return refs && fill ? fill(body, refs, (key) => this.#written.get(key)) : body;
  }

  /** One API call, reported as an operation with its timing. */
  async #call<T>(node: ExecutionNode, call: ApiCall, send: () => Promise<T>): Promise<T> {
    const startedAt = this.#clock();
    this.#emit({ ...this.#base(node), type: 'operation-started', call });
    try {
      const result = await send();
      this.#emit({ ...this.#base(node), type: 'operation-succeeded', call, durationMs: this.#clock() - startedAt });
      return result;
    } catch (error) {
      const { code, message } = describeError(error);
      this.#emit({ ...this.#base(node), type: 'operation-failed', call, durationMs: this.#clock() - startedAt, code, error: message });
      throw error;
    }
  }

  #fail(node: ExecutionNode, startedAt: number, error: unknown): void {
    const { code, message } = describeError(error);
    this.#settle(node, { result: 'failed', code, error: message });
    this.#emit({ ...this.#base(node), type: 'change-failed', durationMs: this.#clock() - startedAt, code, error: message });
  }

  /** A change the planner could not plan: failed, with the planner's message. */
  #failPlanned(node: ExecutionNode): void {
    const message = node.change.error ?? 'the change could not be planned';
    const code = node.change.code ?? 'E_INTERNAL';
    this.#settle(node, { result: 'failed', code, error: message });
    this.#emit({ ...this.#base(node), type: 'change-failed', durationMs: 0, code, error: message });
  }

  #skip(node: ExecutionNode, reason: SkipReason, error: string, code: ErrorCode): void {
    this.#settle(node, { result: 'skipped', code, error });
    this.#emit({ ...this.#base(node), type: 'change-skipped', reason, error, code });
  }

  #settle(node: ExecutionNode, result: ChangeResult): void {
    this.#results.set(node.key, result);
    this.#unsettledByRank.set(node.rank, (this.#unsettledByRank.get(node.rank) ?? 1) - 1);
    this.#summary = addToSummary(this.#summary, node.change, result);
    this.#wake(node);
  }

  #base(node: ExecutionNode): { target: string; key: ChangeKey; kind: Kind; action: Change['action']; at: number } {
    return { target: this.#deps.target, key: node.key, kind: node.change.kind, action: node.change.action, at: this.#clock() };
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

function describeError(error: unknown): { code: ErrorCode; message: string } {
  return { code: errorCodeOf(error), message: error instanceof Error ? error.message : String(error) };
}

/** Whether the inventory of `kind` records what stacksync created (its prune deletes nothing else). */
function recordsCreated(kind: Kind): boolean {
  return descriptorOf(kind).prune?.createdOnly === true;
}

/** The id an operation names, if it names one. */
function operationId(operation: Operation): string | undefined {
  return 'id' in operation ? operation.id : undefined;
}

/** The API name a body gives the resource it creates, if it names one. */
function apiNameOf(body: WriteBody): string | undefined {
  return typeof body['name'] === 'string' ? body['name'] : undefined;
}

function withName(entry: { id: string }, name: string | undefined): { id: string; name?: string } {
  return name === undefined ? entry : { ...entry, name };
}

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
