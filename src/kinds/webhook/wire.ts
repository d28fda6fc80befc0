/**
 * A webhook's wire shapes on the `current` profile (docs/reference/api-behaviour.md, "The real
 * services today: the whole lifecycle"). The real messages of rules a schema cannot say (a header
 * name's charset, a URL's host) are checked beside them.
 */
import { type Static, Type } from 'typebox';

// ---------------------------------------------------------------- enumerations and limits

export const CURRENT_WEBHOOK_SERVICES = ['slack', 'generic', 'incidentio'] as const;

/** Caps of the webhook write body (hyperdx `utils/zod.ts`, `externalWebhookCreateSchema`). */
export const CURRENT_WEBHOOK_LIMITS = {
  nameMaxLength: 1024,
  urlMaxLength: 2048,
  descriptionMaxLength: 2048,
  bodyMaxLength: 16 * 1024,
  headerNameMaxLength: 256,
  headerValueMaxLength: 4096,
  queryParamKeyMaxLength: 1024,
  queryParamValueMaxLength: 4096,
  maxHeaders: 100,
  maxQueryParams: 100,
} as const;

/** The webhook services a write may name; the managed service lists more (e.g. `slack_api`), made by its integrations. */
export const CURRENT_WEBHOOK_WRITE_SERVICES = ['slack', 'incidentio', 'generic'] as const;
/** Members a slack webhook refuses: Slack gets a fixed payload, so they would be stored and never used. */
export const CURRENT_SLACK_UNSUPPORTED_MEMBERS = ['headers', 'queryParams', 'body'] as const;

// ---------------------------------------------------------------- webhooks

const W = CURRENT_WEBHOOK_LIMITS;

/** A map of names to values; what a name and a value may hold is checked beside the schema, with the service's own messages. */
const nameValueMap = Type.Object({}, { additionalProperties: Type.Unknown() });

/**
 * Create and update body (PUT takes the same). Header and query-parameter maps are checked beside
 * the schema (names, values, control characters, counts), with the service's own messages.
 */
export const CurrentWebhookWrite = Type.Object({
  name: Type.String(),
  service: Type.Enum(CURRENT_WEBHOOK_WRITE_SERVICES),
  url: Type.String({ maxLength: W.urlMaxLength }),
  description: Type.Optional(Type.String({ maxLength: W.descriptionMaxLength })),
  queryParams: Type.Optional(nameValueMap),
  headers: Type.Optional(nameValueMap),
  body: Type.Optional(Type.String({ maxLength: W.bodyMaxLength })),
});

/** A webhook as listed: `body` only for generic ones; headers and query parameters never. */
export const CurrentWebhookEntry = Type.Object({
  id: Type.String(),
  name: Type.String(),
  url: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  updatedAt: Type.String(),
  createdAt: Type.String(),
  service: Type.String(),
  body: Type.Optional(Type.String()),
});

export type CurrentWebhookWrite = Omit<Static<typeof CurrentWebhookWrite>, 'headers' | 'queryParams'> & {
  headers?: Record<string, string>;
  queryParams?: Record<string, string>;
};
export type CurrentWebhookEntry = Static<typeof CurrentWebhookEntry>;
