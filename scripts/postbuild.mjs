// The last step of `npm run build`: makes the CLI entry executable (tsc does not keep file
// modes), then writes the published JSON Schemas into schemas/ from the code just compiled.
import { chmodSync } from 'node:fs';
import { writeSchemas } from './write-schemas.mjs';

chmodSync(new URL('../dist/cli.js', import.meta.url), 0o755);
writeSchemas();
