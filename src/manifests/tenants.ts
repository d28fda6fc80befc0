/**
 * Tenants of the manifests (docs/many-services.md#tenants): which tenant each file belongs to,
 * and what a tenant's manifest may not name. Pure: the matching is `config/tenants.ts`.
 */
import { relative, resolve } from 'node:path';
import type { Tenant } from '../model/config.js';
import { tenantMatcher } from '../config/tenants.js';
import { problemAt, type Entry, type FoundProblem } from './entries.js';

/**
 * The tenants of each file (by the path messages show), from its path inside the manifests
 * directory shown as `root`: none, one, or (a mistake of the config) several.
 */
export function fileTenants(files: readonly string[], root: string, tenants: readonly Tenant[]): Map<string, Tenant[]> {
  const matcher = tenantMatcher(tenants);
  const base = resolve(root);
  return new Map(files.map((file) => [file, matcher.tenantsOf(relative(base, resolve(file)))]));
}

/** What a tenant may touch, in words: `targets prod and kinds Dashboard, Alert`. */
export function tenantScope(tenant: Tenant): string {
  return (
    `target${tenant.targets.length === 1 ? '' : 's'} ${tenant.targets.join(', ')} and ` +
    `kind${tenant.kinds.length === 1 ? '' : 's'} ${tenant.kinds.join(', ')}`
  );
}

/**
 * The problem of an entry its file's tenants do not allow: a file in no tenant's paths, in the
 * paths of several, or naming a target or kind its tenant may not touch. Each is at the line of
 * what it is about and names the tenant and what it may touch.
 */
export function tenantProblem(
  entry: Entry,
  tenants: readonly Tenant[],
  all: readonly Tenant[],
): FoundProblem | undefined {
  const problem = (pointer: (string | number)[], message: string, who: readonly Tenant[]): FoundProblem => ({
    ...problemAt(entry, 'E_TENANT_VIOLATION', pointer, message),
    tenants: who.map((tenant) => tenant.name),
  });
  const [tenant, ...others] = tenants;
  if (!tenant) {
    const listed = all.map((each) => `${each.name} (${each.paths.join(', ')})`).join('; ');
    return problem(
      [],
      `is in no tenant's paths; with tenants configured every manifest belongs to one (tenants: ${listed})`,
      [],
    );
  }
  if (others.length > 0) {
    const names = tenants.map((each) => each.name);
    return problem(
      [],
      `is in the paths of tenants ${names.slice(0, -1).join(', ')} and ${names.at(-1)}; a manifest belongs to one tenant (make their paths apart)`,
      tenants,
    );
  }
  const { kind, target, declaredTarget } = entry.identity;
  if (kind !== undefined && !tenant.kinds.includes(kind)) {
    return problem(['kind'], `is a ${kind}; tenant ${tenant.name} may touch only ${tenantScope(tenant)}`, [tenant]);
  }
  const named = target ?? declaredTarget;
  if (named !== undefined && !tenant.targets.includes(named)) {
    const pointer = declaredTarget === undefined ? [] : ['metadata', 'target'];
    return problem(pointer, `names target ${named}; tenant ${tenant.name} may touch only ${tenantScope(tenant)}`, [
      tenant,
    ]);
  }
  return undefined;
}
