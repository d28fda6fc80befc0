/**
 * The validators `npm run build` writes ahead of time (dist/schema/validators/, ajv's standalone
 * code) are the schemas' own: for every schema built, the built validator and one compiled from
 * the source schema now agree on every document of the repository's manifests, examples, test
 * fixtures and documentation, and on broken copies of them: the same verdict, the same errors, the same defaults
 * filled in. `npm test` builds first, so dist/ is this tree's.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { createAjv, prebuiltFileName } from '../../src/schema/validate.js';
import {
  manifestSchemaFor,
  manifestSchemaOf,
  manifestSchemas,
  validateManifest,
} from '../../src/manifests/validate.js';
import { MANIFEST_PATTERN_MESSAGES, WHOLE_MESSAGES } from '../../src/schema/manifest.js';
import { describeAjvErrors } from '../../src/yaml/positions.js';
import { KINDS } from '../../src/kinds/registry.js';
import { CONFIG_SCHEMA } from '../../src/config/load.js';
import { stateSchemas } from '../../src/state/format.js';
import { prebuiltSchemas } from '../../scripts/precompile-validators.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUILT = join(ROOT, 'dist/schema/validators');
const requireBuilt = createRequire(import.meta.url);

type Validator = ((value: unknown) => boolean) & { errors?: unknown[] | null };

function filesUnder(dir: string, pattern: RegExp): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path, pattern);
    return pattern.test(name) ? [path] : [];
  });
}

/** The YAML texts of the repository: its files, and the examples of its documentation. */
function yamlTexts(): string[] {
  const files = ['manifests', 'examples', 'test/fixtures', 'config'].flatMap((dir) =>
    filesUnder(join(ROOT, dir), /\.ya?ml$/),
  );
  const pages = [join(ROOT, 'README.md'), ...filesUnder(join(ROOT, 'docs'), /\.md$/)];
  const blocks = pages.flatMap((page) =>
    [...readFileSync(page, 'utf8').matchAll(/```ya?ml\n([\s\S]*?)```/g)].map((match) => match[1] ?? ''),
  );
  return [...files.map((file) => readFileSync(file, 'utf8')), ...blocks];
}

/** Every YAML document of the repository that parses (documentation examples too), and copies of each broken in the ways people break them. */
function corpus(): unknown[] {
  const documents: unknown[] = [];
  for (const text of yamlTexts()) {
    for (const document of parseAllDocuments(text)) {
      if (document.errors.length === 0) documents.push(document.toJS());
    }
  }
  const broken = documents.flatMap((document) => {
    if (document === null || typeof document !== 'object' || Array.isArray(document)) return [];
    const record = document as Record<string, unknown>;
    const { spec: _spec, ...withoutSpec } = record;
    return [
      withoutSpec,
      { ...record, spec: 42 },
      { ...record, metadata: { name: 7 } },
      { ...record, unknownMember: true },
      { ...record, spec: { ...(record['spec'] as object), unknownMember: 'x' } },
    ];
  });
  return [...documents, ...broken, null, 'text', [], {}];
}

describe('validators built ahead of time', () => {
  const entries = prebuiltSchemas();
  const values = corpus();

  it('cover every manifest kind, the config and the state store', () => {
    const names = new Set(entries.map((entry) => entry.name));
    for (const entry of [...manifestSchemas(), CONFIG_SCHEMA, ...stateSchemas()])
      expect(names, entry.name).toContain(entry.name);
    expect(values.length).toBeGreaterThan(200);
  });

  it.each(entries.map((entry) => [entry.name, entry] as const))(
    '%s agrees with its schema compiled now',
    (_name, entry) => {
      const path = join(BUILT, prebuiltFileName(entry.name));
      expect(existsSync(path), `${path} is built`).toBe(true);
      const built = requireBuilt(path) as Validator;
      const compiled = createAjv({ useDefaults: entry.useDefaults ?? false }).compile(entry.schema) as Validator;
      let valid = 0;
      for (const value of values) {
        // Each gets its own copy: with defaults on, validating fills them in.
        const [forBuilt, forCompiled] = [structuredClone(value), structuredClone(value)];
        const verdict = built(forBuilt);
        expect(verdict).toBe(compiled(forCompiled));
        expect(built.errors ?? null).toEqual(compiled.errors ?? null);
        expect(forBuilt).toEqual(forCompiled);
        if (verdict) valid++;
      }
      // The corpus holds documents this schema takes, unless nothing in the repository is of its shape.
      if (entry.name.startsWith('manifest:') && entry.name !== 'manifest:envelope')
        expect(valid, `${entry.name}: documents it takes`).toBeGreaterThan(0);
    },
  );
});

describe('a kind whose spec takes one of two forms', () => {
  const values = corpus();
  // Pipes of both forms broken in the ways people break them, besides the corpus's.
  const pipes = values.filter(
    (value): value is Record<string, unknown> =>
      typeof value === 'object' && value !== null && (value as Record<string, unknown>)['kind'] === 'Pipe',
  );
  const broken = pipes.flatMap((pipe) => {
    const spec = (pipe['spec'] ?? {}) as Record<string, unknown>;
    return [
      { ...pipe, spec: { ...spec, pipeId: 7 } },
      { ...pipe, spec: { ...spec, pipeId: 'p-1', source: 'kafka' } },
      {
        ...pipe,
        spec: Object.fromEntries(Object.entries(spec).filter(([member]) => member !== 'pipeId' && member !== 'source')),
      },
      { ...pipe, spec: [] },
      { ...pipe, spec: null },
    ];
  });

  it('is checked against the schema of its form, which says of every document what the whole schema says', () => {
    const forms = manifestSchemas().filter((entry) => /^manifest:[A-Za-z]+:/.test(entry.name));
    expect(forms.map((entry) => entry.name)).toEqual(['manifest:Pipe:with-pipeId', 'manifest:Pipe:without-pipeId']);
    expect(pipes.length).toBeGreaterThan(3);
    const used = new Set<string>();
    const compiled = new Map<string, Validator>();
    for (const value of [...values, ...broken]) {
      const kind = (value as { kind?: unknown } | null)?.kind;
      if (typeof kind !== 'string' || !(KINDS as readonly string[]).includes(kind)) continue;
      const whole = manifestSchemaOf(kind as (typeof KINDS)[number]);
      used.add(manifestSchemaFor(value).name);
      const validate = compiled.get(whole.name) ?? (createAjv().compile(whole.schema) as Validator);
      compiled.set(whole.name, validate);
      const verdict = validate(structuredClone(value));
      const issues = verdict
        ? []
        : describeAjvErrors((validate.errors ?? []) as never, value, {
            schema: whole.schema,
            patternMessages: MANIFEST_PATTERN_MESSAGES,
            wholeMessages: WHOLE_MESSAGES,
          });
      const checked = validateManifest(structuredClone(value));
      expect(checked.ok, JSON.stringify(value)).toBe(verdict);
      expect(checked.ok ? [] : checked.issues, JSON.stringify(value)).toEqual(issues);
    }
    // Both forms were reached, and the whole schema for a spec that is not an object.
    for (const name of ['manifest:Pipe:with-pipeId', 'manifest:Pipe:without-pipeId', 'manifest:Pipe'])
      expect(used).toContain(name);
  });
});
