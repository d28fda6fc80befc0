/**
 * Events as each provider takes them, pure: a generic JSON document for `webhook`, an
 * incoming-webhook message for `slack`, a commit status for `github`. Every string passes
 * through `redact` first, so no credential stacksync knows can leave in a notification.
 */
import type { NotificationEvent } from './events.js';

/** Shown before a Slack message, by event. */
const SLACK_MARKS: Record<NotificationEvent['event'], string> = {
  applied: ':white_check_mark:',
  failed: ':x:',
  drift: ':warning:',
  pruneRefused: ':no_entry:',
  recovered: ':large_green_circle:',
};

/** GitHub cuts a status description at 140 characters. */
const GITHUB_DESCRIPTION_MAX = 140;

export type Redact = (text: string) => string;

/** The `webhook` body: the event as data, with the time it was made. */
export function webhookBody(event: NotificationEvent, at: string, redact: Redact): Record<string, unknown> {
  return redactDeep({ version: 1, at, ...event }, redact) as Record<string, unknown>;
}

/**
 * Slack reads `<…>` as a mention (`<!channel>`) or a link (`<https://…|text>`) and `&` as the start
 * of an entity; its docs ask senders to escape exactly these three. Everything a message quotes
 * (names, file names, servers' errors) is escaped, so a hostile name shows as text.
 */
const SLACK_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** The `slack` body: one mrkdwn message naming the target, what happened and where. */
export function slackBody(event: NotificationEvent, redact: Redact): { text: string } {
  // Masked first, then escaped: escaping could split a secret the redactor looks for.
  const quote = (text: string): string => redact(text).replace(/[&<>]/g, (c) => SLACK_ESCAPES[c] ?? c);
  const lines = [
    `${SLACK_MARKS[event.event]} *stacksync* \`${quote(event.target)}\` ${event.event}: ${quote(event.summary)}`,
  ];
  if (event.revision) lines.push(`revision \`${quote(event.revision.slice(0, 12))}\``);
  for (const resource of event.resources.slice(0, 10)) {
    const where = resource.file ? ` (${resource.file}${resource.line !== undefined ? `:${resource.line}` : ''})` : '';
    lines.push(`• ${quote(`${resource.action} ${resource.kind}/${resource.name}${where}`)}`);
  }
  if (event.total > 10) lines.push(`… and ${event.total - 10} more`);
  return { text: lines.join('\n') };
}

export type GithubState = 'pending' | 'success' | 'failure';

/** The body of a GitHub commit status for one target. */
export function githubStatusBody(
  target: string,
  state: GithubState,
  description: string,
  redact: Redact,
): Record<string, string> {
  const text = redact(description);
  const cut = text.length > GITHUB_DESCRIPTION_MAX ? `${text.slice(0, GITHUB_DESCRIPTION_MAX - 1)}…` : text;
  return { state, context: `stacksync/${target}`, description: cut };
}

function redactDeep(value: unknown, redact: Redact): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactDeep(item, redact)]));
  return value;
}
