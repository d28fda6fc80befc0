/**
 * The server deletes a source whatever still names it (hyperdx `controllers/sources.ts`), leaving
 * dashboards and saved searches on a source that no longer exists, which their next write then
 * fails on (400 `Could not find the following source IDs`). Their kinds say so on the delete.
 */
import type { Change } from '../../model/plan.js';
import type { LiveBase } from '../../model/resources.js';
import type { Kind } from '../../model/kinds.js';
import { labelOf, leftNaming } from './dependents.js';

export function warnSourceDeletes<L extends LiveBase>(
  kind: Kind,
  sourceDeletes: readonly Change[],
  live: readonly L[],
  names: (live: L) => readonly string[],
  changes: readonly Change[],
): void {
  for (const [deletion, left] of leftNaming({ deletes: sourceDeletes, live, names, changes })) {
    deletion.warnings.push(
      `the server deletes it even though ${left.map((each) => labelOf(kind, each)).join(', ')} still ` +
        `name it; their next write fails until they name another source`,
    );
  }
}
