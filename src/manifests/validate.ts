/**
 * Schema validation of one manifest document. Pure: takes a document's plain value, returns the
 * typed manifest or the issues, each naming the node it is about (the loader finds their lines).
 */
import { KINDS, type Kind } from '../model/kinds.js';
import type { Manifest } from '../model/manifest.js';
import { describeIssues, type DescribedIssue } from '../yaml/positions.js';
import type { JsonSchema } from '../schema/api.js';
import { validatorOf, type NamedSchema } from '../schema/validate.js';
import { MANIFEST_PATTERN_MESSAGES, WHOLE_MESSAGES, envelopeSchema } from '../schema/manifest.js';
import { descriptorOf } from '../kinds/index.js';

export type ManifestCheck = { ok: true; manifest: Manifest } | { ok: false; issues: DescribedIssue[] };

/** Validates a document against the schema of its kind (or the envelope, when the kind is unknown). */
export function validateManifest(value: unknown): ManifestCheck {
  const named = schemaFor(value);
  const validate = validatorOf(named);
  if (validate(value)) return { ok: true, manifest: value as Manifest };
  const issues = describeIssues(validate.errors ?? [], value, { schema: named.schema, patternMessages: MANIFEST_PATTERN_MESSAGES, wholeMessages: WHOLE_MESSAGES });
  return { ok: false, issues };
}

/** The schema of a kind's documents, under the name its validator is cached and built by (export checks what it writes with it too). */
export function manifestSchemaOf(kind: Kind): NamedSchema {
  return { name: `manifest:${kind}`, schema: descriptorOf(kind).schema };
}

const ENVELOPE: NamedSchema = { name: 'manifest:envelope', schema: envelopeSchema };

/** Every schema a manifest is validated against. */
export function manifestSchemas(): NamedSchema[] {
  return [...KINDS.map(manifestSchemaOf), ENVELOPE];
}

function schemaFor(value: unknown): NamedSchema {
  const kind = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)['kind'] : undefined;
  return typeof kind === 'string' && (KINDS as readonly string[]).includes(kind) ? manifestSchemaOf(kind as Kind) : ENVELOPE;
}
