/**
 * The manifest of a Webhook: its spec (`schema/manifest-stack.ts`, built there beside the other
 * flat kinds' from the same API schema parts) in the envelope.
 */
import type { Kind } from '../../model/kinds.js';
import { documentSchema } from '../../schema/manifest.js';
import { webhookSpecSchema } from '../../schema/manifest-stack.js';

/** The Webhook kind's name. */
export const WEBHOOK = 'Webhook' satisfies Kind;

export { webhookSpecSchema };

/** What the kind is, as its published schema says. */
export const WEBHOOK_DESCRIPTION =
  'A webhook alerts notify (Slack, incident.io or a generic HTTP endpoint).';

/** The whole manifest document: the envelope with this spec. */
export const webhookDocumentSchema = documentSchema(WEBHOOK, webhookSpecSchema, WEBHOOK_DESCRIPTION);
