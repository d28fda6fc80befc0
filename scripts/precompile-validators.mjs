// Builds every schema the CLI and the emulator validate against into a validator of its own,
// ahead of time: ajv's standalone code (the same ajv, the same options, `code.source` added), one
// CommonJS file per schema in dist/schema/validators/, named as `compileSchema` looks for it. A
// command then loads the few it needs instead of compiling them (about 200 ms and 10 MB of every
// command). Run by `npm run build` after tsc, from the schemas tsc just wrote.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { CONFIG_SCHEMA } from '../dist/config/load.js';
import { seedSchemas } from '../dist/emulator/seed.js';
import { BORN_PIPE_SPEC } from '../dist/kinds/pipe/export.js';
import { manifestSchemas } from '../dist/manifests/validate.js';
import { apiSchemas } from '../dist/kinds/wire.js';
import { createAjv, prebuiltFileName } from '../dist/schema/validate.js';
import { stateSchemas } from '../dist/state/format.js';

const standaloneCode = standaloneModule.default;

/** Every schema built ahead of time; one left out still works, compiled when first used. */
export function prebuiltSchemas() {
  return [...manifestSchemas(), CONFIG_SCHEMA, ...stateSchemas(), BORN_PIPE_SPEC, ...apiSchemas(), ...seedSchemas()];
}

/** The module text of one schema's validator. */
export function validatorSource({ schema, useDefaults }) {
  const ajv = createAjv({ useDefaults: useDefaults ?? false, source: true });
  return standaloneCode(ajv, ajv.compile(schema));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = fileURLToPath(new URL('../dist/schema/validators/', import.meta.url));
  // Emptied first: a schema renamed or dropped must not leave its old validator to be found.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const seen = new Set();
  for (const entry of prebuiltSchemas()) {
    if (seen.has(entry.name)) throw new Error(`schema ${entry.name} is listed twice`);
    seen.add(entry.name);
    writeFileSync(`${dir}${prebuiltFileName(entry.name)}`, validatorSource(entry));
  }
}
