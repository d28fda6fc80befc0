/**
 * The manifest of a Webhook: its spec, the members of the real create body
 * (`wire.ts` beside it) with other kinds' ids also taken by name and credentials as
 * secret references, in the envelope.
 */
import { Type } from 'typebox';
import { described, object, oneOf, optional, readable } from '../../schema/build.js';
import { secretRefSchema } from '../../schema/config.js';
import { CURRENT_WEBHOOK_LIMITS, CURRENT_WEBHOOK_WRITE_SERVICES } from './wire.js';
import { ignoreDifferencesSchema } from '../../schema/manifest-parts.js';
import { documentSchema } from '../../schema/manifest.js';

/** The Webhook kind's name. */
export const WEBHOOK = 'Webhook';

const W = CURRENT_WEBHOOK_LIMITS;
const secretMap = (what: string) =>
  readable(
    Type.Record(Type.String({ minLength: 1 }), secretRefSchema, {
      maxProperties: what === 'headers' ? W.maxHeaders : W.maxQueryParams,
      description:
        `Write-only ${what}, each value a secret reference: the whole map is sent once per new value of any entry (the ` +
        `service never returns them), compared by HMACs kept in the state file. {} clears them; left out, the live ones are kept.`,
    }),
  );

export const webhookSpecSchema = object({
  name: described(
    Type.String({ minLength: 1, maxLength: W.nameMaxLength }),
    'Webhook name in the API; with service, what live webhooks are matched by (unique per service).',
  ),
  service: oneOf(CURRENT_WEBHOOK_WRITE_SERVICES, { description: 'slack, incidentio or generic.' }),
  ...optional({
    url: described(
      secretRefSchema,
      'Where notifications go (a secret: webhook URLs carry tokens); compared with the ' +
        'live URL, shown as (sensitive). Needed to create one; left out, the live URL is kept.',
    ),
    description: Type.String({ maxLength: W.descriptionMaxLength }),
    body: described(Type.String({ maxLength: W.bodyMaxLength }), 'Payload template (generic webhooks).'),
    headers: secretMap('headers'),
    queryParams: secretMap('query parameters'),
    ignoreDifferences: ignoreDifferencesSchema,
  }),
});

/** What the kind is, as its published schema says. */
export const WEBHOOK_DESCRIPTION = 'A webhook alerts notify (Slack, incident.io or a generic HTTP endpoint).';

/** The whole manifest document: the envelope with this spec. */
export const webhookDocumentSchema = documentSchema(WEBHOOK, webhookSpecSchema, WEBHOOK_DESCRIPTION);
