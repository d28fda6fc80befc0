/**
 * The managed gateway in front of the stack routes checks a write body against the managed
 * OpenAPI's request schema before the service sees it, and strictly: a member the operation does
 * not name (a dashboard's own `id` read back from GET, an alert's `teamId` or `state`, a typo) is
 * a 400 "request body property can't be validated: <name>"
 * (terraform-provider-clickhouse `internal/service/clickstack/dashboard_tile_ids.go`,
 * `stripServerIDs`). The self-hosted server has no gateway: its validators drop such members.
 */
import type { GatewaySchema } from './stack-kind.js';
import { refused } from './validate.js';

/** Refuses a body with members its operation's schema does not name; a body that is no object, or names no known kind, is left to the service. */
export function checkGatewayBody(gateway: GatewaySchema, body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const schema = gateway(body as Record<string, unknown>);
  if (!schema) return;
  const known = Object.keys((schema as { properties?: object }).properties ?? {});
  const unknown = Object.keys(body).filter((member) => !known.includes(member));
  if (unknown.length)
    throw refused(unknown.map((member) => `request body property can't be validated: ${member}`).join('; '));
}
