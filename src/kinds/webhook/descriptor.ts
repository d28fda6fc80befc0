/**
 * Webhook: where alerts send notifications (hyperdx `v2/webhooks.ts`): Slack, incident.io or a
 * generic HTTP endpoint. There is no GET by id: webhooks are read from the paged list. The URL,
 * headers and query parameters are secrets (see `webhook/secrets.ts`). Matched by API name (the
 * service keeps (service, name) unique; two of one name are an ambiguity to resolve by renaming);
 * pruned on the inventory's proof. The service refuses (409) to delete a webhook while an alert's
 * `channel` names it: the alerts' descriptor orders such a delete after the alerts move off, and
 * says so where nothing does.
 */
import { envName } from '../shared/export-names.js';
import { flatExport } from '../shared/flat-export.js';
import { flatKind } from '../shared/flat-kind.js';
import { secretMapSites, secretSite } from '../shared/flat-manifests.js';
import { managedRoutes, selfHostedRoutes } from '../shared/routes.js';
import { WEBHOOK, WEBHOOK_SECRET_MEMBERS } from './model.js';
import { webhookSecrets } from './secrets.js';
import { webhookDocumentSchema, webhookSpecSchema } from './schema.js';

export const webhookKind = flatKind<typeof WEBHOOK, 'webhooks'>({
  kind: WEBHOOK,
  schema: webhookDocumentSchema,
  collection: 'webhooks',
  // The list pages on both variants (managed pages answer the bare list: read on until a short one).
  routes: {
    managed: managedRoutes('stack/webhooks', 'webhookId', 'PUT', { paged: true, access: { seed: 'none' } }),
    'self-hosted': selfHostedRoutes('webhooks', 'PUT', { paged: true, access: { seed: 'none' } }),
  },
  references: [],
  secrets: {
    members: WEBHOOK_SECRET_MEMBERS,
    sites: (spec) => [
      ...secretSite(spec, 'url'),
      ...secretMapSites(spec, 'headers'),
      ...secretMapSites(spec, 'queryParams'),
    ],
  },
  rules: {
    members: (desired) => desired.spec,
    createProblem: (desired) =>
      desired.secrets['url'] === undefined
        ? 'a new webhook needs its url (a secret reference: {fromEnv: NAME} or {fromFile: PATH})'
        : undefined,
    secrets: webhookSecrets,
  },
  // The URL is a secret: export leaves it out (the live one is kept) and says how to manage it.
  export: flatExport('webhook', webhookSpecSchema, ({ members: { url: _url, ...members } }) => members, {
    credentials: (key) => ({ path: 'spec', member: 'url', value: { fromEnv: envName(key, 'url', 'WEBHOOK') } }),
  }),
});

// What the kinds that read this one get of it (`KindTypes`, in `../descriptor.ts`).
declare module '../../model/kinds.js' {
  interface KindTypes {
    [WEBHOOK]: typeof webhookKind;
  }
}
