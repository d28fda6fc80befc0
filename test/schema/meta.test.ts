/**
 * Every schema stacksync compiles is a valid JSON Schema. The commands compile them without
 * checking them against the meta-schema (`createAjv`, `validateSchema: false`), so this is where
 * a schema that ajv would read wrongly, or not at all, is caught.
 */
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds/registry.js';
import { descriptorOf } from '../../src/kinds/index.js';
import { JOURNAL_LINE_SCHEMAS, STATE_FILE_SCHEMA } from '../../src/state/format.js';
import { fileSchema } from '../../src/emulator/persistence.js';
import { seedSchemaFor } from '../../src/emulator/seed.js';
import { CONFIG_SCHEMA } from '../../src/config/load.js';
import { envelopeSchemaOf } from '../../src/schema/manifest.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
/** The modules that export schemas: src/schema/, and each kind's wire and manifest schemas in its folder. */
const SCHEMA_MODULES = [
  ...readdirSync(`${SRC}schema`)
    .filter((name) => name.endsWith('.ts'))
    .map((name) => `schema/${name}`),
  'kinds/wire.ts',
  ...readdirSync(`${SRC}kinds`, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => ['wire.ts', 'schema.ts'].map((file) => `kinds/${entry.name}/${file}`))
    .filter((path) => existsSync(`${SRC}${path}`)),
];
const SCHEMA_KEYWORDS = ['type', 'anyOf', 'oneOf', 'allOf', 'properties', '$ref', 'const', 'enum'];

function looksLikeSchema(value: unknown): value is Record<string, unknown> {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    SCHEMA_KEYWORDS.some((keyword) => keyword in value)
  );
}

/** Every schema the schema modules export, by `module.export`, and the others the commands compile. */
async function allSchemas(): Promise<[string, Record<string, unknown>][]> {
  const found: [string, Record<string, unknown>][] = [];
  for (const file of SCHEMA_MODULES) {
    const module = (await import(`${SRC}${file}`)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      if (looksLikeSchema(value)) found.push([`${file}:${name}`, value]);
      else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        for (const [member, inner] of Object.entries(value))
          if (looksLikeSchema(inner)) found.push([`${file}:${name}.${member}`, inner]);
      }
    }
  }
  for (const kind of KINDS) found.push([`kind:${kind}`, descriptorOf(kind).schema as Record<string, unknown>]);
  found.push(['config', CONFIG_SCHEMA.schema as Record<string, unknown>]);
  found.push(['manifest:envelope', envelopeSchemaOf(KINDS) as Record<string, unknown>]);
  found.push(['state:file', STATE_FILE_SCHEMA as Record<string, unknown>]);
  for (const [type, schema] of Object.entries(JOURNAL_LINE_SCHEMAS))
    found.push([`state:journal:${type}`, schema as Record<string, unknown>]);
  found.push(['emulator:data-file', fileSchema as Record<string, unknown>]);
  for (const profile of ['seed', 'current'] as const)
    found.push([`emulator:seed:${profile}`, seedSchemaFor(profile) as Record<string, unknown>]);
  return found;
}

const schemas = await allSchemas();
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const checker = addFormats(new Ajv({ allErrors: true, strict: false }));

describe('every schema stacksync compiles', () => {
  it('is found: the kinds, the config, the API bodies, the state and the emulator files', () => {
    const names = schemas.map(([name]) => name);
    expect(names).toEqual(
      expect.arrayContaining([
        'config',
        'manifest:envelope',
        'kinds/dashboard/wire.ts:CurrentDashboardWrite',
        'kinds/pipe/wire.ts:pipeCreateBodySchema',
        'kind:Dashboard',
        'kind:Alert',
        'kind:Pipe',
        'state:file',
        'emulator:seed:current',
      ]),
    );
    expect(names.length).toBeGreaterThan(200);
  });

  it.each(schemas)('%s is a valid JSON Schema', (_name, schema) => {
    const valid = checker.validateSchema(schema);
    expect(valid === true ? [] : checker.errors).toEqual([]);
  });

  it('refuses an invalid schema', () => {
    expect(
      checker.validateSchema({ type: 'object', properties: { count: { type: 'integer', minimum: 'zero' } } }),
    ).toBe(false);
    expect(checker.validateSchema({ type: 'object', required: 'name' })).toBe(false);
  });
});
