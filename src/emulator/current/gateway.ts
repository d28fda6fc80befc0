/**
 * The managed gateway in front of the stack routes checks a write body against the managed
 * OpenAPI's request schema before the service sees it, and strictly: a member the operation does
 * not name (a dashboard's own `id` read back from GET, an alert's `teamId` or `state`, a typo) is
 * a 400 "request body property can't be validated: <name>"
 * (terraform-provider-clickhouse `internal/service/clickstack/dashboard_tile_ids.go`,
 * `stripServerIDs`). The self-hosted server has no gateway: its validators drop such members.
 */
import type { TSchema } from 'typebox';
import { CurrentAlertWrite } from '../../kinds/alert/wire.js';
import { CurrentDashboardWrite } from '../../kinds/dashboard/wire.js';
import { CurrentSavedSearchWrite } from '../../kinds/saved-search/wire.js';
import { CURRENT_SOURCE_WRITES } from '../../kinds/source/wire.js';
import { CurrentWebhookWrite } from '../../kinds/webhook/wire.js';
import { CurrentRoleCreate } from '../../kinds/role/wire.js';
import { refused } from './validate.js';

/** The request schema of each managed write, by the body it is given (a source's by its `kind`). */
export const GATEWAY_SCHEMAS = {
  dashboard: () => CurrentDashboardWrite,
  alert: () => CurrentAlertWrite,
  source: (body: Record<string, unknown>) => CURRENT_SOURCE_WRITES[body['kind'] as keyof typeof CURRENT_SOURCE_WRITES],
  webhook: () => CurrentWebhookWrite,
  savedSearch: () => CurrentSavedSearchWrite,
  role: () => CurrentRoleCreate,
} satisfies Record<string, (body: Record<string, unknown>) => TSchema | undefined>;

export type GatewayOperation = keyof typeof GATEWAY_SCHEMAS;

/** Refuses a body with members its operation's schema does not name; a body that is no object, or names no known kind, is left to the service. */
export function checkGatewayBody(operation: GatewayOperation, body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const schema: TSchema | undefined = GATEWAY_SCHEMAS[operation](body as Record<string, unknown>);
  if (!schema) return;
  const known = Object.keys((schema as { properties?: object }).properties ?? {});
  const unknown = Object.keys(body).filter((member) => !known.includes(member));
  if (unknown.length) throw refused(unknown.map((member) => `request body property can't be validated: ${member}`).join('; '));
}
