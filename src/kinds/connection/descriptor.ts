/**
 * Connection: the database endpoint and credentials a source queries through (hyperdx
 * `v2/connections.ts`). A self-hosted server's connections are full CRUD. A managed service makes
 * its own (the platform's) and its API has no connection path at all (docs/api-client.md, "What
 * the documents offer and stacksync does not"): no routes there, so a managed source names its
 * connection by id and a Connection manifest for a managed target is an error. `password`
 * is write-only: compared by an HMAC in the state file, sent once per new value (an update without
 * one keeps it). Matched by API name; pruned on the inventory's proof.
 */
import type { TargetState } from '../../model/state.js';
import { CONNECTION } from './model.js';
import { envName } from '../shared/export-names.js';
import { secretRow, sentHash, unknownRow, type SecretPart } from '../shared/named.js';
import type { LiveFlat } from '../shared/flat-live.js';
import { flatExport } from '../shared/flat-export.js';
import { flatKind } from '../shared/flat-kind.js';
import { secretSite, type DesiredFlat } from '../shared/flat-manifests.js';
import { selfHostedRoutes } from '../shared/routes.js';
import { connectionDocumentSchema, connectionSpecSchema } from './schema.js';

export const connectionKind = flatKind<typeof CONNECTION, 'connections'>({
  kind: CONNECTION,
  schema: connectionDocumentSchema,
  collection: 'connections',
  routes: {
    'self-hosted': selfHostedRoutes('connections', 'PUT', { access: { seed: 'none' } }),
  },
  references: [],
  secrets: { members: ['password'], sites: (spec) => secretSite(spec, 'password') },
  rules: { members: (desired) => desired.spec, secrets: passwordPart },
  export: flatExport('connection', connectionSpecSchema, (live) => live.members, {
    credentials: (key) => ({
      path: 'spec',
      member: 'password',
      value: { fromEnv: envName(key, 'password', 'CONNECTION') },
    }),
  }),
});

// What the kinds that read this one get of it (`KindTypes`, in `../descriptor.ts`).
declare module '../../model/kinds.js' {
  interface KindTypes {
    [CONNECTION]: typeof connectionKind;
  }
}

/** The password is never returned: sent when its HMAC is not the one last sent (or none was). */
function passwordPart(
  desired: DesiredFlat,
  live: LiveFlat | undefined,
  _members: unknown,
  state: TargetState,
): SecretPart {
  const password = desired.secrets['password'];
  const part: SecretPart = { diff: [], body: {}, hashes: {}, warnings: [] };
  if (!password) return part;
  const sent = sentHash(state, CONNECTION, desired.key, 'password');
  if (password.unknown !== undefined) {
    // Unknown here: one sent before stays as it is; one never sent is needed by the write.
    if (live && sent !== undefined) return part;
    return {
      ...part,
      diff: [unknownRow('password', live !== undefined)],
      unresolved: [`password: ${password.unknown}`],
    };
  }
  if (live && sent === password.hmac) return part;
  part.diff.push(secretRow('password', live !== undefined, true));
  part.body['password'] = password.value;
  part.hashes['password'] = password.hmac;
  return part;
}
