/**
 * Route templates of both variants, exactly as hooks, metrics, logs and errors name them (the
 * emulator's `/_emulator/stats` uses the same strings), and how a template becomes a path.
 */

const MANAGED_SERVICE = '/v1/organizations/{organizationId}/services/{serviceId}';

export const MANAGED_ROUTES = {
  pipes: `${MANAGED_SERVICE}/pipes`,
  pipe: `${MANAGED_SERVICE}/pipes/{pipeId}`,
  dashboards: `${MANAGED_SERVICE}/stack/dashboards`,
  dashboard: `${MANAGED_SERVICE}/stack/dashboards/{dashboardId}`,
  alerts: `${MANAGED_SERVICE}/stack/alerts`,
  alert: `${MANAGED_SERVICE}/stack/alerts/{alertId}`,
  sources: `${MANAGED_SERVICE}/stack/sources`,
  webhooks: `${MANAGED_SERVICE}/stack/webhooks`,
} as const;

export const SELF_HOSTED_ROUTES = {
  dashboards: '/api/v2/dashboards',
  dashboard: '/api/v2/dashboards/{id}',
  alerts: '/api/v2/alerts',
  alert: '/api/v2/alerts/{id}',
  sources: '/api/v2/sources',
  webhooks: '/api/v2/webhooks',
} as const;

/** The stack routes both variants share, by role. */
export interface StackRoutes {
  dashboards: string;
  dashboard: string;
  alerts: string;
  alert: string;
}

/** Fills `{name}` placeholders with URI-encoded values; a placeholder without a value is a bug. */
export function fillRoute(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`route ${template} needs ${name}`);
    return encodeURIComponent(value);
  });
}

/** The single placeholder of a resource route, e.g. `dashboardId` in `…/dashboards/{dashboardId}`. */
export function idParam(template: string): string {
  const match = /\{(\w+)\}$/.exec(template);
  if (!match?.[1]) throw new Error(`route ${template} has no trailing id`);
  return match[1];
}
