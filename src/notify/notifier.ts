/**
 * The daemon's notifier: turns finished syncs into provider deliveries and sends them from a
 * bounded queue, off the sync's path. A delivery gets a time limit per attempt and a few retries
 * with backoff (5xx, 429, network errors); when the queue is full the oldest waiting delivery is
 * dropped. Nothing here ever throws into a sync or waits for a receiver: a notification that
 * cannot be delivered is logged and counted, never a failed sync.
 */
import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import type { Counter } from 'prom-client';
import { resolveSecret, type SecretIo } from '../config/secrets.js';
import type { NotifierSettings, NotifyEvent, NotifyProvider } from '../model/config.js';
import { runSecrets } from '../support/redaction.js';
import { jitteredBackoff, type RetryPolicy } from '../api/backoff.js';
import { eventsOf, type NotificationEvent, type NotifyMemory, type SyncNotice } from './events.js';
import { githubStatusBody, slackBody, webhookBody, type GithubState, type Redact } from './payloads.js';

/** `result` label values of `stacksync_notifications_total`. */
export const NOTIFICATION_RESULTS = ['sent', 'failed', 'dropped'] as const;
export type NotificationResult = (typeof NOTIFICATION_RESULTS)[number];

/** The `event` label of GitHub commit statuses, which report a sync rather than one event. */
export const STATUS_EVENT = 'status';

/** Header carrying `sha256=<hex HMAC of the body>` when a webhook has a `secret`. */
export const SIGNATURE_HEADER = 'x-stacksync-signature';

/** Deliveries waiting at most; beyond, the oldest is dropped. Default of {@link NotifierOptions.maxQueue}. */
export const DEFAULT_MAX_QUEUE = 100;

/** Attempts per delivery, and their backoff: a receiver down for a minute is not worth holding the queue for. */
export const NOTIFY_RETRY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 3,
  baseDelayMs: 1_000,
  maxDelayMs: 10_000,
  maxElapsedMs: 60_000,
});

export interface NotifierOptions {
  /** Where secret references are read from (the config's `env`). */
  secretIo: Partial<SecretIo>;
  /** `stacksync_notifications_total`. */
  counter?: Counter<'provider' | 'event' | 'result'>;
  logger?: Logger;
  /** Masks more in what is sent and logged, before the run's secrets are (support/redaction.ts), the notifier's own among them. */
  redact?: Redact;
  /** Default the global `fetch`. */
  fetch?: typeof fetch;
  /** Waits between attempts; default a real timer. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  now?: () => number;
  /** Default {@link DEFAULT_MAX_QUEUE}. */
  maxQueue?: number;
  /** Default {@link NOTIFY_RETRY}. */
  retry?: RetryPolicy;
}

export interface Notifier {
  /** A sync of `target` starts at `revision`: GitHub gets `pending` for a revision not reported yet. */
  syncStarted(target: string, revision: string | undefined): void;
  /** A sync ended: its events (de-duplicated) and GitHub's final status are queued. Returns at once. */
  syncFinished(account: SyncNotice): void;
  /** Resolves once the queue is empty and nothing is in flight, or after `timeoutMs`. */
  flush(timeoutMs: number): Promise<void>;
}

interface Provider {
  settings: NotifierSettings;
  url?: string;
  secret?: string;
  token?: string;
}

interface Delivery {
  provider: NotifyProvider;
  event: NotifyEvent | typeof STATUS_EVENT;
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

/**
 * A notifier for the `notify` entries. Their secret references are read now, so a missing one is
 * an error at start (`E_SECRET_MISSING`), not a notification silently lost later.
 */
export function createNotifier(settings: readonly NotifierSettings[], options: NotifierOptions): Notifier {
  const providers: Provider[] = settings.map((entry) => resolveProvider(entry, options.secretIo));
  // A notifier's URL (as written and as a URL library writes it back, its password and query values), secret
  // and token are credentials even written in the clear (a Slack URL is its key).
  runSecrets.register(
    providers.flatMap((p) =>
      [...urlForms(p.url), p.secret, p.token].filter((value): value is string => value !== undefined),
    ),
  );
  const redact: Redact = (text) => runSecrets.redact(options.redact ? options.redact(text) : text);
  const queue = createQueue({ ...options, redact });
  const memory = new Map<string, NotifyMemory>();
  const statuses = new Map<string, string>();
  const now = options.now ?? Date.now;

  const github = (target: string, revision: string, state: GithubState, description: string): void => {
    // A resync of a revision already reported posts nothing unless the outcome flips.
    const key = `${revision}:${state}`;
    if (state === 'pending' ? statuses.get(target)?.startsWith(`${revision}:`) : statuses.get(target) === key) return;
    statuses.set(target, key);
    for (const provider of providers) {
      if (provider.settings.provider !== 'github' || !wants(provider, target)) continue;
      queue.push(githubDelivery(provider, revision, githubStatusBody(target, state, description, redact)));
    }
  };

  return {
    syncStarted(target, revision) {
      if (revision) github(target, revision, 'pending', `syncing ${revision.slice(0, 12)}`);
    },
    syncFinished(account) {
      const told = eventsOf(account, memory.get(account.target) ?? {});
      memory.set(account.target, told.memory);
      const at = new Date(now()).toISOString();
      for (const event of told.events) {
        for (const provider of providers) {
          if (
            provider.settings.provider === 'github' ||
            !wants(provider, event.target) ||
            !provider.settings.events.includes(event.event)
          )
            continue;
          queue.push(eventDelivery(provider, event, at, redact));
        }
      }
      if (account.revision)
        github(
          account.target,
          account.revision,
          account.ok ? 'success' : 'failure',
          statusDescription(account, told.events),
        );
    },
    flush: (timeoutMs) => queue.flush(timeoutMs),
  };
}

function resolveProvider(settings: NotifierSettings, io: Partial<SecretIo>): Provider {
  const provider: Provider = { settings };
  if (settings.url !== undefined) provider.url = resolveSecret(settings.url, io);
  if (settings.secret !== undefined) provider.secret = resolveSecret(settings.secret, io);
  if (settings.token !== undefined) provider.token = resolveSecret(settings.token, io);
  return provider;
}

/**
 * A webhook or Slack URL is a secret (a Slack URL is its own token): as written, as a URL
 * library writes it back (host lower-cased, characters percent-encoded), and the password and
 * query values it carries, which a message may quote alone.
 */
function urlForms(url: string | undefined): string[] {
  if (url === undefined) return [];
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (parsed === undefined) return [url];
  const parts = [parsed.password, ...parsed.searchParams.values()].flatMap((part) => [part, safeDecode(part)]);
  return [url, parsed.href, ...parts];
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function wants(provider: Provider, target: string): boolean {
  return provider.settings.targets === undefined || provider.settings.targets.includes(target);
}

function eventDelivery(provider: Provider, event: NotificationEvent, at: string, redact: Redact): Delivery {
  const isSlack = provider.settings.provider === 'slack';
  const body = JSON.stringify(isSlack ? slackBody(event, redact) : webhookBody(event, at, redact));
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'stacksync' };
  if (!isSlack) headers['x-stacksync-event'] = event.event;
  if (provider.secret !== undefined)
    headers[SIGNATURE_HEADER] = `sha256=${createHmac('sha256', provider.secret).update(body).digest('hex')}`;
  return {
    provider: provider.settings.provider,
    event: event.event,
    url: provider.url ?? '',
    headers,
    body,
    timeoutMs: provider.settings.timeoutMs,
  };
}

function githubDelivery(provider: Provider, revision: string, body: Record<string, string>): Delivery {
  const api = provider.settings.apiUrl ?? 'https://api.github.com';
  return {
    provider: 'github',
    event: STATUS_EVENT,
    url: `${api}/repos/${provider.settings.repository ?? ''}/statuses/${revision}`,
    headers: githubHeaders(provider.token ?? ''),
    body: JSON.stringify(body),
    timeoutMs: provider.settings.timeoutMs,
  };
}

/** The headers of every GitHub REST API call: commit statuses here, drift pull requests (daemon/drift-branch.ts). */
export function githubHeaders(token: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/vnd.github+json',
    authorization: `Bearer ${token}`,
    'user-agent': 'stacksync',
    'x-github-api-version': '2022-11-28',
  };
}

/** The commit status description: the failure, what was applied, or that all is in sync. */
function statusDescription(account: SyncNotice, events: readonly NotificationEvent[]): string {
  const told = events.find((event) => event.event === 'failed' || event.event === 'applied');
  if (told) return told.summary;
  if (!account.ok) return `sync of ${account.target} failed${account.error ? `: ${account.error}` : ''}`;
  return `${account.target} is in sync`;
}

// ---------------------------------------------------------------- queue

interface Queue {
  push(delivery: Delivery): void;
  flush(timeoutMs: number): Promise<void>;
}

function createQueue(options: NotifierOptions & { redact: Redact }): Queue {
  const waiting: Delivery[] = [];
  const max = options.maxQueue ?? DEFAULT_MAX_QUEUE;
  let running: Promise<void> | undefined;
  const count = (delivery: Delivery, result: NotificationResult): void =>
    options.counter?.inc({ provider: delivery.provider, event: delivery.event, result });

  const run = async (): Promise<void> => {
    for (let next = waiting.shift(); next; next = waiting.shift()) {
      const outcome = await deliver(next, options);
      count(next, outcome.ok ? 'sent' : 'failed');
      if (!outcome.ok)
        options.logger?.warn(
          { provider: next.provider, event: next.event, reason: options.redact(outcome.reason) },
          'notification not delivered',
        );
    }
  };
  const start = (): void => {
    running ??= run()
      .catch((error: unknown) => options.logger?.error({ err: error }, 'notification queue failed'))
      .finally(() => {
        running = undefined;
        if (waiting.length > 0) start();
      });
  };

  return {
    push(delivery) {
      waiting.push(delivery);
      while (waiting.length > max) {
        const dropped = waiting.shift();
        if (dropped) count(dropped, 'dropped');
      }
      start();
    },
    async flush(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (running && Date.now() < deadline) {
        await Promise.race([
          running,
          new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now())).unref()),
        ]);
      }
    },
  };
}

type Outcome = { ok: true } | { ok: false; reason: string };

/** One delivery, with retries for what may pass on a later attempt. */
async function deliver(delivery: Delivery, options: NotifierOptions): Promise<Outcome> {
  const policy = options.retry ?? NOTIFY_RETRY;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref()));
  let outcome: Outcome & { retry?: boolean } = { ok: false, reason: 'not sent' };
  for (let attempt = 1; attempt <= policy.maxAttempts; attempt++) {
    outcome = await attemptOnce(delivery, options.fetch ?? fetch);
    if (outcome.ok || !outcome.retry || attempt === policy.maxAttempts) return outcome;
    await sleep(jitteredBackoff(policy, attempt, options.random ?? Math.random));
  }
  return outcome;
}

async function attemptOnce(delivery: Delivery, send: typeof fetch): Promise<Outcome & { retry?: boolean }> {
  try {
    // No redirect is followed: a 307 or 308 would send the signed payload, and a Slack URL's
    // token in it, wherever the receiver's host says (docs/operations.md#notifications).
    const response = await send(delivery.url, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(delivery.timeoutMs),
    });
    await response.arrayBuffer().catch(() => undefined);
    if (response.ok) return { ok: true };
    if (response.status >= 300 && response.status < 400)
      return {
        ok: false,
        retry: false,
        reason: `the receiver answered ${response.status}, a redirect; stacksync follows none: configure the URL it redirects to`,
      };
    const retry = response.status === 429 || response.status >= 500;
    return { ok: false, retry, reason: `the receiver answered ${response.status}` };
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    const reason =
      name === 'TimeoutError'
        ? `no answer within ${delivery.timeoutMs} ms`
        : `cannot reach the receiver (${error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error)})`;
    return { ok: false, retry: true, reason };
  }
}
