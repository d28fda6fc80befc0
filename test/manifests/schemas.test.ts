/**
 * The published JSON Schemas (schemas/*.json, written by `npm run build`, not committed) are what
 * the code generates, one per kind, work on their own in a plain JSON Schema validator, and accept
 * the example manifests; the examples load cleanly with the loader; and the reference in docs/ names every field the schemas have (each kind on its page
 * under docs/manifests/, the config in docs/reference/config.md).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { DEFAULT_SEED_IDS } from '../../src/emulator/index.js';
import { loadManifests } from '../../src/manifests/load.js';
import { DESCRIPTORS } from '../../src/kinds/index.js';
import type { DesiredPipe } from '../../src/kinds/pipe/model.js';
import { publishedSchemas } from '../../src/kinds/index.js';
import type { JsonSchema } from '../../src/schema/api.js';
import { createAjv } from '../../src/schema/validate.js';

const root = join(import.meta.dirname, '..', '..');
const schemasDir = join(root, 'schemas');
const manifestsDir = join(root, 'manifests');
const generated = publishedSchemas();

function exampleFiles(): string[] {
  return readdirSync(manifestsDir)
    .filter((name) => /\.ya?ml$/.test(name))
    .sort();
}

/** The whole-account example: the kinds the seed's examples cannot hold (they need the current profile). */
const accountDir = join(root, 'examples', 'account');

function accountFiles(): string[] {
  return readdirSync(accountDir)
    .filter((name) => /\.ya?ml$/.test(name))
    .sort();
}

function exampleDocuments(
  dir = manifestsDir,
  files = exampleFiles(),
): { file: string; value: Record<string, unknown> }[] {
  return files.flatMap((file) =>
    parseAllDocuments(readFileSync(join(dir, file), 'utf8'))
      .map((doc) => doc.toJS() as Record<string, unknown>)
      .filter((value) => value !== null)
      .map((value) => ({ file, value })),
  );
}

describe('published schemas', () => {
  it('are written by the build, one per kind besides the config and the mixed manifest', () => {
    // Not committed: `npm run build` writes them (scripts/postbuild.mjs → scripts/write-schemas.mjs).
    expect(existsSync(schemasDir), 'schemas/ is missing: run `npm run build` first (`npm test` does)').toBe(true);
    const perKind = DESCRIPTORS.map((descriptor) => `${descriptor.kind.toLowerCase()}.json`);
    expect(readdirSync(schemasDir).sort()).toEqual([...perKind, 'config.json', 'manifest.json'].sort());
  });

  it('are exactly what the code generates (run npm run build)', () => {
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
    const byKind = (kind: string): string => `${kind.toLowerCase()}.json`;
    const compiled = Object.fromEntries(Object.entries(generated).map(([name, schema]) => [name, ajv.compile(schema)]));
    const account = exampleDocuments(accountDir, accountFiles());
    expect(new Set(account.map(({ value }) => value['kind']))).toEqual(
      new Set(['Connection', 'Source', 'Webhook', 'SavedSearch', 'Dashboard', 'Alert']),
    );
    const documents = [...exampleDocuments(), ...account];
    expect(documents.length).toBeGreaterThan(10);
    for (const { file, value } of documents) {
      const kindFile = byKind(String(value['kind']));
      expect(compiled[kindFile]?.(value), `${file} against ${kindFile}`).toBe(true);
      expect(compiled['manifest.json']?.(value), `${file} against manifest.json`).toBe(true);
    }
    const broken = { ...documents[0]?.value, kind: 'Widget' };
    expect(compiled['manifest.json']?.(broken)).toBe(false);
  });

  it("take a forEach template's ${var} names, and still refuse a name that is no name nor template", () => {
    const ajv = createAjv();
    const alert = ajv.compile(generated['alert.json'] as JsonSchema);
    const any = ajv.compile(generated['manifest.json'] as JsonSchema);
    const template = (name: string, webhook = 'oncall-${severity}'): Record<string, unknown> => ({
      apiVersion: 'stacksync/v1',
      kind: 'Alert',
      metadata: { name, forEach: { service: ['payments', 'search'], severity: ['page', 'ticket'] } },
      spec: {
        name: 'Errors in ${service}',
        source: 'saved_search',
        savedSearch: 'errors',
        threshold: 10,
        thresholdType: 'above',
        interval: '5m',
        channel: { type: 'webhook', webhook },
      },
    });
    for (const name of ['errors-${service}-${severity}', '${service}', 'errors-${ENV}', 'plain-name']) {
      expect(alert(template(name)), `${name}: ${JSON.stringify(alert.errors)}`).toBe(true);
      expect(any(template(name)), name).toBe(true);
    }
    // Not a name, and no reference to excuse it; a reference that is no variable name is no template.
    for (const name of ['Errors-Payments', 'errors_${service}', 'errors-${1x}', 'errors-${}', '-bad-']) {
      expect(alert(template(name)), name).toBe(false);
    }
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
    expect(config.targets.map((t) => `${t.name}:${t.variant}:${t.baseUrl}`)).toEqual([
      'local:managed:http://127.0.0.1:4010',
      'local-selfhosted:self-hosted:http://127.0.0.1:4010',
    ]);
    expect(config.targets[0]).toMatchObject({
      organizationId: DEFAULT_SEED_IDS.organizationId,
      serviceId: DEFAULT_SEED_IDS.serviceId,
    });
    expect(JSON.stringify(config.targets.map((t) => t.auth))).toBe(
      JSON.stringify([
        { keyId: { fromEnv: 'STACKSYNC_KEY_ID' }, keySecret: { fromEnv: 'STACKSYNC_KEY_SECRET' } },
        { token: { fromEnv: 'STACKSYNC_TOKEN' } },
      ]),
    );
    const result = await loadManifests(manifestsDir, { config, env: {}, hmac: (v) => `h${v.length}` });
    expect(result.problems).toEqual([]);
    expect(result.warnings).toEqual([]);
    const pipes = result.resources.filter((r): r is DesiredPipe => r.kind === 'Pipe' && r.pipeId !== undefined);
    // One born in Git of each class: streaming, object storage, database (CDC).
    const born = result.resources.filter((r): r is DesiredPipe => r.kind === 'Pipe' && r.pipeId === undefined);
    expect(born.map((p) => `${p.name ?? ''}:${p.source?.kind ?? '-'}:${p.born?.state ?? '-'}`).sort()).toEqual([
      'audit-logs-s3:objectStorage:Running',
      'inventory-cdc:postgres:Running',
      'payments-stream:kafka:Running',
    ]);
    expect(pipes.map((p) => `${p.pipeId}:${p.source?.kind ?? '-'}`).sort()).toEqual([
      `${DEFAULT_SEED_IDS.pipes.kafka}:kafka`,
      `${DEFAULT_SEED_IDS.pipes.objectStorage}:objectStorage`,
      `${DEFAULT_SEED_IDS.pipes.kinesis}:-`,
      `${DEFAULT_SEED_IDS.pipes.postgres}:postgres`,
    ]);
    const postgres = pipes.find((p) => p.source?.kind === 'postgres');
    expect(postgres?.source?.tableMappings?.map((m) => `${m.sourceSchemaName}.${m.sourceTable}`)).toEqual([
      'public.invoices',
      'public.customers',
      'public.payments',
    ]);
    const kafka = pipes.find((p) => p.source?.kind === 'kafka');
    expect(Object.keys(kafka?.source?.secrets?.[0]?.fields ?? {})).toEqual(['username', 'password']);
    const count = (kind: string, target: string) =>
      result.resources.filter((r) => r.kind === kind && r.target === target).length;
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
    expect(readFileSync(join(root, 'config', 'emulator.yaml'), 'utf8').split('\n')[0]).toBe(
      '# yaml-language-server: $schema=../schemas/config.json',
    );
    for (const file of accountFiles()) {
      const kinds = new Set(
        exampleDocuments(accountDir, [file]).map(({ value }) => String(value['kind']).toLowerCase()),
      );
      expect(kinds.size, file).toBe(1);
      expect(readFileSync(join(accountDir, file), 'utf8').split('\n')[0], file).toBe(
        `# yaml-language-server: $schema=../../schemas/${[...kinds][0]}.json`,
      );
    }
  });
});

describe('docs: configuration and manifest reference', () => {
  const docs = (path: string): string => readFileSync(join(root, 'docs', path), 'utf8');

  /** `SavedSearch` → `saved-search`: the page of a kind under docs/manifests/. */
  function pageOf(kind: string): string {
    return `manifests/${kind.replace(/(?<=[a-z])(?=[A-Z])/g, '-').toLowerCase()}.md`;
  }

  /** Every member name a schema gives at `path`, through anyOf / oneOf / allOf branches and both forms of an `if`/`then`/`else` too. */
  function members(schema: JsonSchema | undefined, ...path: string[]): string[] {
    const at = (node: JsonSchema | undefined, rest: readonly string[]): JsonSchema[] => {
      if (!node) return [];
      const branches = (['anyOf', 'oneOf', 'allOf'] as const).flatMap(
        (key) => (node[key] as JsonSchema[] | undefined) ?? [],
      );
      const forms = (['then', 'else'] as const).flatMap((key) => (node[key] ? [node[key] as JsonSchema] : []));
      const properties = node['properties'] as Record<string, JsonSchema> | undefined;
      const here = rest.length === 0 ? [node] : at(properties?.[rest[0] ?? ''], rest.slice(1));
      return [...here, ...[...branches, ...forms].flatMap((branch) => at(branch, rest))];
    };
    return [
      ...new Set(
        at(schema, path).flatMap((node) =>
          Object.keys((node['properties'] as Record<string, unknown> | undefined) ?? {}),
        ),
      ),
    ];
  }

  it.each(DESCRIPTORS.map((descriptor) => [descriptor.kind, descriptor.schema] as const))(
    'names every spec field of %s on its page',
    (kind, schema) => {
      const text = docs(pageOf(kind));
      const fields = members(schema, 'spec');
      // The walk finds the members: every kind has at least two (a CDC scaling has exactly its pair).
      expect(fields.length).toBeGreaterThanOrEqual(2);
      for (const field of fields)
        expect(text, `${kind}.spec.${field} in docs/${pageOf(kind)}`).toContain(`\`${field}\``);
    },
  );

  it('names every config field, every notify and control member, and every metadata field', () => {
    const config = docs('reference/config.md');
    const schema = generated['config.json'];
    const targetSchema = (schema?.['properties'] as Record<string, JsonSchema>)['targets']?.['items'] as JsonSchema;
    const notifySchema = (schema?.['properties'] as Record<string, JsonSchema>)['notify']?.['items'] as JsonSchema;
    const fields = [
      ...members(schema),
      ...members(schema, 'sync'),
      ...members(targetSchema),
      ...members(notifySchema),
      ...members(schema, 'control'),
    ];
    expect(fields.length).toBeGreaterThan(25);
    for (const field of fields) expect(config, field).toContain(`\`${field}\``);
    const manifests = docs('manifests/README.md');
    for (const field of members(generated['pipe.json'], 'metadata'))
      expect(manifests, `metadata.${field}`).toContain(`\`${field}\``);
  });
});
