// Bundles the compiled CLI (dist/, after tsc) into dist/bundle/: one file per entry and a few
// shared chunks instead of ~500 modules, so every command starts in about half the time
// (Node 20 compiles each ES module on its own; TypeBox alone is 370 of them). dist/cli.js, the
// package's bin, becomes a one-line entry into the bundle. The unbundled modules stay in dist/
// for the scripts that import them (bench, fixtures, schemas).
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const dist = (path) => fileURLToPath(new URL(`../dist/${path}`, import.meta.url));

const bundle = await rolldown({
  // The parse worker is an entry of its own: parser.js starts it from its file beside it.
  input: { cli: dist('cli.js'), 'parse-worker': dist('manifests/parse-worker.js') },
  platform: 'node',
  logLevel: 'warn',
});
// dist/bundle/ is as deep as dist/cli/, so the paths to package.json and schemas/ still hold.
// Emptied first: chunks are named by hash, and an earlier build's would stay beside this one's.
rmSync(dist('bundle'), { recursive: true, force: true });
// Without comments and white space: V8 keeps every loaded script's source in the heap and scans
// all of it at start, and those were a quarter of it (3.5 MB → 2.5 MB loaded). Names are kept, not
// mangled, so a stack trace still names its functions; the maps beside the chunks give lines.
await bundle.write({
  dir: dist('bundle'),
  format: 'esm',
  sourcemap: true,
  comments: false,
  minify: { compress: false, mangle: false, codegen: { removeWhitespace: true } },
  entryFileNames: '[name].js',
  chunkFileNames: '[name]-[hash].js',
});
await bundle.close();
writeFileSync(
  dist('cli.js'),
  "#!/usr/bin/env node\n// The CLI, bundled by scripts/bundle.mjs (src/cli.ts is its source).\nimport './bundle/cli.js';\n",
);
// tsc's map of the entry it wrote no longer describes it (the bundle has maps of its own).
rmSync(dist('cli.js.map'), { force: true });
