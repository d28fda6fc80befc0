#!/usr/bin/env node
// Writes the published JSON Schemas (schemas/*.json) from the compiled code. Run after
// `npm run build`; test/manifests/schemas.test.ts fails when the committed files are stale.
import { mkdirSync, writeFileSync } from 'node:fs';
import { publishedSchemas } from '../dist/kinds/index.js';

const dir = new URL('../schemas/', import.meta.url);
mkdirSync(dir, { recursive: true });
for (const [name, schema] of Object.entries(publishedSchemas())) {
  writeFileSync(new URL(name, dir), `${JSON.stringify(schema, null, 2)}\n`);
  console.log(`wrote schemas/${name}`);
}
