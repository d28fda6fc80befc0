/** An alert may name its webhook by `channel.webhook: <name>`; it resolves against the target's webhooks list. */
import type { Webhook } from '../../model/resources.js';
import { unknownNames } from '../kit/names.js';
import type { DesiredAlert } from './model.js';

export function resolveWebhookName(alert: DesiredAlert, webhooks: readonly Webhook[], target: string): DesiredAlert | string {
  const name = alert.channel?.webhook;
  if (alert.channel === undefined || name === undefined) return alert;
  const found = webhooks.filter((webhook) => webhook.name === name);
  if (found.length === 0) return unknownNames('webhook', [name], target, webhooks);
  if (found.length > 1) return `${found.length} webhooks of target ${target} are named "${name}"; name it by webhookId instead`;
  const { webhook: _name, ...channel } = alert.channel;
  return { ...alert, channel: { ...channel, webhookId: found[0]?.id ?? '' } };
}
