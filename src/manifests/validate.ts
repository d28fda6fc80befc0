/**
 * Schema validation of one manifest document. Pure: takes a document's plain value, returns the
 * typed manifest or the issues, each naming the node it is about (the loader finds their lines).
 */
import type { Kind } from '../model/kinds.js';
import { KINDS } from '../kinds/registry.js';
import type { Manifest } from '../model/manifest.js';
import { describeAjvErrors, type DescribedIssue } from '../yaml/positions.js';
import type { JsonSchema } from '../schema/api.js';
import { validatorOf, type NamedSchema } from '../schema/validate.js';
import { MANIFEST_PATTERN_MESSAGES, WHOLE_MESSAGES, envelopeSchemaOf } from '../schema/manifest.js';
import { descriptorOf } from '../kinds/index.js';
import { isRecord } from '../kinds/shared/values.js';

export type ManifestCheck = { ok: true; manifest: Manifest } | { ok: false; issues: DescribedIssue[] };

/** Validates a document against the schema of its kind (or the envelope, when the kind is unknown). */
export function validateManifest(value: unknown): ManifestCheck {
  const named = manifestSchemaFor(value);
  const validate = validatorOf(named);
  if (validate(value)) return { ok: true, manifest: value as Manifest };
  const issues = describeAjvErrors(validate.errors ?? [], value, {
    schema: named.schema,
    patternMessages: MANIFEST_PATTERN_MESSAGES,
    wholeMessages: WHOLE_MESSAGES,
  });
  return { ok: false, issues };
}

/** The schema of a kind's documents, under the name its validator is cached and built by. */
export function manifestSchemaOf(kind: Kind): NamedSchema {
  return { name: `manifest:${kind}`, schema: descriptorOf(kind).schema };
}

const ENVELOPE: NamedSchema = { name: 'manifest:envelope', schema: envelopeSchemaOf(KINDS) };

/** Every schema a manifest is validated against: each kind's, the forms of those that have them, and the envelope. */
export function manifestSchemas(): NamedSchema[] {
  return [
    ...KINDS.flatMap((kind) => [manifestSchemaOf(kind), ...Object.values(specFormsOf(kind)?.forms ?? {})]),
    ENVELOPE,
  ];
}

/**
 * The schema a document is checked against: its kind's, or the envelope when the kind is unknown;
 * for a kind whose spec takes one of two forms, the form its spec has.
 */
export function manifestSchemaFor(value: unknown): NamedSchema {
  const document = isRecord(value) ? value : {};
  const kind = document['kind'];
  if (typeof kind !== 'string' || !(KINDS as readonly string[]).includes(kind)) return ENVELOPE;
  const spec = document['spec'];
  const forms = specFormsOf(kind as Kind);
  if (!forms || !isRecord(spec)) return manifestSchemaOf(kind as Kind);
  return Object.hasOwn(spec, forms.member) ? forms.forms.with : forms.forms.without;
}

/**
 * The two forms of a kind's spec, where its schema chooses between them by one member
 * (`spec: {if: {required: [member]}, then, else}`: a Pipe names an existing pipe by `pipeId`, or
 * is born in Git). Each form is a schema of its own, the document's with the spec's branch in
 * place of the choice, its subschemas the very same objects (error messages look them up by
 * identity), so it reports what the whole schema reports of a spec of that form. A command then
 * loads the validator of the forms its manifests use: the Pipe's whole one is 500 KB of code, most
 * of it the born form's, which a repository of existing pipes never runs.
 */
function specFormsOf(kind: Kind): { member: string; forms: { with: NamedSchema; without: NamedSchema } } | undefined {
  const cached = formsByKind.get(kind);
  if (cached !== undefined) return cached ?? undefined;
  const schema = descriptorOf(kind).schema;
  const spec = (schema['properties'] as Record<string, JsonSchema> | undefined)?.['spec'];
  const required = (spec?.['if'] as JsonSchema | undefined)?.['required'];
  const member =
    Array.isArray(required) && required.length === 1 && typeof required[0] === 'string' ? required[0] : undefined;
  const forms =
    spec !== undefined && member !== undefined && spec['then'] !== undefined && spec['else'] !== undefined
      ? {
          member,
          forms: {
            with: formSchema(kind, schema, spec, 'then', member),
            without: formSchema(kind, schema, spec, 'else', member),
          },
        }
      : undefined;
  formsByKind.set(kind, forms ?? null);
  return forms;
}

const formsByKind = new Map<Kind, ReturnType<typeof specFormsOf> | null>();

function formSchema(
  kind: Kind,
  schema: JsonSchema,
  spec: JsonSchema,
  branch: 'then' | 'else',
  member: string,
): NamedSchema {
  const { if: _if, then: _then, else: _else, ...rest } = spec;
  const form = { ...rest, ...(spec[branch] as JsonSchema) };
  return {
    name: `manifest:${kind}:${branch === 'then' ? 'with' : 'without'}-${member}`,
    schema: { ...schema, properties: { ...(schema['properties'] as Record<string, JsonSchema>), spec: form } },
  };
}
