/**
 * Carrying out one change's writes through the `Api` port, keeping the state file in step: an
 * intent before every create, the inventory after every completed write, saved each time, so a
 * kill at any moment loses at most the operation in flight and never yields a duplicate. Each is
 * one journal record; the saves of writes in flight share one fsync.
 *
 * It holds no request slot itself: the client's pacer holds every request to the target's
 * slots. Which change runs when, and how many at once, is `schedule.ts`'s business.
 */
import type { Kind } from '../model/kinds.js';
import type { LiveBase } from '../model/resources.js';
import { mayStillLand } from '../api/failure.js';
import type { Api } from '../api/port.js';
import { StacksyncError, errorCodeOf, isRefusal, isStacksyncError, type ErrorCode } from '../errors.js';
import {
  operationVerb,
  type ActionVerb,
  type Change,
  type ChangeKey,
  type Operation,
  type OperationRefs,
  type WriteBody,
} from '../model/plan.js';
import { descriptorOf } from '../kinds/index.js';
import { ownedRecord } from '../state/inventory.js';
import type { MarkChanges, StateRecord } from '../model/state.js';
import type { StateStore } from '../state/store.js';
import type { ApiCall, ApplyEvent } from './events.js';
import { operationType as operationTypeOf } from '../model/plan.js';
import type { ExecutionNode } from './order.js';
import { NEEDED_WAIT_MS, PRESENT_GOAL, ReadyWatch, type WaitOptions } from './await-ready.js';

/** What carrying out writes needs from the run that schedules them. */
export interface WriteDeps {
  api: Api;
  store: StateStore;
  target: string;
  /** When it aborts, no operation not yet sent is sent. */
  signal?: AbortSignal;
  clock: () => number;
  /** The late-create window, ms, recorded in the intent of a create whose answer never came. */
  lateCreateWindowMs: number;
  wait: WaitOptions;
  sleep: (ms: number) => Promise<void>;
  emit: (event: ApplyEvent) => void;
  /** Runs a wait so that it holds no place among the changes the scheduler lets run. */
  whileWaiting: <T>(wait: () => Promise<T>) => Promise<T>;
}

/** Thrown to stop a change between operations after cancellation. */
export class Cancelled extends Error {}

/** What an operation changes in the state, once it succeeded. */
type Transition = StateRecord[];

export class ChangeWriter {
  readonly #deps: WriteDeps;
  /** What each change wrote in this run, for the operations that take ids from it (an alert's dashboard). */
  readonly #written = new Map<ChangeKey, LiveBase>();
  readonly #watch: ReadyWatch;

  constructor(deps: WriteDeps) {
    this.#deps = deps;
    this.#watch = new ReadyWatch({
      api: deps.api,
      clock: deps.clock,
      sleep: deps.sleep,
      options: deps.wait,
      onProgress: (progress) =>
        deps.emit({ type: 'settle-progress', target: deps.target, at: deps.clock(), ...progress }),
    });
  }

  /**
   * The operations of one change, in order, each followed by its state transition and a save, and
   * by the wait it asks for. After a failure only the operations that restore what earlier ones
   * changed (`always`) run; the first failure is the change's, thrown (`Cancelled` when it was
   * stopped between operations).
   */
  async write(node: ExecutionNode): Promise<void> {
    const { operations } = node;
    if (operations.length === 0) {
      await this.#commit(node, this.#stateOnly(node), true);
      return;
    }
    let failure: { error: unknown } | undefined;
    for (const [index, operation] of operations.entries()) {
      if (failure && !operation.always) continue;
      try {
        // A wait holds no place among the changes running.
        if (operation.awaitPresence !== undefined && !failure)
          await this.#awaitPresence(node, operation, operation.awaitPresence);
        // Checked as it goes out: a signal meanwhile stops it before anything is sent or saved.
        if (!failure && this.#deps.signal?.aborted && !operation.always)
          throw new Cancelled(
            index === 0 ? 'cancelled' : `cancelled after ${index} of ${operations.length} operations`,
          );
        if (operation.marksBefore) await this.#mark(node, operation.marksBefore);
        const transition = await this.#runOperation(node, operation);
        await this.#commit(node, transition, index === operations.length - 1 && !failure, operation.marks);
        await this.#awaitReady(node, operation, index === operations.length - 1);
      } catch (error) {
        // A cancellation too: what restores the resource (`always`) still runs.
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }

  /** Waits for what the operation asks (`await`), if this run follows it there. */
  async #awaitReady(node: ExecutionNode, operation: Operation, last: boolean): Promise<void> {
    const goal = operation.await;
    if (goal === undefined) return;
    const needed = !last;
    const { wait } = this.#deps;
    if (!needed && (!wait.followLast || wait.timeoutMs <= 0)) return;
    const id = operationId(operation) ?? this.#written.get(node.key)?.id;
    if (id === undefined)
      throw new StacksyncError('E_INTERNAL', `${node.key}: nothing to wait for (no id)`, { subject: node.key });
    const timeoutMs = wait.timeoutMs > 0 ? wait.timeoutMs : NEEDED_WAIT_MS;
    const live = await this.#deps.whileWaiting(() => this.#watch.wait(node.change.kind, id, goal, node.key, timeoutMs));
    this.#written.set(node.key, live);
  }

  /**
   * Waits until the resource an operation acts on exists (`Operation.awaitPresence`), as long as
   * the run waits at all; one that does not wait (the daemon) fails the change for a later run.
   */
  async #awaitPresence(node: ExecutionNode, operation: Operation, why: string): Promise<void> {
    const id = operationId(operation);
    if (id === undefined)
      throw new StacksyncError('E_INTERNAL', `${node.key}: ${operation.type} names no resource to wait for`, {
        subject: node.key,
      });
    const { timeoutMs } = this.#deps.wait;
    const later = 'the next run sends it once it is there';
    if (timeoutMs <= 0)
      throw new StacksyncError(
        'E_WAIT_TIMEOUT',
        `${why}; not waited for (apply --wait 0, or the daemon, which never holds a sync for it): ${later}`,
        { subject: node.key },
      );
    try {
      await this.#deps.whileWaiting(() => this.#watch.wait(node.change.kind, id, PRESENT_GOAL, node.key, timeoutMs));
    } catch (error) {
      if (!isStacksyncError(error, 'E_WAIT_TIMEOUT')) throw error;
      throw new StacksyncError(
        'E_WAIT_TIMEOUT',
        `${why}; it was not there within ${Math.round(timeoutMs / 1000)}s (apply --wait gives it longer): ${later}`,
        { subject: node.key, cause: error },
      );
    }
  }

  /** Records marks on the change's inventory entry and saves them. */
  async #mark(node: ExecutionNode, marks: MarkChanges): Promise<void> {
    this.#deps.store.add(this.#deps.target, { type: 'marked', kind: node.change.kind, key: node.change.name, marks });
    await this.#deps.store.save();
  }

  /** A change without API writes: taking over a resource, or forgetting one that cannot be deleted. */
  #stateOnly(node: ExecutionNode): Transition {
    const { change } = node;
    if (change.action === 'delete') return [{ type: 'forgotten', kind: change.kind, key: change.name }];
    if (!change.id)
      throw new StacksyncError('E_INTERNAL', `${node.key} has no operations and no live id to record`, {
        subject: node.key,
      });
    return [
      ownedRecord(change.kind, change.name, {
        ...withName({ id: change.id }, change.liveName),
        ...(change.reclaimed && recordsCreated(change.kind) ? { created: true as const } : {}),
      }),
    ];
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
      if (secretHashes && Object.keys(secretHashes).length > 0)
        records.push({ type: 'secrets', kind, key: name, hashes: { ...secretHashes } });
      if (spec !== undefined)
        records.push({
          type: 'spec',
          kind,
          key: name,
          spec,
          ...(node.change.pruneDisabled ? { prune: 'disabled' as const } : {}),
          ...(node.change.tenant !== undefined ? { tenant: node.change.tenant } : {}),
        });
      if (node.change.marks) records.push({ type: 'marked', kind, key: name, marks: node.change.marks });
    }
    this.#deps.store.add(this.#deps.target, ...records);
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
        return this.#owned(
          node,
          await this.#create(
            node,
            apiName,
            () => this.#createOf(node, body),
            () => this.#find(node, apiName),
          ),
          true,
        );
      }
      case 'update':
        if ('patch' in operation)
          return this.#owned(
            node,
            await this.#call(node, operation.type, () => api.update(kind, operation.id, operation.patch)),
          );
        return this.#owned(
          node,
          await this.#updateOrRecreate(node, 'id' in operation ? operation.id : '', this.#resolveRefs(node, operation)),
        );
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
    if (id === undefined)
      throw new StacksyncError('E_INTERNAL', `${node.key}: ${operation.type} names no resource`, { subject: node.key });
    const body = 'body' in operation ? operation.body : 'patch' in operation ? operation.patch : {};
    try {
      const live = await this.#call(node, operation.type, () => this.#deps.api.act(kind, verb, id, body));
      return live ? this.#owned(node, live) : [];
    } catch (error) {
      if (!isStacksyncError(error, 'E_API_VALIDATION')) throw error;
      const redundant = descriptorOf(kind).settle?.redundant;
      const current = redundant
        ? (await this.#call(node, `list${kind}s`, () => this.#deps.api.list(kind))).find(
            (item: LiveBase) => item.id === id,
          )
        : undefined;
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
   * gateway's 502/504), the intent also records until when it may land (the late-create window): later
   * runs wait for it until then (the plan shows it `waiting`) and take it back if it lands.
   */
  async #create<T extends { id: string }>(
    node: ExecutionNode,
    apiName: string,
    create: () => Promise<T>,
    find: () => Promise<T[]>,
  ): Promise<T> {
    const { kind, name } = node.change;
    const sentAt = this.#deps.clock();
    const intent = { type: 'intent', kind, key: name, name: apiName, at: new Date(sentAt).toISOString() } as const;
    this.#deps.store.add(this.#deps.target, intent);
    await this.#deps.store.save();
    try {
      return await create();
    } catch (error) {
      if (!isStacksyncError(error, 'E_API_AMBIGUOUS')) {
        await this.#dropIntentIfNotCreated(kind, name, error);
        throw error;
      }
      const settleUntil = mayStillLand(error)
        ? new Date(sentAt + this.#deps.lateCreateWindowMs).toISOString()
        : undefined;
      if (settleUntil !== undefined) {
        this.#deps.store.add(this.#deps.target, { ...intent, settleUntil });
        // Best effort: without it a later run would not wait for the create before sending it again.
        await this.#deps.store.save().catch(() => undefined);
      }
      return this.#resolveAmbiguous(node, apiName, error, find, settleUntil);
    }
  }

  /** After a create whose answer never came: a list by name tells whether it landed, once; it is never sent again in this run. */
  async #resolveAmbiguous<T>(
    node: ExecutionNode,
    apiName: string,
    error: StacksyncError,
    find: () => Promise<T[]>,
    settleUntil: string | undefined,
  ): Promise<T> {
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
      throw new StacksyncError(
        'E_API_AMBIGUOUS',
        `${error.message}; looking it up by name failed too (${why}); it was not sent again, and ${pending}`,
        { subject: node.key, cause: error },
      );
    }
    const [only] = found;
    if (found.length === 1 && only !== undefined) return only;
    if (found.length > 1) {
      const message =
        `${error.message}; now ${found.length} live ${kind}s are named "${apiName}", ` +
        `so which one this create made cannot be told; delete the extra ones`;
      throw new StacksyncError('E_CONFLICT', message, { subject: node.key, cause: error });
    }
    throw new StacksyncError(
      'E_API_AMBIGUOUS',
      `${error.message}; no live ${kind} is named "${apiName}" yet; it was not sent again (the first request may still land), and ${pending}`,
      {
        subject: node.key,
        cause: error,
      },
    );
  }

  async #dropIntentIfNotCreated(kind: Kind, key: string, error: unknown): Promise<void> {
    // Only an outright refusal proves nothing was created; after a timeout the create may have landed.
    if (!(error instanceof StacksyncError) || !isRefusal(error.code)) return;
    this.#deps.store.add(this.#deps.target, { type: 'intent-dropped', kind, key });
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
      return this.#create(
        node,
        apiName,
        () => this.#createOf(node, body),
        () => this.#find(node, apiName),
      );
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
    const startedAt = this.#deps.clock();
    this.#deps.emit({
      ...changeEventBase(this.#deps.target, node, this.#deps.clock()),
      type: 'operation-started',
      call,
    });
    try {
      const result = await send();
      this.#deps.emit({
        ...changeEventBase(this.#deps.target, node, this.#deps.clock()),
        type: 'operation-succeeded',
        call,
        durationMs: this.#deps.clock() - startedAt,
      });
      return result;
    } catch (error) {
      const { code, message } = describeError(error);
      this.#deps.emit({
        ...changeEventBase(this.#deps.target, node, this.#deps.clock()),
        type: 'operation-failed',
        call,
        durationMs: this.#deps.clock() - startedAt,
        code,
        error: message,
      });
      throw error;
    }
  }
}

/** What every event about one change carries. */
export function changeEventBase(
  target: string,
  node: ExecutionNode,
  at: number,
): { target: string; key: ChangeKey; kind: Kind; action: Change['action']; at: number } {
  return { target, key: node.key, kind: node.change.kind, action: node.change.action, at };
}

export function describeError(error: unknown): { code: ErrorCode; message: string } {
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
