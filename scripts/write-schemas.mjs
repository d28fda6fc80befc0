#!/usr/bin/env node
// Writes the published JSON Schemas (schemas/*.json) from the compiled code. `npm run build` runs
// it last (scripts/postbuild.mjs), so schemas/ is build output like dist/: not committed, shipped
// in the package (package.json's `files`), and copied from the build stage into the image.
// test/manifests/schemas.test.ts fails when the built files differ from what the code generates.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { publishedSchemas } from '../dist/kinds/index.js';

const dir = new URL('../schemas/', import.meta.url);

/** Writes every published schema into schemas/, which holds nothing else afterwards. */
export function writeSchemas() {
  // Emptied first: a kind renamed or removed must not leave its old schema to be published.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const names = [];
  for (const [name, schema] of Object.entries(publishedSchemas())) {
    writeFileSync(new URL(name, dir), `${JSON.stringify(schema, null, 2)}\n`);
    names.push(name);
  }
  return names;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const name of writeSchemas()) console.log(`wrote schemas/${name}`);
}
