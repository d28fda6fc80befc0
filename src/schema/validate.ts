/**
 * Schema validation shared by the emulator (request bodies, seed and data files), the manifest
 * and config loaders, the state store and export. Turns ajv's errors into `{ path, message }`
 * issues with a readable path. API responses are not validated here: the client's tolerant
 * readers (`kinds/<kind>/read.ts`) check them. The API schemas by name are `kinds/wire.ts`'s.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { JsonSchema } from './build.js';

// ajv-formats is CommonJS; under NodeNext its callable is the `.default` export.
const addFormats = addFormatsModule.default;

/** One thing wrong with a document. `path` is `tiles[0].w` style; empty for the root. */
export interface SchemaIssue {
  path: string;
  /** JSON pointer segments of the offending value, for mapping back to YAML nodes. */
  pointer: (string | number)[];
  message: string;
}

export type SchemaResult<T> = { ok: true; value: T } | { ok: false; issues: SchemaIssue[] };

/**
 * A new ajv instance configured the way stacksync validates everything. Without ajv's code
 * optimiser: every command compiles its schemas at start, and the optimiser made that 40 % slower
 * (the manifest and config schemas: 160 ms against 100 ms) for no faster validation (20,000
 * documents: 133 ms against 126 ms).
 * Nor does it check each schema against the JSON Schema meta-schema as it compiles it: the schemas
 * are stacksync's own, fixed at build time, and `test/schema/meta.test.ts` checks every one of
 * them; checking them again in every command compiled the meta-schema too (45 ms of a 10,000
 * resource plan, and its garbage).
 */
export function createAjv(options: CompileOptions & { source?: boolean } = {}): Ajv {
  const code = { optimize: false, source: options.source ?? false };
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    validateSchema: false,
    useDefaults: options.useDefaults ?? false,
    code,
  });
  addFormats(ajv);
  return ajv;
}

/** How a schema is compiled: ajv's defaults filled in (the config's), or the document left as it is. */
export interface CompileOptions {
  useDefaults?: boolean;
}

/** A schema under the name its validator is cached and built ahead of time by (`scripts/precompile-validators.mjs`). */
export interface NamedSchema extends CompileOptions {
  name: string;
  schema: JsonSchema;
}

const ajvs = new Map<boolean, Ajv>();
const compiled = new Map<string, ValidateFunction>();

/**
 * The validator of a schema, cached by its name: the one `npm run build` wrote ahead of time
 * (ajv's standalone code of the same schema and options, `dist/schema/validators/`), else
 * compiled now. Compiling cost every command about 200 ms and 10 MB of garbage before it read a
 * manifest (the Pipe schema alone 150 ms, 500 KB of generated code); loading the built one costs
 * a tenth. Unbuilt (the tests of `src/`) there are none, and every schema compiles as before.
 */
export function compileSchema(name: string, schema: JsonSchema, options: CompileOptions = {}): ValidateFunction {
  let validate = compiled.get(name);
  if (!validate) {
    validate = prebuiltValidator(name) ?? ajvFor(options).compile(schema);
    compiled.set(name, validate);
  }
  return validate;
}

/** The validator of a named schema (see {@link compileSchema}). */
export function validatorOf(entry: NamedSchema): ValidateFunction {
  return compileSchema(entry.name, entry.schema, entry);
}

function ajvFor(options: CompileOptions): Ajv {
  const useDefaults = options.useDefaults ?? false;
  let ajv = ajvs.get(useDefaults);
  if (!ajv) {
    ajv = createAjv({ useDefaults });
    ajvs.set(useDefaults, ajv);
  }
  return ajv;
}

/** The file a schema's validator is built into, under `dist/schema/validators/` (`manifest:Pipe` → `manifest.Pipe.cjs`). */
export function prebuiltFileName(name: string): string {
  if (!/^[A-Za-z0-9:_-]+$/.test(name)) throw new Error(`schema name ${JSON.stringify(name)} cannot name a file`);
  return `${name.replace(/:/g, '.')}.cjs`;
}

// Relative to the module that holds this code: dist/schema/ unbundled, dist/bundle/ bundled
// (as deep), src/schema/ in the tests of the source, where nothing is built.
const prebuiltDir = new URL('../schema/validators/', import.meta.url);
const requirePrebuilt = createRequire(import.meta.url);

function prebuiltValidator(name: string): ValidateFunction | undefined {
  const path = fileURLToPath(new URL(prebuiltFileName(name), prebuiltDir));
  // A built validator that fails to load is a broken build, and says so; only its absence falls back.
  return existsSync(path) ? (requirePrebuilt(path) as ValidateFunction) : undefined;
}

/** Readable issues from ajv errors; drops the noise ajv adds for failed `if`/`oneOf` branches. */
export function toIssues(errors: ErrorObject[]): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (error.keyword === 'if') continue;
    const issue = toIssue(error);
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

function toIssue(error: ErrorObject): SchemaIssue {
  const pointer = parsePointer(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const missing = String(params['missingProperty']);
      return { pointer, path: formatPath([...pointer, missing]), message: 'is required' };
    }
    case 'additionalProperties': {
      const extra = String(params['additionalProperty']);
      return {
        pointer: [...pointer, extra],
        path: formatPath([...pointer, extra]),
        message: 'is not a known member here',
      };
    }
    case 'enum':
      return {
        pointer,
        path: formatPath(pointer),
        message: `must be one of ${(params['allowedValues'] as unknown[]).map(String).join(', ')}`,
      };
    case 'const':
      return { pointer, path: formatPath(pointer), message: `must be ${JSON.stringify(params['allowedValue'])}` };
    case 'oneOf':
      return { pointer, path: formatPath(pointer), message: 'must hold exactly one of its alternatives' };
    default:
      return { pointer, path: formatPath(pointer), message: error.message ?? error.keyword };
  }
}

/** A JSON Pointer (`/tiles/0/w`, as ajv and TypeBox report paths) → `['tiles', 0, 'w']`. */
export function parsePointer(instancePath: string): (string | number)[] {
  if (!instancePath) return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
}

/** `['tiles', 0, 'w']` → `tiles[0].w`. */
export function formatPath(pointer: readonly (string | number)[]): string {
  let text = '';
  for (const segment of pointer) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text ? `.${segment}` : segment;
  }
  return text;
}

/** `path: message; path: message`, the form both variants' 400 bodies use. */
export function describeIssues(issues: readonly SchemaIssue[]): string {
  return issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join('; ');
}
