/**
 * Schema validation of one manifest document. Pure: takes a document's plain value, returns the
 * typed manifest or the issues, each naming the node it is about (the loader finds their lines).
 */
import type { ValidateFunction } from 'ajv';
import { KINDS, type Kind } from '../model/kinds.js';
import type { Manifest } from '../model/manifest.js';
import { describeIssues, type DescribedIssue } from '../yaml/positions.js';
import type { JsonSchema } from '../schema/api.js';
import { createAjv } from '../schema/validate.js';
import { MANIFEST_PATTERN_MESSAGES, WHOLE_MESSAGES, envelopeSchema } from '../schema/manifest.js';
import { descriptorOf } from '../kinds/index.js';

export type ManifestCheck = { ok: true; manifest: Manifest } | { ok: false; issues: DescribedIssue[] };

const ajv = createAjv();
const validators = new Map<JsonSchema, ValidateFunction>();

function validatorFor(schema: JsonSchema): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  return validate;
}

/** Validates a document against the schema of its kind (or the envelope, when the kind is unknown). */
export function validateManifest(value: unknown): ManifestCheck {
  const schema = schemaFor(value);
  const validate = validatorFor(schema);
  if (validate(value)) return { ok: true, manifest: value as Manifest };
  const issues = describeIssues(validate.errors ?? [], value, { schema, patternMessages: MANIFEST_PATTERN_MESSAGES, wholeMessages: WHOLE_MESSAGES });
  return { ok: false, issues };
}

function schemaFor(value: unknown): JsonSchema {
  const kind = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)['kind'] : undefined;
  return typeof kind === 'string' && (KINDS as readonly string[]).includes(kind) ? descriptorOf(kind as Kind).schema : envelopeSchema;
}
