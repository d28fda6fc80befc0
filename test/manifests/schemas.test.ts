/**
 * The published JSON Schemas (schemas/*.json) are what the code generates, work on their own in a
 * plain JSON Schema validator, and accept the example manifests; the examples load cleanly with
 * the loader; and the README's reference names every field the schemas have.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { DEFAULT_SEED_IDS } from '../../src/emulator/index.js';
import { loadManifests } from '../../src/manifests/load.js';
import type { DesiredPipe } from '../../src/kinds/pipe/model.js';
import { publishedSchemas } from '../../src/schema/manifest.js';
import type { JsonSchema } from '../../src/schema/api.js';
import { createAjv } from '../../src/schema/validate.js';

const root = join(import.meta.dirname, '..', '..');
const schemasDir = join(root, 'schemas');
const manifestsDir = join(root, 'manifests');
const generated = publishedSchemas();

function exampleFiles(): string[] {
  return readdirSync(manifestsDir).filter((name) => /\.ya?ml$/.test(name)).sort();
}

function exampleDocuments(): { file: string; value: Record<string, unknown> }[] {
  return exampleFiles().flatMap((file) =>
    parseAllDocuments(readFileSync(join(manifestsDir, file), 'utf8'))
      .map((doc) => doc.toJS() as Record<string, unknown>)
      .filter((value) => value !== null)
      .map((value) => ({ file, value })),
  );
}

describe('published schemas', () => {
  it('are exactly what the code generates (run npm run build && node scripts/write-schemas.mjs)', () => {
    expect(readdirSync(schemasDir).sort()).toEqual(Object.keys(generated).sort());
    for (const [name, schema] of Object.entries(generated)) {
      expect(readFileSync(join(schemasDir, name), 'utf8'), name).toBe(`${JSON.stringify(schema, null, 2)}\n`);
    }
  });

  it('carry $schema, $id, title and description', () => {
    for (const [name, schema] of Object.entries(generated)) {
      expect(schema['$schema'], name).toBe('http://json-schema.org/draft-07/schema#');
      expect(schema['$id'], name).toMatch(/^urn:stacksync:schema:v1:/);
      expect(schema['title'], name).toEqual(expect.any(String));
      expect(schema['description'], name).toEqual(expect.any(String));
    }
  });

  it('validate the example manifests on their own, per kind and as manifest.json', () => {
    const ajv = createAjv();
    const byKind = { Pipe: 'pipe.json', Dashboard: 'dashboard.json', Alert: 'alert.json' } as Record<string, string>;
    const compiled = Object.fromEntries(Object.entries(generated).map(([name, schema]) => [name, ajv.compile(schema)]));
    const documents = exampleDocuments();
    expect(documents.length).toBeGreaterThan(10);
    for (const { file, value } of documents) {
      const kindFile = byKind[String(value['kind'])] ?? '';
      expect(compiled[kindFile]?.(value), `${file} against ${kindFile}`).toBe(true);
      expect(compiled['manifest.json']?.(value), `${file} against manifest.json`).toBe(true);
    }
    const broken = { ...documents[0]?.value, kind: 'Widget' };
    expect(compiled['manifest.json']?.(broken)).toBe(false);
  });

  it('validate the example config', () => {
    const validate = createAjv().compile(generated['config.json'] as JsonSchema);
    const config = parseAllDocuments(readFileSync(join(root, 'config', 'emulator.yaml'), 'utf8'))[0]?.toJS();
    expect(validate(config), JSON.stringify(validate.errors)).toBe(true);
  });
});

describe('example manifests and config', () => {
  it('load with no problem and no warning', async () => {
    const { config, warnings: configWarnings } = await loadConfig(join(root, 'config', 'emulator.yaml'));
    expect(configWarnings).toEqual([]);
    expect(config.targets.map((t) => `${t.name}:${t.variant}:${t.baseUrl}`)).toEqual(['local:managed:http://127.0.0.1:4010', 'local-selfhosted:self-hosted:http://127.0.0.1:4010']);
    expect(config.targets[0]).toMatchObject({ organizationId: DEFAULT_SEED_IDS.organizationId, serviceId: DEFAULT_SEED_IDS.serviceId });
    expect(JSON.stringify(config.targets.map((t) => t.auth))).toBe(
      JSON.stringify([{ keyId: { fromEnv: 'STACKSYNC_KEY_ID' }, keySecret: { fromEnv: 'STACKSYNC_KEY_SECRET' } }, { token: { fromEnv: 'STACKSYNC_TOKEN' } }]),
    );
    const result = await loadManifests(manifestsDir, { config, env: {}, hmac: (v) => `h${v.length}` });
    expect(result.problems).toEqual([]);
    expect(result.warnings).toEqual([]);
    const pipes = result.resources.filter((r): r is DesiredPipe => r.kind === 'Pipe' && r.pipeId !== undefined);
    // One born in Git of each class: streaming, object storage, database (CDC).
    const born = result.resources.filter((r): r is DesiredPipe => r.kind === 'Pipe' && r.pipeId === undefined);
    expect(born.map((p) => `${p.name ?? ''}:${p.source?.kind ?? '-'}:${p.born?.state ?? '-'}`).sort()).toEqual(['audit-logs-s3:objectStorage:Running', 'inventory-cdc:postgres:Running', 'payments-stream:kafka:Running']);
    expect(pipes.map((p) => `${p.pipeId}:${p.source?.kind ?? '-'}`).sort()).toEqual([
      `${DEFAULT_SEED_IDS.pipes.kafka}:kafka`,
      `${DEFAULT_SEED_IDS.pipes.objectStorage}:objectStorage`,
      `${DEFAULT_SEED_IDS.pipes.kinesis}:-`,
      `${DEFAULT_SEED_IDS.pipes.postgres}:postgres`,
    ]);
    const postgres = pipes.find((p) => p.source?.kind === 'postgres');
    expect(postgres?.source?.tableMappings?.map((m) => `${m.sourceSchemaName}.${m.sourceTable}`)).toEqual(['public.invoices', 'public.customers', 'public.payments']);
    const kafka = pipes.find((p) => p.source?.kind === 'kafka');
    expect(Object.keys(kafka?.source?.secrets?.[0]?.fields ?? {})).toEqual(['username', 'password']);
    const count = (kind: string, target: string) => result.resources.filter((r) => r.kind === kind && r.target === target).length;
    expect(count('Dashboard', 'local')).toBeGreaterThanOrEqual(2);
    expect(count('Alert', 'local')).toBeGreaterThanOrEqual(2);
    expect(count('Dashboard', 'local-selfhosted')).toBe(1);
    expect(count('Alert', 'local-selfhosted')).toBe(1);
  });

  it('each start with the yaml-language-server line naming the schema of their kinds', () => {
    const schemaOf = { Pipe: 'pipe.json', Dashboard: 'dashboard.json', Alert: 'alert.json' } as Record<string, string>;
    const documents = exampleDocuments();
    for (const file of exampleFiles()) {
      const first = readFileSync(join(manifestsDir, file), 'utf8').split('\n')[0];
      const kinds = [...new Set(documents.filter((d) => d.file === file).map((d) => String(d.value['kind'])))];
      const expected = kinds.length === 1 ? schemaOf[kinds[0] ?? ''] : 'manifest.json';
      expect(first, file).toBe(`# yaml-language-server: $schema=../schemas/${expected}`);
    }
    expect(readFileSync(join(root, 'config', 'emulator.yaml'), 'utf8').split('\n')[0]).toBe('# yaml-language-server: $schema=../schemas/config.json');
  });
});

describe('README: configuration and manifest reference', () => {
  const doc = readFileSync(join(root, 'README.md'), 'utf8');

  /** A `### heading` section of the reference, up to the next heading of that level or above. */
  function section(heading: string): string {
    const start = doc.indexOf(`\n### ${heading}`);
    expect(start, `section "### ${heading}"`).toBeGreaterThanOrEqual(0);
    const ends = ['\n### ', '\n## '].map((marker) => doc.indexOf(marker, start + 1)).filter((index) => index >= 0);
    return doc.slice(start, ends.length > 0 ? Math.min(...ends) : undefined);
  }

  /** The members a schema names at `path`; of a schema in two forms (`if`/`then`/`else`), those of both. */
  function members(schema: JsonSchema | undefined, ...path: string[]): string[] {
    let current: JsonSchema | undefined = schema;
    for (const name of path) current = (current?.['properties'] as Record<string, JsonSchema> | undefined)?.[name];
    const forms = [current, current?.['then'] as JsonSchema | undefined, current?.['else'] as JsonSchema | undefined];
    return [...new Set(forms.flatMap((form) => Object.keys((form?.['properties'] as Record<string, unknown> | undefined) ?? {})))];
  }

  it.each([
    ['Pipe', 'pipe.json'],
    ['Dashboard', 'dashboard.json'],
    ['Alert', 'alert.json'],
  ])('names every spec field of %s in its section', (kind, file) => {
    const text = section(kind);
    const fields = members(generated[file], 'spec');
    expect(fields.length).toBeGreaterThan(2);
    for (const field of fields) expect(text, `${kind}.spec.${field}`).toContain(`\`${field}\``);
  });

  it('names every config field and every metadata field', () => {
    const config = section('Configuration');
    const schema = generated['config.json'];
    const targetSchema = (schema?.['properties'] as Record<string, JsonSchema>)['targets']?.['items'] as JsonSchema;
    for (const field of [...members(schema), ...members(schema, 'sync'), ...members(targetSchema)]) expect(config, field).toContain(`\`${field}\``);
    for (const field of members(generated['pipe.json'], 'metadata')) expect(doc, `metadata.${field}`).toContain(`\`${field}\``);
  });
});
