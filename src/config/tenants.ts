/**
 * Which tenant a manifest file belongs to (docs/many-services.md#tenants): pure. A tenant's paths
 * are globs relative to the manifests directory, matched against a file's path inside it with `/`
 * between segments: `*` and `?` stay within a segment, `**` spans any number of them, and a path
 * that matches a directory takes everything under it (`teams/payments/` or `teams/payments`).
 * Small enough to keep here rather than add a dependency for it.
 */
import type { Tenant } from '../model/config.js';

/** A glob as a regular expression over a `/`-separated relative path. */
export function globPattern(glob: string): RegExp {
  const trimmed = glob.replace(/^\.\//, '').replace(/\/+$/, '');
  let source = '';
  for (let index = 0; index < trimmed.length; index++) {
    const char = trimmed[index] as string;
    if (char === '*' && trimmed[index + 1] === '*') {
      // `**/` is any number of whole directories, none included; a `**` elsewhere is anything.
      const slash = trimmed[index + 2] === '/';
      source += slash ? '(?:[^/]+/)*' : '.*';
      index += slash ? 2 : 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  // A directory takes everything under it.
  return new RegExp(`^${source}(?:/.*)?$`);
}

/** Why a tenant's path can never match a file of the manifests directory, or undefined. */
export function tenantPathProblem(glob: string): string | undefined {
  if (glob.startsWith('/') || /^[A-Za-z]:/.test(glob)) return 'must be relative to the manifests directory';
  if (glob.split('/').includes('..')) return 'must stay inside the manifests directory (no ..)';
  if (glob.includes('\\')) return 'separates directories with /, not \\';
  return undefined;
}

/** Matches relative manifest paths to tenants: the compiled form of the config's `tenants`. */
export interface TenantMatcher {
  /** The tenants whose paths take the file at `relative` (a path inside the manifests directory). */
  tenantsOf(relative: string): Tenant[];
}

export function tenantMatcher(tenants: readonly Tenant[]): TenantMatcher {
  const compiled = tenants.map((tenant) => ({ tenant, patterns: tenant.paths.map(globPattern) }));
  const known = new Map<string, Tenant[]>();
  return {
    tenantsOf(relative) {
      const path = relative.split('\\').join('/').replace(/^\.\//, '');
      let found = known.get(path);
      if (!found) {
        found = compiled
          .filter(({ patterns }) => patterns.some((pattern) => pattern.test(path)))
          .map(({ tenant }) => tenant);
        known.set(path, found);
      }
      return found;
    },
  };
}
