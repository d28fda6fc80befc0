/**
 * Every stack kind of the current profile, one line each: a kind's whole behaviour lives in its
 * own file (`current/<kind>.ts`, named as the kind's folder in `src/kinds/`), which exports its
 * `stackKind`; this is the one line a new kind adds here (docs/emulator.md#adding-a-kind).
 * `test/emulator/kind-files.test.ts` fails when a kind file is left out.
 */
export { stackKind as alert } from './alert.js';
export { stackKind as connection } from './connection.js';
export { stackKind as dashboard } from './dashboard.js';
export { stackKind as role } from './role.js';
export { stackKind as savedSearch } from './saved-search.js';
export { stackKind as source } from './source.js';
export { stackKind as webhook } from './webhook.js';
