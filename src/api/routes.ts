/**
 * How a route template becomes a path. The templates are the kinds' descriptors'
 * (`kinds/shared/routes.ts`), exactly as hooks, metrics, logs and errors name them.
 */

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
