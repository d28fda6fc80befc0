/**
 * Secret values that `${NAME}` variables put into a manifest's strings, masked before any change
 * leaves the differ (Flux masks secret data before a diff leaves the engine): a diff value holding
 * one shows as `(sensitive)`, and a warning or error text has it replaced. Operations keep the real
 * values: they are what apply sends, and are never rendered, logged or persisted.
 */
import type { DesiredResource } from '../kinds/index.js';
import { changeKey, SENSITIVE, type Change, type FieldDiff } from '../model/plan.js';
import { holdsSecret as holdsSecretForm, redactSecrets } from '../support/redaction.js';

/** Masks, in place, what the changes of resources with sensitive values show. Returns the same array. */
export function maskSensitive(changes: Change[], desired: readonly DesiredResource[]): Change[] {
  const secretsOf = new Map<string, string[]>();
  for (const resource of desired) {
    if (resource.sensitive?.length)
      secretsOf.set(
        changeKey(resource.kind, resource.key),
        resource.sensitive.map((secret) => secret.value).filter(Boolean),
      );
  }
  if (secretsOf.size === 0) return changes;
  for (const change of changes) {
    const secrets = secretsOf.get(changeKey(change.kind, change.name));
    if (!secrets || secrets.length === 0) continue;
    change.diff = change.diff.map((diff) => maskDiff(diff, secrets));
    change.warnings = change.warnings.map((text) => maskText(text, secrets));
    if (change.error !== undefined) change.error = maskText(change.error, secrets);
  }
  return changes;
}

function maskDiff(diff: FieldDiff, secrets: readonly string[]): FieldDiff {
  const masked: FieldDiff = { path: diff.path };
  if (diff.before !== undefined) masked.before = holdsSecret(diff.before, secrets) ? SENSITIVE : diff.before;
  if (diff.after !== undefined) masked.after = holdsSecret(diff.after, secrets) ? SENSITIVE : diff.after;
  return masked;
}

function holdsSecret(value: unknown, secrets: readonly string[]): boolean {
  return holdsSecretForm(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''), secrets);
}

/** `text` with every secret value, in any escaped form, replaced by `(sensitive)`. */
export function maskText(text: string, secrets: readonly string[]): string {
  return redactSecrets(text, secrets, SENSITIVE);
}
