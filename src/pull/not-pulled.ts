/**
 * What a pull could not write, one line each, `file:line: …`: `stacksync pull` prints them on
 * stderr, the daemon's `sync.drift: propose` keeps them on the proposal and in its pull request
 * (docs/pull.md, docs/daemon.md "Drift proposed as a branch"). One wording for both.
 */
import type { PullResult } from './pull.js';

export function notPulledLines(outcome: Pick<PullResult, 'conflicts' | 'deleted' | 'errors'>): string[] {
  const lines: string[] = [];
  for (const conflict of outcome.conflicts) {
    const why =
      conflict.reason === 'variable'
        ? 'written with a variable'
        : conflict.reason === 'forEach'
          ? `made by a metadata.forEach template (${conflict.key})`
          : 'written for several targets';
    const live = conflict.live === undefined ? 'gone' : JSON.stringify(conflict.live);
    lines.push(
      `${conflict.file}:${conflict.line}: conflict: ${conflict.kind} ${conflict.key} ${conflict.path} is ${why}, so it is not written; live: ${live}`,
    );
  }
  for (const gone of outcome.deleted) {
    lines.push(
      `${gone.file}${gone.line !== undefined ? `:${gone.line}` : ''}: ${gone.kind} ${gone.key} was ` +
        `deleted live: remove its manifest to let it go, or apply to create it again`,
    );
  }
  for (const error of outcome.errors)
    lines.push(
      `${error.file !== undefined ? `${error.file}${error.line !== undefined ? `:${error.line}` : ''}: ` : ''}error: ${error.message}`,
    );
  return lines;
}
