/**
 * Deletes of what alerts name. The server refuses (409) to delete a webhook while an alert's
 * `channel` names it (hyperdx `controllers/webhook.ts` counts `channel.webhookId` only), and
 * deletes the alerts on a saved search with it. So each such delete waits for the alerts this
 * plan moves off (or deletes), and says what it still does to the others.
 */
import { changeKey, type Change, type WriteBody } from '../../model/plan.js';
import { addDependsOn } from '../kit/change.js';
import { labelOf } from '../kit/dependents.js';
import type { AlertOutcome } from './diff.js';
import { ALERT, type LiveAlert } from './model.js';

export interface StandingAlerts {
  live: readonly LiveAlert[];
  /** The alerts' own plan. */
  alerts: readonly AlertOutcome[];
  alertDeletes: readonly Change[];
}

/** What became of a live alert in this plan: deleted, rewritten (with the body it is sent), or nothing. */
function fateOf(alert: LiveAlert, standing: StandingAlerts): { change: Change; body?: WriteBody } | undefined {
  const deletion = standing.alertDeletes.find((change) => change.id === alert.id);
  if (deletion) return { change: deletion };
  const outcome = standing.alerts.find((each) => each.live?.id === alert.id && each.change.operations.length > 0);
  const operation = outcome?.change.operations.at(-1);
  return outcome && operation && 'body' in operation ? { change: outcome.change, body: operation.body } : undefined;
}

export function orderWebhookDeletes(deletes: readonly Change[], standing: StandingAlerts): void {
  for (const deletion of deletes) {
    const id = deletion.id;
    const refusing: string[] = [];
    const dangling: string[] = [];
    for (const alert of standing.live) {
      const inChannel = alert.channel?.webhookId === id;
      const inChannels = !inChannel && channelsOf(alert.extra?.['channels']).includes(id ?? '');
      if (!inChannel && !inChannels) continue;
      const fate = fateOf(alert, standing);
      const moved = fate && (fate.body === undefined || !namesWebhook(fate.body, id ?? ''));
      if (moved && fate) addDependsOn(deletion, changeKey(ALERT, fate.change.name));
      else if (inChannel) refusing.push(labelOf(ALERT, alert));
      else dangling.push(labelOf(ALERT, alert));
    }
    if (refusing.length > 0) {
      deletion.warnings.push(`the server refuses to delete it (409) while ${refusing.join(', ')} notifies it: move those alerts to another webhook, or delete them, first`);
    }
    if (dangling.length > 0) deletion.warnings.push(`${dangling.join(', ')} also list it in their channels; the server deletes it anyway, and those channels are left pointing at nothing`);
  }
}

export function orderSavedSearchDeletes(deletes: readonly Change[], standing: StandingAlerts): void {
  for (const deletion of deletes) {
    const going: string[] = [];
    for (const alert of standing.live) {
      if (alert.source !== 'search' || alert.savedSearchId === undefined || alert.savedSearchId !== deletion.id) continue;
      const fate = fateOf(alert, standing);
      const moved = fate && (fate.body === undefined || fate.body['savedSearchId'] !== deletion.id);
      if (moved && fate) addDependsOn(deletion, changeKey(ALERT, fate.change.name));
      else going.push(labelOf(ALERT, alert));
    }
    if (going.length > 0) deletion.warnings.push(`the server deletes the alerts on it with it: ${going.join(', ')}`);
  }
}

function channelsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.flatMap((channel) => (typeof channel?.['webhookId'] === 'string' ? [channel['webhookId'] as string] : [])) : [];
}

function namesWebhook(body: WriteBody, id: string): boolean {
  const channel = body['channel'] as { webhookId?: unknown } | undefined;
  return channel?.webhookId === id || channelsOf(body['channels']).includes(id);
}
