/**
 * Route templates of both variants, exactly as hooks, metrics, logs and errors name them (the
 * emulator's `/_emulator/stats` uses the same strings), and how a template becomes a path. The
 * kinds' routes are their descriptors'; the lists manifests name things in are here.
 */
import { MANAGED_SERVICE, SELF_HOSTED_API } from '../kinds/kit/routes.js';

/** The lists a manifest names things in (sources, webhooks) that are not kinds of their own. */
export const LOOKUP_ROUTES = {
  managed: { sources: `${MANAGED_SERVICE}/stack/sources`, webhooks: `${MANAGED_SERVICE}/stack/webhooks` },
  'self-hosted': { sources: `${SELF_HOSTED_API}/sources`, webhooks: `${SELF_HOSTED_API}/webhooks` },
} as const;

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
