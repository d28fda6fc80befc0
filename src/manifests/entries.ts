/**
 * A manifest document as the checks see it: its identity (kind, name and target, told even when
 * its body is invalid), and the problems found about it, each naming the node it is about.
 */
import type { Kind } from '../model/kinds.js';
import { KINDS } from '../kinds/registry.js';
import type { Config } from '../model/config.js';
import type { SecretValue } from '../model/desired.js';
import type { Pointer } from '../yaml/positions.js';
import type { SourceLocation } from '../errors.js';
import type { LoadProblem } from '../model/desired.js';
import { formatPath } from '../schema/validate.js';
import type { Manifest } from '../model/manifest.js';

/** The target given to documents when validating without a config. */
export const UNCONFIGURED_TARGET = '(default)';

/** What could be told about a document even if it failed its schema. */
export interface DocumentIdentity {
  kind?: Kind;
  name?: string;
  /** `metadata.target` as written. */
  declaredTarget?: string;
  /** The target the document belongs to, when it is known (configured, or declared/default without a config). */
  target?: string;
}

/** One document of a manifest file, as the checks see it. */
export interface SourceDocument {
  file: string;
  /** 0-based index of the document in its file, empty documents counted. */
  index: number;
  value: unknown;
  /** Where the document's content starts. */
  location: SourceLocation;
  /** For one item of a `metadata.forEach` template: the variables the item set. */
  itemVars?: readonly string[];
}

/** The node a problem is about; its line is found once all checks are done (see `load.ts`). */
export interface NodeRef {
  doc: SourceDocument;
  pointer: Pointer;
  at: 'key' | 'value';
}

/** A problem whose location is, for now, its document's start; `node` says where it belongs. */
export interface FoundProblem extends LoadProblem {
  node?: NodeRef;
}

export interface Entry {
  doc: SourceDocument;
  identity: DocumentIdentity;
  /** Present when the document passed the schema of its kind. */
  manifest?: Manifest;
  /** Secret values its `${NAME}` references took (see `vars.ts`); masked in every output. */
  sensitive?: SecretValue[];
}

/**
 * The targets a document names beyond one: a `metadata.target` list, or every configured target
 * for `metadata.targets: all`. Undefined for a document of one target (or none), which
 * `identify` handles.
 */
export function expandedTargets(
  value: unknown,
  config: Config | undefined,
): { targets: string[]; declared: boolean } | undefined {
  const metadata = asRecord(asRecord(value)?.['metadata']);
  if (metadata?.['targets'] === 'all' && metadata['target'] === undefined) {
    return { targets: config ? config.targets.map((target) => target.name) : [UNCONFIGURED_TARGET], declared: false };
  }
  const list = metadata?.['target'];
  if (!Array.isArray(list) || list.length === 0 || !list.every((item) => typeof item === 'string')) return undefined;
  return { targets: [...new Set(list as string[])], declared: true };
}

/** The identity of one expansion of a document to `target`. */
export function identifyFor(
  value: unknown,
  config: Config | undefined,
  target: string,
  declared: boolean,
): DocumentIdentity {
  const identity = identify(value, config);
  delete identity.target;
  if (declared) identity.declaredTarget = target;
  if (!config || config.targets.some((t) => t.name === target)) identity.target = target;
  return identity;
}

/** Kind, name and target of a document, read leniently from its plain value. */
export function identify(value: unknown, config: Config | undefined): DocumentIdentity {
  const record = asRecord(value);
  const metadata = asRecord(record?.['metadata']);
  const identity: DocumentIdentity = {};
  const kind = record?.['kind'];
  if (typeof kind === 'string' && (KINDS as readonly string[]).includes(kind)) identity.kind = kind as Kind;
  if (typeof metadata?.['name'] === 'string') identity.name = metadata['name'];
  if (typeof metadata?.['target'] === 'string') identity.declaredTarget = metadata['target'];
  // Without metadata there is no telling whose document this was meant to be.
  if (!metadata) return identity;
  const target = identity.declaredTarget ?? config?.defaultTarget ?? UNCONFIGURED_TARGET;
  if (!config || config.targets.some((t) => t.name === target)) identity.target = target;
  return identity;
}

/** The value as a mapping, or undefined for anything else (a list, a scalar, null). */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

export function subjectOf(identity: DocumentIdentity): string | undefined {
  return identity.kind && identity.name ? `${identity.kind}/${identity.name}` : undefined;
}

/** A problem about the node a pointer names, attributed to the document's target. */
export function problemAt(
  entry: Entry,
  code: LoadProblem['code'],
  pointer: Pointer,
  message: string,
  at: 'key' | 'value' = 'value',
): FoundProblem {
  const path = formatPath(pointer);
  const problem: FoundProblem = {
    code,
    message: path ? `${path}: ${message}` : message,
    location: { ...entry.doc.location },
    node: { doc: entry.doc, pointer, at },
  };
  if (entry.identity.target !== undefined) problem.target = entry.identity.target;
  const subject = subjectOf(entry.identity);
  if (subject) problem.subject = subject;
  return problem;
}
