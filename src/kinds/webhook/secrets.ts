/**
 * A webhook's secrets in a write. The URL is returned, so it is compared with the live one by
 * value (shown as `(sensitive)`). Headers and query parameters are write-only: each map is sent
 * whole when a digest of its entries' HMACs is not the one last sent, so a change goes out once per
 * new value; and again when the URL or the service changes, since the service then clears them
 * (a secret never follows a webhook to a new destination).
 */
import type { TargetState } from '../../model/state.js';
import type { WriteBody } from '../../model/plan.js';
import { digestOf } from '../../support/digest.js';
import { secretRow, sentHash, unknownRow, type SecretPart } from '../shared/named.js';
import type { LiveFlat } from '../shared/flat-live.js';
import type { DesiredFlat } from '../shared/flat-manifests.js';
import { WEBHOOK, WEBHOOK_WRITE_ONLY } from './model.js';

export function webhookSecrets(
  desired: DesiredFlat,
  live: LiveFlat | undefined,
  members: WriteBody,
  state: TargetState,
): SecretPart {
  const part: SecretPart = { diff: [], body: {}, hashes: {}, warnings: [] };
  const url = desired.secrets['url'];
  const unresolved: string[] = [];
  // A URL this run cannot resolve cannot be compared: a live one is left as it is, a create needs it.
  const urlUnknown = url?.unknown !== undefined;
  if (url?.unknown !== undefined && live === undefined) {
    part.diff.push(unknownRow('url', false));
    unresolved.push(`url: ${url.unknown}`);
  }
  const urlChanges = url !== undefined && !urlUnknown && url.value !== live?.members['url'];
  if (url !== undefined && urlChanges) {
    part.diff.push(secretRow('url', live?.members['url'] !== undefined, true));
    part.body['url'] = url.value;
  }
  const serviceChanges =
    live !== undefined && members['service'] !== undefined && members['service'] !== live.members['service'];
  const moves = live !== undefined && (urlChanges || serviceChanges);
  for (const member of WEBHOOK_WRITE_ONLY) {
    if (!desired.secretMembers.includes(member)) {
      if (moves)
        part.warnings.push(
          `the service clears a webhook's ${member} when its url or service changes, and this manifest does not set them: they are lost`,
        );
      continue;
    }
    const entries = Object.entries(desired.secrets)
      .filter(([path]) => path.startsWith(`${member}.`))
      .map(([path, secret]) => [path.slice(member.length + 1), secret] as const);
    const digest = digestOf(Object.fromEntries(entries.map(([name, secret]) => [name, secret.hmac])));
    const unknown = entries.filter(([, secret]) => secret.unknown !== undefined);
    if (unknown.length > 0) {
      // Sent before and not cleared by a move: left as it is; otherwise the write needs it.
      if (live !== undefined && !moves && sentHash(state, WEBHOOK, desired.key, member) !== undefined) continue;
      part.diff.push(unknownRow(member, live !== undefined));
      unresolved.push(...unknown.map(([name, secret]) => `${member}.${name}: ${secret.unknown ?? ''}`));
      continue;
    }
    if (live !== undefined && !moves && sentHash(state, WEBHOOK, desired.key, member) === digest) continue;
    part.diff.push(secretRow(member, live !== undefined, true));
    part.body[member] = Object.fromEntries(entries.map(([name, secret]) => [name, secret.value]));
    part.hashes[member] = digest;
  }
  return unresolved.length > 0 ? { ...part, unresolved } : part;
}
