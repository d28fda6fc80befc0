/**
 * Deletes of what alerts name. The server refuses (409) to delete a webhook while an alert's
 * `channel` names it (hyperdx `controllers/webhook.ts` counts `channel.webhookId` only), and
 * deletes the alerts on a saved search with it. So each such delete waits for the alerts this
 * plan moves off (or deletes); is held back while an alert whose manifest stays, and cannot be
 * applied, still names it (the webhook's delete would be refused, the saved search's would take
 * a wanted alert with it); and says what it still does to the others.
 */
import { changeKey, type Change, type WriteBody } from '../../model/plan.js';
import { isRecord, recordOr } from '../../support/json.js';
import { addDependsOn } from '../shared/change.js';
import { labelOf } from '../shared/dependents.js';
import type { AlertOutcome } from './diff.js';
import { ALERT, alertSourceWord, SAVED_SEARCH_SOURCE, type LiveAlert } from './model.js';

export interface StandingAlerts {
  live: readonly LiveAlert[];
  /** The alerts' own plan. */
  alerts: readonly AlertOutcome[];
  alertDeletes: readonly Change[];
}

/**
 * What this plan makes of a live alert that names a resource it deletes: `moves` (deleted, or
 * rewritten to name something else; the delete runs after it), `held` (its manifest stays and
 * cannot be applied; the delete waits for it, so is never sent), or `stays` (no manifest moves it).
 */
type Fate = { is: 'moves' | 'held'; change: Change } | { is: 'stays' };

function fateOf(alert: LiveAlert, standing: StandingAlerts, names: (body: WriteBody) => boolean): Fate {
  const deletion = standing.alertDeletes.find((change) => change.id === alert.id);
  if (deletion) return { is: 'moves', change: deletion };
  const outcome = standing.alerts.find((each) => each.live?.id === alert.id);
  if (outcome?.change.action === 'error') return { is: 'held', change: outcome.change };
  const operation = outcome?.change.operations.at(-1);
  if (outcome && operation && 'body' in operation && !names(operation.body))
    return { is: 'moves', change: outcome.change };
  return { is: 'stays' };
}

/** An alert's manifest, as the plan names it, with where it is. */
function manifestLabel(change: Change): string {
  const line = change.line === undefined ? '' : `:${change.line}`;
  return change.file === undefined
    ? changeKey(ALERT, change.name)
    : `${changeKey(ALERT, change.name)} (${change.file}${line})`;
}

/** Sorts the alerts naming one deleted resource by fate: the delete waits for those that move or are held. */
function sortByFate(
  deletion: Change,
  alerts: readonly LiveAlert[],
  standing: StandingAlerts,
  names: (body: WriteBody) => boolean,
): { held: string[]; staying: LiveAlert[] } {
  const held: string[] = [];
  const staying: LiveAlert[] = [];
  for (const alert of alerts) {
    const fate = fateOf(alert, standing, names);
    if (fate.is === 'stays') {
      staying.push(alert);
      continue;
    }
    addDependsOn(deletion, changeKey(ALERT, fate.change.name));
    if (fate.is === 'held') held.push(manifestLabel(fate.change));
  }
  return { held, staying };
}

export function orderWebhookDeletes(deletes: readonly Change[], standing: StandingAlerts): void {
  for (const deletion of deletes) {
    const id = deletion.id ?? '';
    const naming = standing.live.filter(
      (alert) => alert.channel?.webhookId === id || channelsOf(alert.extra?.['channels']).includes(id),
    );
    const { held, staying } = sortByFate(deletion, naming, standing, (body) => namesWebhook(body, id));
    if (held.length > 0) {
      deletion.warnings.push(
        `not deleted while ${held.join(', ')} still names it: the manifest stays and cannot be applied, ` +
          `and the server refuses to delete a webhook an alert notifies (409); delete that manifest too, ` +
          `or move the alert to another webhook`,
      );
    }
    const refusing = staying.filter((alert) => alert.channel?.webhookId === id).map((alert) => labelOf(ALERT, alert));
    const dangling = staying.filter((alert) => alert.channel?.webhookId !== id).map((alert) => labelOf(ALERT, alert));
    if (refusing.length > 0) {
      deletion.warnings.push(
        `the server refuses to delete it (409) while ${refusing.join(', ')} notifies it: move those alerts to another webhook, or delete them, first`,
      );
    }
    if (dangling.length > 0)
      deletion.warnings.push(
        `${dangling.join(', ')} also list it in their channels; the server deletes it anyway, and those channels are left pointing at nothing`,
      );
  }
}

export function orderSavedSearchDeletes(deletes: readonly Change[], standing: StandingAlerts): void {
  for (const deletion of deletes) {
    const naming = standing.live.filter(
      (alert) =>
        alertSourceWord(alert.source) === SAVED_SEARCH_SOURCE &&
        alert.savedSearchId !== undefined &&
        alert.savedSearchId === deletion.id,
    );
    const { held, staying } = sortByFate(deletion, naming, standing, (body) => body['savedSearchId'] === deletion.id);
    if (held.length > 0) {
      deletion.warnings.push(
        `not deleted while ${held.join(', ')} still watches it: the manifest stays and cannot be ` +
          `applied, and the server would delete the alert with it; delete that manifest too, or move the ` +
          `alert to another saved search`,
      );
    }
    if (staying.length > 0)
      deletion.warnings.push(
        `the server deletes the alerts on it with it: ${staying.map((alert) => labelOf(ALERT, alert)).join(', ')}`,
      );
  }
}

function channelsOf(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((channel) => {
    const id = isRecord(channel) ? channel['webhookId'] : undefined;
    return typeof id === 'string' ? [id] : [];
  });
}

function namesWebhook(body: WriteBody, id: string): boolean {
  const channel = recordOr(body['channel']);
  return channel?.['webhookId'] === id || channelsOf(body['channels']).includes(id);
}
