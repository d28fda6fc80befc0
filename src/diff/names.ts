/**
 * Names a manifest may use instead of ids (a tile's data source, an alert's webhook): each kind's
 * descriptor says which lists its manifests name things in and how a name becomes an id. The
 * lists are read only when some manifest of the target uses a name (`namesUsed`). Pure: the lists
 * come in, resolved copies come out.
 */
import { descriptorOf, type DesiredResource, type NameList, type NameLists } from '../kinds/index.js';
import { changeKey, type ChangeKey } from '../model/plan.js';

export type { NameLists } from '../kinds/index.js';

/** Which lists the manifests of one target need. */
export type NamesUsed = Record<NameList, boolean>;

export interface ResolvedNames {
  /** Every resource, names replaced by ids where they resolved (unchanged otherwise). */
  resources: DesiredResource[];
  /** `Kind/key` → why it cannot be planned (a name that names nothing). */
  unresolved: Map<ChangeKey, string>;
}

export function namesUsed(resources: readonly DesiredResource[]): NamesUsed {
  const used: NamesUsed = { sources: false, webhooks: false };
  for (const resource of resources) for (const list of descriptorOf(resource.kind).names?.uses(resource) ?? []) used[list] = true;
  return used;
}

export function resolveNames(target: string, resources: readonly DesiredResource[], lists: NameLists): ResolvedNames {
  const unresolved = new Map<ChangeKey, string>();
  const resolved = resources.map((resource): DesiredResource => {
    const names = descriptorOf(resource.kind).names;
    const outcome: DesiredResource | string = names ? names.resolve(resource, lists, target) : resource;
    if (typeof outcome === 'string') {
      unresolved.set(changeKey(resource.kind, resource.key), outcome);
      return resource;
    }
    return outcome;
  });
  return { resources: resolved, unresolved };
}
