/**
 * Webhooks of the current profile (hyperdx `routers/external-api/v2/webhooks.ts`,
 * `controllers/webhook.ts`, `utils/zod.ts`, `utils/validators.ts`), pure over one workspace.
 * There is no GET by id: a webhook is read from the paged list (sorted by id, so pages are
 * stable). `headers` and `queryParams` are write-only: stored as fingerprints, never answered; a
 * PUT that leaves them out keeps them, `{}` clears them, and a PUT that changes the url or the
 * service clears what it does not send again (a secret never follows a webhook to a new
 * destination). (service, name) is unique in a workspace (400). A delete is refused (409) while an
 * alert's `channel` names the webhook.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import {
  CURRENT_SLACK_UNSUPPORTED_MEMBERS,
  CURRENT_WEBHOOK_LIMITS,
  CurrentWebhookEntry,
  CurrentWebhookWrite,
  type CurrentWebhookEntry as WebhookEntry,
  type CurrentWebhookWrite as WebhookWrite,
} from '../../kinds/webhook/wire.js';
import type { SchemaIssue } from '../../schema/validate.js';
import { ApiError } from '../errors.js';
import { isoTimestamp, newObjectId } from '../ids.js';
import { idOf, timesOf } from './seeded.js';
import type { CurrentWorkspace, StackSecrets } from '../model.js';
import type { Fingerprint } from '../pipes.js';
import { cleaned, inSchemaOrder, issueAt, jsonNotFound, refused, throwIfAny } from './validate.js';
import { BOTH, type StackKind } from './stack-kind.js';

declare module '../model.js' {
  interface CurrentCollections {
    webhooks: WebhookEntry[];
  }
  interface CurrentCollectionsData {
    webhooks: WebhookEntry[];
  }
}

const L = CURRENT_WEBHOOK_LIMITS;
const DUPLICATE = 'A webhook with this service and name already exists';
const CONTROL_CHARACTERS = /[\r\n\t\x00-\x1F\x7F]/;
const HEADER_NAME = /^[!#$%&'*+\-.0-9A-Z^_`a-z|~]+$/;
const WRITE_ONLY = ['headers', 'queryParams'] as const;
type WriteOnly = (typeof WRITE_ONLY)[number];

// ---------------------------------------------------------------- reading a request

/** The body, with the name trimmed; the maps' keys and values and the slack restrictions checked with the service's messages. */
function readWrite(body: unknown): WebhookWrite {
  const write = cleaned<WebhookWrite>(CurrentWebhookWrite, body);
  write.name = write.name.trim();
  const issues: SchemaIssue[] = [];
  if (write.name.length < 1 || write.name.length > L.nameMaxLength)
    issues.push(issueAt(['name'], `must be 1 to ${L.nameMaxLength} characters`));
  if (!parsesAsUrl(write.url)) issues.push(issueAt(['url'], 'Invalid url'));
  issues.push(...headerIssues(write.headers ?? {}), ...queryParamIssues(write.queryParams ?? {}));
  if (write.service === 'slack') {
    for (const member of CURRENT_SLACK_UNSUPPORTED_MEMBERS) {
      if (write[member] !== undefined)
        issues.push(issueAt([member], `${member} is not supported for the slack webhook service`));
    }
  }
  throwIfAny(issues);
  return write;
}

function parsesAsUrl(text: string): boolean {
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}

/** Values of a name-value map must be text, as the service's `z.record(…, z.string())` wants them. */
function valueTypeIssues(member: WriteOnly, map: Record<string, unknown>): SchemaIssue[] {
  return Object.entries(map).flatMap(([name, value]) =>
    typeof value === 'string'
      ? []
      : [issueAt([member, name], `Expected string, received ${value === null ? 'null' : typeof value}`)],
  );
}

function headerIssues(headers: Record<string, string>): SchemaIssue[] {
  const issues = [...valueTypeIssues('headers', headers), ...mapCountIssue('headers', headers, L.maxHeaders)];
  for (const [name, value] of Object.entries(headers)) {
    const at = ['headers', name];
    if (name.length === 0) issues.push(issueAt(at, 'Header name cannot be empty'));
    else if (name.length > L.headerNameMaxLength)
      issues.push(issueAt(at, `Header name must be at most ${L.headerNameMaxLength} characters`));
    else if (!HEADER_NAME.test(name))
      issues.push(issueAt(at, "Invalid header name. Only alphanumeric characters and !#$%&'*+-.^_`|~ are allowed"));
    else if (/^\d/.test(name)) issues.push(issueAt(at, 'Header name cannot start with a number'));
    if (typeof value !== 'string') continue;
    if (value.length > L.headerValueMaxLength)
      issues.push(issueAt(at, `Header values must be at most ${L.headerValueMaxLength} characters`));
    else if (CONTROL_CHARACTERS.test(value))
      issues.push(issueAt(at, 'Header values cannot contain control characters'));
  }
  return issues;
}

function queryParamIssues(params: Record<string, string>): SchemaIssue[] {
  const issues = [...valueTypeIssues('queryParams', params), ...mapCountIssue('queryParams', params, L.maxQueryParams)];
  for (const [key, value] of Object.entries(params)) {
    const at = ['queryParams', key];
    if (key.length === 0) issues.push(issueAt(at, 'Query parameter name cannot be empty'));
    else if (key.length > L.queryParamKeyMaxLength || CONTROL_CHARACTERS.test(key))
      issues.push(issueAt(at, 'Query parameter names cannot contain control characters'));
    if (typeof value !== 'string') continue;
    if (value.length > L.queryParamValueMaxLength)
      issues.push(issueAt(at, `Query parameter values must be at most ${L.queryParamValueMaxLength} characters`));
    else if (CONTROL_CHARACTERS.test(value))
      issues.push(issueAt(at, 'Query parameter values cannot contain control characters'));
  }
  return issues;
}

function mapCountIssue(member: WriteOnly, map: Record<string, string>, max: number): SchemaIssue[] {
  const noun = member === 'headers' ? 'headers' : 'query parameters';
  return Object.keys(map).length > max ? [issueAt([member], `A webhook cannot have more than ${max} ${noun}`)] : [];
}

// ---------------------------------------------------------------- the destination

/** Addresses a webhook may not point at (`isPrivateIp`): loopback, private, link-local, shared, reserved, documentation, multicast. */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

function isPrivateAddress(host: string): boolean {
  if (isIPv4(host)) return PRIVATE.check(host, 'ipv4');
  if (!isIPv6(host)) return false;
  // An IPv4 address mapped into (or, deprecated, compatible with) IPv6 is judged as IPv4.
  const embedded = /^::(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(host)?.[1];
  return embedded !== undefined ? PRIVATE.check(embedded, 'ipv4') : PRIVATE.check(host, 'ipv6');
}

/** `validateWebhookUrl`: http(s) only, Slack webhooks on slack.com, nothing private or local. Its failures are plain 400 messages. */
function checkDestination(write: WebhookWrite): void {
  const url = new URL(write.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refused('Webhook URL must use HTTP or HTTPS');
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '')
    .toLowerCase();
  if (write.service === 'slack' && !(host === 'slack.com' || host.endsWith('.slack.com'))) {
    throw refused(`Slack Webhook URL ${write.url} does not have hostname that ends in 'slack.com'`);
  }
  if (host === 'localhost' || host.endsWith('.localhost') || isPrivateAddress(host))
    throw refused('Webhook URL resolves to a private or reserved address.');
}

function checkUnique(ws: CurrentWorkspace, write: WebhookWrite, except?: string): void {
  if (
    ws.webhooks.some(
      (webhook) => webhook.id !== except && webhook.service === write.service && webhook.name === write.name,
    )
  )
    throw refused(DUPLICATE);
}

// ---------------------------------------------------------------- stored and answered

/** The answer: `body` only on generic webhooks (the response schema of the others has none). */
export function externalWebhook(webhook: WebhookEntry): WebhookEntry {
  if (webhook.service === 'generic' || webhook.body === undefined) return webhook;
  const { body: _body, ...answered } = webhook;
  return answered;
}

function entryOf(id: string, write: WebhookWrite, createdAt: string, updatedAt: string): WebhookEntry {
  return inSchemaOrder(CurrentWebhookEntry, {
    id,
    name: write.name,
    url: write.url,
    description: write.description,
    updatedAt,
    createdAt,
    service: write.service,
    body: write.body,
  });
}

/** The fingerprints of a map's entries, keyed `member.name`. */
function fingerprints(member: WriteOnly, map: Record<string, string>, fingerprint: Fingerprint): StackSecrets {
  return Object.fromEntries(Object.entries(map).map(([name, value]) => [`${member}.${name}`, fingerprint(value)]));
}

/** The stored secrets after a write: sent maps replace (`{}` clears), absent ones stay unless the destination moved. */
function nextSecrets(
  previous: StackSecrets,
  write: WebhookWrite,
  destinationChanged: boolean,
  fingerprint: Fingerprint,
): StackSecrets {
  const next: StackSecrets = {};
  for (const member of WRITE_ONLY) {
    const sent = write[member];
    const kept = Object.entries(previous).filter(([path]) => path.startsWith(`${member}.`));
    if (sent !== undefined) Object.assign(next, fingerprints(member, sent, fingerprint));
    else if (!destinationChanged) Object.assign(next, Object.fromEntries(kept));
  }
  return next;
}

function storeSecrets(ws: CurrentWorkspace, id: string, secrets: StackSecrets): void {
  if (Object.keys(secrets).length) ws.secrets.set(id, secrets);
  else ws.secrets.delete(id);
}

// ---------------------------------------------------------------- operations

/** Sorted by id, so offset paging is stable. */
export function listWebhooks(ws: CurrentWorkspace): WebhookEntry[] {
  return [...ws.webhooks].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map(externalWebhook);
}

function requireWebhook(ws: CurrentWorkspace, id: string): WebhookEntry {
  const webhook = ws.webhooks.find((candidate) => candidate.id === id);
  if (!webhook) throw jsonNotFound('Webhook not found');
  return webhook;
}

export function createWebhook(
  ws: CurrentWorkspace,
  body: unknown,
  nowMs: number,
  fingerprint: Fingerprint,
): WebhookEntry {
  const write = readWrite(body);
  checkDestination(write);
  checkUnique(ws, write);
  const now = isoTimestamp(nowMs);
  const webhook = entryOf(newObjectId(nowMs), write, now, now);
  ws.webhooks.push(webhook);
  storeSecrets(ws, webhook.id, nextSecrets({}, write, false, fingerprint));
  return externalWebhook(webhook);
}

/** The order of the real checks: the body (400), the webhook (404), its destination (400), the (service, name) pair (400). */
export function updateWebhook(
  ws: CurrentWorkspace,
  id: string,
  body: unknown,
  nowMs: number,
  fingerprint: Fingerprint,
): WebhookEntry {
  const write = readWrite(body);
  const current = requireWebhook(ws, id);
  checkDestination(write);
  checkUnique(ws, write, id);
  const destinationChanged = write.url !== current.url || write.service !== current.service;
  const webhook = entryOf(id, write, current.createdAt, isoTimestamp(nowMs));
  ws.webhooks[ws.webhooks.indexOf(current)] = webhook;
  storeSecrets(ws, id, nextSecrets(ws.secrets.get(id) ?? {}, write, destinationChanged, fingerprint));
  return externalWebhook(webhook);
}

/** Refused while an alert's `channel` names it (the real count looks at `channel.webhookId` only, not the rest of `channels`), before the 404. */
export function deleteWebhook(ws: CurrentWorkspace, id: string): void {
  const users = [...ws.alerts.values()].filter((alert) => alert.channel?.['webhookId'] === id).length;
  if (users > 0) {
    throw new ApiError(
      'conflict',
      `Cannot delete webhook: ${users} alert(s) still reference it. Reassign or remove those alerts first.`,
      { json: true },
    );
  }
  ws.webhooks.splice(ws.webhooks.indexOf(requireWebhook(ws, id)), 1);
  ws.secrets.delete(id);
}

// ---------------------------------------------------------------- seeds

/** A seeded webhook as listed, in the answer's order; its headers and query parameters go to `secrets`. */
function webhookOf(
  seed: Record<string, unknown>,
  nowMs: number,
  secrets: Map<string, StackSecrets>,
  fingerprint: Fingerprint,
): WebhookEntry {
  const { createdAt, updatedAt } = timesOf(seed, nowMs);
  const text = (key: string) => (typeof seed[key] === 'string' ? (seed[key] as string) : undefined);
  const webhook = inSchemaOrder(CurrentWebhookEntry, {
    id: idOf(seed, nowMs),
    name: String(seed['name']),
    url: text('url'),
    description: text('description'),
    updatedAt,
    createdAt,
    service: String(seed['service']),
    body: text('body'),
  });
  const written = (['headers', 'queryParams'] as const).flatMap((member) =>
    Object.entries((seed[member] ?? {}) as Record<string, string>).map(([name, value]) => [
      `${member}.${name}`,
      fingerprint(value),
    ]),
  );
  if (written.length) secrets.set(webhook.id, Object.fromEntries(written));
  return webhook;
}

/** The kind's routes on both variants, without a GET by id; the self-hosted list pages. */
export const stackKind: StackKind = {
  collection: {
    member: 'webhooks',
    data: { items: CurrentWebhookEntry },
    seed: (ws, seeded, { nowMs, fingerprint }) => {
      ws.webhooks = (seeded.webhooks ?? []).map((webhook) => webhookOf(webhook, nowMs, ws.secrets, fingerprint));
    },
    restore: (ws, saved) => {
      ws.webhooks = saved.webhooks;
    },
    save: (ws) => ws.webhooks,
  },
  segment: 'webhooks',
  idName: 'webhookId',
  gateway: () => CurrentWebhookWrite,
  servedOn: BOTH,
  pagedOn: ['self-hosted'],
  writableOn: BOTH,
  list: listWebhooks,
  create: ({ ws, body, nowMs, fingerprint }) => createWebhook(ws, body, nowMs, fingerprint),
  update: ({ ws, id, body, nowMs, fingerprint }) => updateWebhook(ws, id, body, nowMs, fingerprint),
  remove: ({ ws, id }) => deleteWebhook(ws, id),
};
