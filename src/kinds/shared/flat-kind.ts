/**
 * The descriptor of a kind that is a flat set of members matched by API name (sources,
 * connections, webhooks, saved searches): everything but what is the kind's own — where it lives,
 * what it names, its secrets, its members as the API takes them, its export — is the same.
 */
import type { Kind } from '../../model/kinds.js';
import type { JsonSchema } from '../../schema/build.js';
import {
  defineKind,
  type KindDescriptor,
  type KindExport,
  type KindTags,
  type KindPlan,
  type KindManifests,
  type KindPlanInput,
  type NamedByName,
  type SecretSite,
} from '../descriptor.js';
import { planNamed, type NamedKind, type NamedOutcome } from './named.js';
import { readFlat, type LiveFlat } from './flat-live.js';
import { flatManifests, type DesiredFlat, type FlatManifest } from './flat-manifests.js';
import { POINTER_REFS } from './refs.js';

export interface FlatKind<K extends Kind, C extends string> {
  kind: K;
  collection: C;
  /** Its manifest document's schema (`kinds/<kind>/schema.ts`). */
  schema: JsonSchema;
  routes: KindDescriptor['routes'];
  references: readonly Kind[];
  /** Spec members that hold secret references, and where each reference is. */
  secrets?: { members: readonly string[]; sites(spec: Record<string, unknown>): SecretSite[] };
  /** The names its manifests give for other kinds' resources (`KindManifests.namedByName`). */
  namedByName?(manifest: FlatManifest): NamedByName[];
  /** What a target cannot take of its manifests (`KindManifests.checkForTarget`). */
  checkForTarget?: KindManifests<DesiredFlat<K>, FlatManifest>['checkForTarget'];
  /** Its members as the API takes them, what a create needs, what its secrets add. */
  rules: Omit<NamedKind<DesiredFlat<K>>, 'kind'>;
  /** After its plan: what deletes of the kinds it names leave behind (the server's doing, said on the delete). */
  afterPlan?(plan: KindPlan<NamedOutcome[]>, input: KindPlanInput<DesiredFlat<K>, LiveFlat>): void;
  export: KindExport<LiveFlat>;
  /** The member holding its tags, for a kind that has them (`KindDescriptor.tags`). */
  tags?: string;
}

export function flatKind<K extends Kind, C extends string>(spec: FlatKind<K, C>) {
  return defineKind<DesiredFlat<K>, LiveFlat, FlatManifest, K, C, NamedOutcome[]>({
    kind: spec.kind,
    collection: spec.collection,
    schema: spec.schema,
    routes: spec.routes,
    identity: 'name',
    references: spec.references,
    createOnly: [],
    manifests: {
      ...flatManifests(spec.kind, spec.secrets?.members, spec.secrets?.sites),
      ...(spec.namedByName && { namedByName: spec.namedByName }),
      ...(spec.checkForTarget && { checkForTarget: spec.checkForTarget }),
    },
    reader: { read: readFlat, statusMembers: [] },
    refs: POINTER_REFS,
    plan: (input) => {
      const plan = planNamed(input, { kind: spec.kind, ...spec.rules });
      spec.afterPlan?.(plan, input);
      return plan;
    },
    prune: { allowed: () => true, forgetWhenGone: true },
    export: spec.export,
    ...(spec.tags === undefined ? {} : { tags: flatTags(spec.tags) }),
  });
}

/** The tags of a flat kind: a list of strings in one of its members. */
function flatTags(member: string): KindTags<LiveFlat> {
  return {
    member,
    of: (live) => {
      const tags = live.members[member];
      return Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === 'string') : undefined;
    },
    withTags: (live, tags) => ({ ...live, members: { ...live.members, [member]: [...tags] } }),
  };
}
