/**
 * Schema validation of one manifest document. Pure: takes a document's plain value, returns the
 * typed manifest or the issues, each naming the node it is about (the loader finds their lines).
 */
import type { ValidateFunction } from 'ajv';
import type { Column, FieldMapping, PipeSettings } from '../model/resources.js';
import type { Kind } from '../model/kinds.js';
import type { AlertFields, ManifestTile } from '../model/desired.js';
import { describeIssues, type DescribedIssue } from '../yaml/positions.js';
import type { JsonSchema } from '../schema/api.js';
import { createAjv } from '../schema/validate.js';
import { DOCUMENT_SCHEMAS, MANIFEST_PATTERN_MESSAGES, WHOLE_MESSAGES, envelopeSchema } from '../schema/manifest.js';

export interface ManifestMetadata {
  name: string;
  target?: string;
}

export interface PipeSpec {
  pipeId: string;
  name?: string;
  /** One kind block (members, `credentials`/`accessKey` as secret references, postgres `tableMappings`) and `validateSamples`. */
  source?: Record<string, Record<string, unknown> | boolean>;
  destination?: { columns?: Column[] };
  fieldMappings?: FieldMapping[];
  settings?: PipeSettings;
}

export interface DashboardSpec {
  name: string;
  tags?: string[];
  tiles?: ManifestTile[];
}

/** Alert spec: `name` is required, because stacksync finds live alerts by name. */
export interface AlertSpec extends AlertFields {
  name: string;
}

interface ManifestOf<K extends Kind, S> {
  apiVersion: string;
  kind: K;
  metadata: ManifestMetadata;
  spec: S;
}

/** A document that passed the schema of its kind. */
export type Manifest = ManifestOf<'Pipe', PipeSpec> | ManifestOf<'Dashboard', DashboardSpec> | ManifestOf<'Alert', AlertSpec>;

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
  return typeof kind === 'string' && Object.hasOwn(DOCUMENT_SCHEMAS, kind) ? DOCUMENT_SCHEMAS[kind as Kind] : envelopeSchema;
}
