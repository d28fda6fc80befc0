/**
 * The Kubernetes state backend (docs/ownership.md, "Where the state lives"): the state in Secrets
 * of one namespace, the lock a `coordination.k8s.io/v1` Lease, through `@kubernetes/client-node`
 * (loaded only when a config names this backend).
 *
 * - The head Secret `<name>` is the one commit point: lineage, serial, the records made since the
 *   last compaction, and the snapshot (gzip-compressed), inline while it is small. A snapshot
 *   too large for one Secret (the API refuses more than 1 MiB of data) goes into part Secrets
 *   `<name>-<id>-<i>`, written before the head that names them and never changed after, so a
 *   reader never sees half of a write; parts no head names are deleted at the next compaction.
 * - Every write replaces the head with the `resourceVersion` it was read at (the API answers 409
 *   when someone else wrote since), and checks first that the Lease still names this holder:
 *   a holder whose lease was taken or broken can never write.
 * - The lock is the Lease `<name>-lock`: `holderIdentity` is the holding's token, the holder
 *   (pid, host, command) is in an annotation. The holder renews it every third of the lease
 *   duration, and a fifteenth after a renewal that failed (client-go's retry period: one failure
 *   must not cost the lease while the API is back within the deadline); one that could not renew
 *   for two thirds of it counts its holding as lost (`lost` aborts, writes are refused) before
 *   another may take it. A waiter takes a lease that did not change for its whole duration,
 *   measured on the waiter's own clock from its first sight of that version, over all its tries
 *   (clocks of two hosts are never compared), as client-go's leader election does
 *   (docs/daemon.md, "Two replicas, one writer").
 * - The HMAC key is the Secret `<name>-key`, created once (409 AlreadyExists: the first one stays).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { delimiter } from 'node:path';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import * as k8s from '@kubernetes/client-node';
import { StacksyncError } from '../errors.js';
import type { StateFile } from '../model/state.js';
import { RemoteStateStore, type StoreWriter } from './remote-store.js';
import type { StateBackend, StateVersion } from './backend.js';
import type { StateStore, StateStoreOptions } from './store.js';
import { parseJournal, parseStateFile, STATE_VERSION } from './format.js';
import {
  DEFAULT_LEASE_MS,
  DEFAULT_LOCK_TIMEOUT_MS,
  lockedBy,
  newHolder,
  pollLock,
  refusedWrite,
  type LockHolder,
  type StateLock,
  type StateLockOptions,
} from './lock.js';
import { targetOf, type PendingRecord } from './in-memory.js';
import { applyRecord } from './record-effects.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

export interface KubernetesBackendOptions {
  namespace: string;
  /** Names the Secrets and the Lease; a DNS label (the config's rules check it). */
  name: string;
  /** A kubeconfig file; without it: `KUBECONFIG`, else the pod's service account in a pod, else `~/.kube/config`. */
  kubeconfig?: string;
  /** A context of the kubeconfig other than its current one. */
  context?: string;
  /** Where `KUBECONFIG` and `KUBERNETES_SERVICE_HOST` are read; default the process's. */
  env?: Readonly<Record<string, string | undefined>>;
  /** This process's clock, for lease expiry and renewal deadlines; default `Date.now`. */
  now?: () => number;
}

/** The API refuses a Secret whose data exceeds 1 MiB; each Secret stays well below. */
export const SECRET_DATA_LIMIT = 1024 * 1024;
/** Compressed bytes of snapshot per part Secret. */
const PART_BYTES = 768 * 1024;
/** Largest compressed snapshot kept inline in the head; larger ones go to parts. */
const INLINE_SNAPSHOT_BYTES = 512 * 1024;
/** Records (as text) past this make a save compact instead: with an inline snapshot, the head stays below the limit. */
const RECORDS_TEXT_BYTES = 256 * 1024;

const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'stacksync' };
const LABEL_STATE = 'stacksync.io/state';
const LABEL_ROLE = 'stacksync.io/role';
const LABEL_SNAPSHOT = 'stacksync.io/snapshot';
const HOLDER_ANNOTATION = 'stacksync.io/holder';
const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export function openKubernetesBackend(options: KubernetesBackendOptions): StateBackend {
  return new KubernetesBackend(options);
}

/** What the head Secret holds, decoded. */
interface Head {
  resourceVersion: string;
  lineage: string;
  serial: number;
  records: string;
  /** Either the compressed snapshot inline, or the id and number of its parts. */
  snapshot: { inline: Buffer } | { id: string; parts: number };
}

/** A holding of the Lease by this process. */
interface Holding {
  me: LockHolder;
  lost: AbortController;
  /** This process's clock when the last renewal that succeeded was sent. */
  renewedAt: number;
  leaseMs: number;
  timer: NodeJS.Timeout | undefined;
}

class KubernetesBackend implements StateBackend {
  readonly kind = 'kubernetes';
  readonly fenced = true;
  readonly location: string;
  readonly namespace: string;
  readonly name: string;
  readonly #core: k8s.CoreV1Api;
  readonly #coordination: k8s.CoordinationV1Api;
  readonly #now: () => number;
  #holding: Holding | undefined;
  /**
   * The Lease as this process last saw it change (its resourceVersion), on this process's clock.
   * Kept across `lock` calls, as client-go's elector keeps its observed record: a daemon standing
   * by tries once per poll (`timeoutMs: 0`), and a Lease looks expired only to a waiter that saw
   * it unchanged for its whole duration, over many tries.
   */
  #observed: { version: string; at: number } | undefined;

  constructor(options: KubernetesBackendOptions) {
    this.namespace = options.namespace;
    this.name = options.name;
    this.#now = options.now ?? Date.now;
    const config = loadKubeConfig(options);
    const server = config.getCurrentCluster()?.server ?? '(no cluster)';
    this.location = `kubernetes ${server} namespace ${this.namespace}, secret ${this.name}`;
    this.#core = config.makeApiClient(k8s.CoreV1Api);
    this.#coordination = config.makeApiClient(k8s.CoordinationV1Api);
  }

  get leaseName(): string {
    return `${this.name}-lock`;
  }

  get holding(): Holding | undefined {
    return this.#holding;
  }

  async open(options: Pick<StateStoreOptions, 'readOnly' | 'compactOnOpen'> = {}): Promise<StateStore> {
    const store = new RemoteStateStore(new KubernetesStoreWriter(this), options.readOnly === true);
    await store.reload();
    return store;
  }

  /** The head as stored, or `undefined` when there is no state yet. */
  async readHead(): Promise<Head | undefined> {
    const secret = await this.#call(
      'read the state',
      () => this.#core.readNamespacedSecret({ name: this.name, namespace: this.namespace }),
      { missing: true },
    );
    if (!secret) return undefined;
    const data = secret.data ?? {};
    const field = (key: string): Buffer | undefined =>
      data[key] === undefined ? undefined : Buffer.from(data[key], 'base64');
    const lineage = field('lineage')?.toString('utf8');
    const serial = Number(field('serial')?.toString('utf8'));
    const records = field('records');
    const inline = field('snapshot');
    const partsOf = field('snapshot-parts')?.toString('utf8');
    if (
      !lineage ||
      !Number.isInteger(serial) ||
      !records ||
      (!inline && !partsOf) ||
      !secret.metadata?.resourceVersion
    ) {
      throw new StacksyncError(
        'E_STATE_CORRUPT',
        `state ${this.location}: the Secret ${this.name} is not a stacksync state (a member is missing); nothing was changed`,
        { subject: this.location },
      );
    }
    const [id = '', parts = ''] = (partsOf ?? '').split('/');
    return {
      resourceVersion: secret.metadata.resourceVersion,
      lineage,
      serial,
      records: await this.#gunzip(records, 'records'),
      snapshot: inline ? { inline } : { id, parts: Number(parts) },
    };
  }

  /**
   * Snapshot and records as stored. A compaction by another holder may delete the parts a head
   * named between the two reads: then the head is read again.
   */
  async read(): Promise<{ file: StateFile; lastSeq: number; head: Head | undefined; journal: string }> {
    for (let attempt = 1; ; attempt += 1) {
      const head = await this.readHead();
      if (!head) return { file: { version: STATE_VERSION, targets: {} }, lastSeq: 0, head, journal: '' };
      const compressed =
        'inline' in head.snapshot ? head.snapshot.inline : await this.#readParts(head.snapshot.id, head.snapshot.parts);
      if (compressed === undefined) {
        if (attempt < 5) continue;
        throw new StacksyncError(
          'E_STATE_CORRUPT',
          `state ${this.location}: a part of the snapshot its head names is missing`,
          { subject: this.location },
        );
      }
      const file = parseStateFile(this.location, await this.#gunzip(compressed, 'snapshot'));
      const parsed = parseJournal(this.location, head.records);
      for (const entry of parsed.entries) applyRecord(targetOf(file, entry.target), entry.record);
      return { file, lastSeq: parsed.entries[parsed.entries.length - 1]?.seq ?? 0, head, journal: head.records };
    }
  }

  async #readParts(id: string, parts: number): Promise<Buffer | undefined> {
    const chunks: Buffer[] = [];
    for (let index = 0; index < parts; index += 1) {
      const part = await this.#call(
        'read the state',
        () => this.#core.readNamespacedSecret({ name: this.#partName(id, index), namespace: this.namespace }),
        { missing: true },
      );
      const data = part?.data?.['chunk'];
      if (data === undefined) return undefined;
      chunks.push(Buffer.from(data, 'base64'));
    }
    return Buffer.concat(chunks);
  }

  #partName(id: string, index: number): string {
    return `${this.name}-${id}-${index}`;
  }

  /**
   * Writes the head (and, for a large snapshot, its parts first), conditional on the Lease still
   * naming this holder and on the head being unchanged since `base` was read. Returns the new head.
   */
  async write(what: string, base: Head | undefined, next: { records: string; snapshot?: string }): Promise<Head> {
    await this.#checkHolding(what);
    const serial = (base?.serial ?? 0) + 1;
    const lineage = base?.lineage ?? randomUUID();
    const data: Record<string, string> = {
      lineage: b64(lineage),
      serial: b64(String(serial)),
      records: (await gzipAsync(Buffer.from(next.records, 'utf8'))).toString('base64'),
    };
    let snapshot: Head['snapshot'];
    if (next.snapshot === undefined) {
      if (!base)
        throw new StacksyncError('E_INTERNAL', `state ${this.location}: records written before any snapshot`, {
          subject: this.location,
        });
      snapshot = base.snapshot;
    } else {
      const compressed = await gzipAsync(Buffer.from(next.snapshot, 'utf8'));
      // Parts are named by a random id, never by the serial: a holder that lost the lease without
      // knowing yet must not be able to overwrite the parts a newer head names.
      const id = randomBytes(4).toString('hex');
      snapshot =
        compressed.length <= INLINE_SNAPSHOT_BYTES
          ? { inline: compressed }
          : { id, parts: await this.#writeParts(id, compressed) };
    }
    if ('inline' in snapshot) data['snapshot'] = snapshot.inline.toString('base64');
    else data['snapshot-parts'] = b64(`${snapshot.id}/${snapshot.parts}`);
    const body: k8s.V1Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: {
        name: this.name,
        namespace: this.namespace,
        labels: this.#labels('state'),
        ...(base ? { resourceVersion: base.resourceVersion } : {}),
      },
      data,
    };
    const written = await this.#call(
      what,
      () =>
        base
          ? this.#core.replaceNamespacedSecret({ name: this.name, namespace: this.namespace, body })
          : this.#core.createNamespacedSecret({ namespace: this.namespace, body }),
      { conflict: true },
    );
    if (!written) {
      // The parts just written are named by no head: only they go (another head may name others).
      if ('id' in snapshot && snapshot !== base?.snapshot)
        await this.#deleteParts(snapshot.id, snapshot.parts).catch(() => undefined);
      this.#lose('another holder wrote the state since it was read');
      throw refusedWrite(
        this.location,
        what,
        'the state was written by another holder since this one read it (409 Conflict)',
      );
    }
    const head: Head = {
      resourceVersion: written.metadata?.resourceVersion ?? '',
      lineage,
      serial,
      records: next.records,
      snapshot,
    };
    // Parts no head names: the base's, after a compaction, and any a holder that died mid-write left.
    if (next.snapshot !== undefined && ('id' in snapshot || (base && 'id' in base.snapshot)))
      await this.#deleteOldParts('id' in snapshot ? snapshot.id : undefined);
    return head;
  }

  async #writeParts(id: string, compressed: Buffer): Promise<number> {
    const count = Math.ceil(compressed.length / PART_BYTES);
    for (let index = 0; index < count; index += 1) {
      const body: k8s.V1Secret = {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'Opaque',
        metadata: {
          name: this.#partName(id, index),
          namespace: this.namespace,
          labels: { ...this.#labels('part'), [LABEL_SNAPSHOT]: id },
        },
        data: { chunk: compressed.subarray(index * PART_BYTES, (index + 1) * PART_BYTES).toString('base64') },
      };
      await this.#call('write the state', () => this.#core.createNamespacedSecret({ namespace: this.namespace, body }));
    }
    return count;
  }

  async #deleteParts(id: string, parts: number): Promise<void> {
    for (let index = 0; index < parts; index += 1) {
      await this.#call(
        'clean up the state',
        () => this.#core.deleteNamespacedSecret({ name: this.#partName(id, index), namespace: this.namespace }),
        { missing: true },
      );
    }
  }

  /** Parts of snapshots no head names any more (older compactions, or a holder that died while writing). */
  async #deleteOldParts(keep: string | undefined): Promise<void> {
    const list = await this.#call('clean up the state', () =>
      this.#core.listNamespacedSecret({
        namespace: this.namespace,
        labelSelector: `${LABEL_STATE}=${this.name},${LABEL_ROLE}=part`,
      }),
    );
    for (const item of list?.items ?? []) {
      const name = item.metadata?.name;
      if (!name || item.metadata?.labels?.[LABEL_SNAPSHOT] === keep) continue;
      await this.#call(
        'clean up the state',
        () => this.#core.deleteNamespacedSecret({ name, namespace: this.namespace }),
        { missing: true },
      );
    }
  }

  #labels(role: 'state' | 'part' | 'key'): Record<string, string> {
    return { ...MANAGED_BY, [LABEL_STATE]: this.name, [LABEL_ROLE]: role };
  }

  /** Refuses a write of a holder that does not hold the Lease now, by its own clock and by the Lease itself. */
  async #checkHolding(what: string): Promise<void> {
    const holding = this.#holding;
    if (!holding || holding.lost.signal.aborted)
      throw refusedWrite(this.location, what, 'it does not hold the state lock');
    if (this.#now() - holding.renewedAt >= renewDeadline(holding.leaseMs)) {
      this.#lose('the lease was not renewed in time');
      throw refusedWrite(this.location, what, 'its lease was not renewed in time, so another holder may have taken it');
    }
    const lease = await this.#readLease();
    if (lease?.spec?.holderIdentity !== holding.me.token) {
      this.#lose('another holder took the lease');
      throw refusedWrite(
        this.location,
        what,
        'another holder took the state lock since (its lease expired, or `stacksync state unlock` broke it)',
      );
    }
  }

  #lose(why: string): void {
    const holding = this.#holding;
    if (!holding) return;
    this.#holding = undefined;
    clearTimeout(holding.timer);
    holding.lost.abort(new Error(why));
  }

  async #readLease(): Promise<k8s.V1Lease | undefined> {
    return this.#call(
      'read the lease',
      () => this.#coordination.readNamespacedLease({ name: this.leaseName, namespace: this.namespace }),
      { missing: true },
    );
  }

  async lock(options: StateLockOptions): Promise<StateLock> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
    const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    const now = options.now ?? this.#now;
    const me = newHolder(options);
    return pollLock<StateLock>(
      options,
      async () => {
        const lease = await this.#readLease();
        const spec = lease?.spec;
        if (lease && spec?.holderIdentity) {
          const version = lease.metadata?.resourceVersion ?? '';
          if (this.#observed?.version !== version) this.#observed = { version, at: now() };
          const durationMs = (spec.leaseDurationSeconds ?? 0) * 1000;
          if (now() - this.#observed.at < durationMs) return { holder: holderOf(lease) ?? 'unreadable' };
        }
        // Free, released, broken or expired: take it, unless another process wrote it first.
        const taken = await this.#takeLease(lease, me, leaseMs, now());
        return taken ? { taken: this.#held(me, leaseMs, now) } : { retry: true };
      },
      (holder, why) => this.#locked(holder === 'unreadable' ? undefined : holder, timeoutMs, why),
    );
  }

  /** Creates or replaces the Lease naming `me`; false when another process changed it first (409). */
  async #takeLease(lease: k8s.V1Lease | undefined, me: LockHolder, leaseMs: number, at: number): Promise<boolean> {
    const time = new k8s.V1MicroTime(at);
    const spec: k8s.V1LeaseSpec = {
      holderIdentity: me.token,
      leaseDurationSeconds: Math.max(1, Math.ceil(leaseMs / 1000)),
      acquireTime: time,
      renewTime: time,
      leaseTransitions: lease
        ? (lease.spec?.leaseTransitions ?? 0) + (lease.spec?.holderIdentity === me.token ? 0 : 1)
        : 0,
    };
    const metadata: k8s.V1ObjectMeta = {
      name: this.leaseName,
      namespace: this.namespace,
      labels: this.#labels('state'),
      annotations: { [HOLDER_ANNOTATION]: JSON.stringify(me) },
      ...(lease ? { resourceVersion: lease.metadata?.resourceVersion ?? '' } : {}),
    };
    const body: k8s.V1Lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata, spec };
    const written = await this.#call(
      'take the lease',
      () =>
        lease
          ? this.#coordination.replaceNamespacedLease({ name: this.leaseName, namespace: this.namespace, body })
          : this.#coordination.createNamespacedLease({ namespace: this.namespace, body }),
      { conflict: true },
    );
    return written !== undefined;
  }

  #held(me: LockHolder, leaseMs: number, now: () => number): StateLock {
    this.#lose('a new holding replaced it');
    const holding: Holding = { me, lost: new AbortController(), renewedAt: now(), leaseMs, timer: undefined };
    this.#holding = holding;
    const schedule = (renewed: boolean): void => {
      const delayMs = Math.max(1, Math.floor(leaseMs / (renewed ? RENEW_SHARE : RETRY_SHARE)));
      holding.timer = setTimeout(
        () =>
          void this.#renew(holding, now).then(
            (ok) => !holding.lost.signal.aborted && this.#holding === holding && schedule(ok),
          ),
        delayMs,
      );
      holding.timer.unref();
    };
    schedule(true);
    let released = false;
    return {
      holder: me,
      lost: holding.lost.signal,
      release: async () => {
        if (released) return;
        released = true;
        const mine = this.#holding === holding;
        this.#lose('released');
        if (mine) await this.#releaseLease(me.token);
      },
      releaseSync: () => {
        // Exiting at once: the lease expires after its duration; the next holder waits that long.
        released = true;
        this.#lose('released');
      },
    };
  }

  /** One renewal, true when it went through: the lease must still name this holding; a failure is tried again soon, until the deadline. */
  async #renew(holding: Holding, now: () => number): Promise<boolean> {
    const started = now();
    if (started - holding.renewedAt >= renewDeadline(holding.leaseMs)) {
      this.#lose('the lease was not renewed in time');
      return false;
    }
    try {
      const lease = await this.#readLease();
      if (this.#holding !== holding) return false;
      if (!lease || lease.spec?.holderIdentity !== holding.me.token) {
        this.#lose('another holder took the lease');
        return false;
      }
      const body: k8s.V1Lease = { ...lease, spec: { ...lease.spec, renewTime: new k8s.V1MicroTime(started) } };
      const written = await this.#call(
        'renew the lease',
        () => this.#coordination.replaceNamespacedLease({ name: this.leaseName, namespace: this.namespace, body }),
        { conflict: true },
      );
      if (!written || this.#holding !== holding) return false;
      holding.renewedAt = started;
      return true;
    } catch {
      // Unreachable API: tried again soon; the deadline above decides when it is lost.
      return false;
    }
  }

  /** Empties the Lease of `token`'s holding (client-go's release), so the next holder need not wait for it to expire. */
  async #releaseLease(token: string): Promise<LockHolder | undefined> {
    const lease = await this.#readLease();
    if (!lease || lease.spec?.holderIdentity !== token) return undefined;
    const holder = holderOf(lease);
    const annotations = { ...lease.metadata?.annotations };
    delete annotations[HOLDER_ANNOTATION];
    const body: k8s.V1Lease = {
      ...lease,
      metadata: { ...lease.metadata, annotations },
      spec: { ...lease.spec, holderIdentity: undefined },
    };
    const written = await this.#call(
      'release the lease',
      () => this.#coordination.replaceNamespacedLease({ name: this.leaseName, namespace: this.namespace, body }),
      { conflict: true },
    );
    return written ? (holder ?? undefined) : undefined;
  }

  async holder(): Promise<LockHolder | undefined> {
    const lease = await this.#readLease();
    return lease?.spec?.holderIdentity ? holderOf(lease) : undefined;
  }

  async unlock(token: string): Promise<LockHolder | undefined> {
    // The broken holder's next write finds another identity in the Lease and is refused.
    return this.#releaseLease(token);
  }

  async hmacKey(create?: Buffer): Promise<Buffer | undefined> {
    const name = `${this.name}-key`;
    if (create) {
      const body: k8s.V1Secret = {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'Opaque',
        metadata: { name, namespace: this.namespace, labels: this.#labels('key') },
        data: { key: create.toString('base64') },
      };
      // 409 AlreadyExists: another process stored one first, and that one is the key.
      await this.#call(
        'store the HMAC key',
        () => this.#core.createNamespacedSecret({ namespace: this.namespace, body }),
        { conflict: true },
      );
    }
    const secret = await this.#call(
      'read the HMAC key',
      () => this.#core.readNamespacedSecret({ name, namespace: this.namespace }),
      { missing: true },
    );
    const key = secret?.data?.['key'];
    return key === undefined ? undefined : Buffer.from(key, 'base64');
  }

  async version(): Promise<StateVersion> {
    const head = await this.readHead();
    return { lineage: head?.lineage, serial: head?.serial ?? 0 };
  }

  async close(): Promise<void> {
    const holding = this.#holding;
    if (holding) clearTimeout(holding.timer);
  }

  async #gunzip(data: Buffer, what: string): Promise<string> {
    try {
      return (await gunzipAsync(data)).toString('utf8');
    } catch (error) {
      throw new StacksyncError(
        'E_STATE_CORRUPT',
        `state ${this.location}: its ${what} is not gzip data (${(error as Error).message})`,
        { subject: this.location, cause: error },
      );
    }
  }

  /**
   * One API call; `missing` turns 404 into `undefined`, `conflict` turns 409 (a stale
   * resourceVersion, or AlreadyExists) into `undefined`; anything else is an error in words
   * that names the status and the API's own reason, never a token.
   */
  async #call<T>(
    what: string,
    body: () => Promise<T>,
    allow: { missing?: boolean; conflict?: boolean } = {},
  ): Promise<T | undefined> {
    try {
      return await body();
    } catch (error) {
      const status = error instanceof k8s.ApiException ? (error.code as number) : undefined;
      if (status === 404 && allow.missing) return undefined;
      if (status === 409 && allow.conflict) return undefined;
      throw this.#error(error, what, status);
    }
  }

  #error(error: unknown, what: string, status: number | undefined): StacksyncError {
    if (error instanceof StacksyncError) return error;
    const reading = what.startsWith('read');
    const code = reading ? 'E_STATE_CORRUPT' : 'E_STATE_WRITE';
    let why: string;
    if (status === undefined)
      why = `the API server could not be reached (${(error as { code?: string }).code ?? (error as Error).message})`;
    else if (status === 401) why = 'the API server refused the credentials (401)';
    else if (status === 403)
      why = `forbidden (403): the account needs get, list, create, update and delete on secrets and leases in namespace ${this.namespace} (docs/ownership.md)`;
    else if (status === 404) why = `not found (404): does namespace ${this.namespace} exist?`;
    else why = `the API answered ${status}${statusMessage(error)}`;
    return new StacksyncError(code, `state ${this.location}: could not ${what}: ${why}`, {
      subject: this.location,
      cause: error,
    });
  }

  #locked(holder: LockHolder | undefined, timeoutMs: number, why?: string): StacksyncError {
    return lockedBy(
      this.location,
      holder ?? `a holder of the Lease ${this.leaseName} that is not stacksync's`,
      timeoutMs,
      why,
      'a lease its holder no longer renews expires by itself, and `stacksync state unlock <lock id>` breaks it at once',
    );
  }
}

/** A holder renews its lease every this share of the lease duration… */
const RENEW_SHARE = 3;
/** …and, after a renewal that failed, tries again after this share of it. */
const RETRY_SHARE = 15;

/** A holder that could not renew for this long stops writing: a third of the lease is left before another may take it. */
function renewDeadline(leaseMs: number): number {
  return Math.floor((leaseMs * 2) / 3);
}

function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

/** The holder the Lease's annotation names, when it is stacksync's and agrees with `holderIdentity`. */
function holderOf(lease: k8s.V1Lease): LockHolder | undefined {
  try {
    const holder = JSON.parse(lease.metadata?.annotations?.[HOLDER_ANNOTATION] ?? '') as Partial<LockHolder>;
    if (
      holder.token !== lease.spec?.holderIdentity ||
      typeof holder.command !== 'string' ||
      typeof holder.host !== 'string' ||
      typeof holder.since !== 'string' ||
      !Number.isInteger(holder.pid)
    )
      return undefined;
    return {
      pid: holder.pid as number,
      host: holder.host,
      command: holder.command,
      since: holder.since,
      token: holder.token as string,
    };
  } catch {
    return undefined;
  }
}

/** The `message` of the API's `Status` answer, when it sent one. */
function statusMessage(error: unknown): string {
  const body = (error as { body?: unknown }).body;
  let parsed: unknown = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      return '';
    }
  }
  const message = (parsed as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? `: ${message.slice(0, 300)}` : '';
}

/**
 * The kubeconfig: the file the config names; else `KUBECONFIG`; else, in a pod, its service
 * account; else `~/.kube/config`. Its contents never reach a message (they hold tokens and keys).
 */
function loadKubeConfig(options: KubernetesBackendOptions): k8s.KubeConfig {
  const env = options.env ?? process.env;
  const config = new k8s.KubeConfig();
  const listed = (env['KUBECONFIG'] ?? '').split(delimiter).filter((file) => file !== '');
  const where = options.kubeconfig ?? (listed.length > 0 ? listed.join(delimiter) : undefined);
  try {
    if (options.kubeconfig) config.loadFromFile(options.kubeconfig);
    else if (listed.length > 0) {
      // As kubectl: the files KUBECONFIG lists, merged, the first one's current context winning.
      listed.forEach((file, index) => {
        if (index === 0) {
          config.loadFromFile(file);
          return;
        }
        const more = new k8s.KubeConfig();
        more.loadFromFile(file);
        config.mergeConfig(more, true);
      });
    } else if (env['KUBERNETES_SERVICE_HOST'] && existsSync(SERVICE_ACCOUNT_TOKEN)) config.loadFromCluster();
    else config.loadFromDefault();
  } catch (error) {
    const errno = (error as { code?: unknown }).code;
    const why = typeof errno === 'string' ? errno : 'it is not a kubeconfig stacksync can read';
    throw new StacksyncError(
      'E_CONFIG_INVALID',
      `state: the kubeconfig${where ? ` ${where}` : ''} could not be loaded (${why})`,
      { subject: where ?? 'kubeconfig' },
    );
  }
  if (options.context !== undefined) {
    if (!config.getContextObject(options.context)) {
      throw new StacksyncError(
        'E_CONFIG_INVALID',
        `state.context: the kubeconfig${where ? ` ${where}` : ''} has no context ${options.context}`,
        { subject: where ?? 'kubeconfig' },
      );
    }
    config.setCurrentContext(options.context);
  }
  if (!config.getCurrentCluster()) {
    throw new StacksyncError(
      'E_CONFIG_INVALID',
      `state: the kubeconfig${where ? ` ${where}` : ''} names no cluster for its current context`,
      { subject: where ?? 'kubeconfig' },
    );
  }
  return config;
}

/**
 * How the store writes through the head Secret: records go into the head's records (or, once they
 * grew past what one Secret should hold, the store writes the whole snapshot instead); a
 * compaction writes the snapshot and empties the records.
 */
class KubernetesStoreWriter implements StoreWriter {
  /** The head as this store last read or wrote it: the base of its next conditional write. */
  #head: Head | undefined;
  /** The records the head holds, as text. */
  #journal = '';

  constructor(private readonly backend: KubernetesBackend) {}

  get location(): string {
    return this.backend.location;
  }

  async append(batch: readonly PendingRecord[]): Promise<boolean> {
    const journal = this.#journal + batch.map((line) => line.text).join('');
    if (!this.#head || Buffer.byteLength(journal) > RECORDS_TEXT_BYTES) return false;
    this.#head = await this.backend.write('save records', this.#head, { records: journal });
    this.#journal = journal;
    return true;
  }

  async replace(text: string): Promise<void> {
    this.#head = await this.backend.write('compact', this.#head, { records: '', snapshot: text });
    this.#journal = '';
  }

  /** Nothing since the last compaction means no write (the daemon compacts after every sync). */
  holdsRecords(): boolean {
    return this.#journal !== '';
  }

  async read(): Promise<{ file: StateFile; lastSeq: number }> {
    const read = await this.backend.read();
    this.#head = read.head;
    this.#journal = read.journal;
    return read;
  }

  holdsLock(): boolean {
    return this.backend.holding !== undefined;
  }
}
