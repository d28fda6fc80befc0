/**
 * `stacksync status` in a terminal: the status page's facts per target and its table of
 * resources, with the field diff of each drifted one under it. Pure.
 */
import type { StatusDocument } from '../daemon/status.js';
import {
  ERROR_FLAGS,
  FLAG_LABELS,
  formatTime,
  formatValue,
  readinessText,
  rowsOf,
  targetFacts,
  type ResourceRow,
} from '../daemon/view.js';
import type { FieldDiff } from '../model/plan.js';
import { show } from '../support/terminal.js';

const HEADINGS = ['KIND', 'NAME', 'STATUS', 'MANIFEST', 'DETAILS'] as const;

export function renderStatusText(document: StatusDocument): string {
  const rows = rowsOf(document);
  const lines = [`stacksync daemon: ${readinessText(document)} (as of ${formatTime(document.generatedAt)})`, ''];
  for (const [target, status] of Object.entries(document.targets)) {
    const flags = [status.syncing ? 'syncing' : '', status.suspended ? 'suspended' : ''].filter(Boolean);
    lines.push(`Target ${target}${flags.length > 0 ? ` (${flags.join(', ')})` : ''}:`);
    for (const [label, value] of targetFacts(status)) lines.push(`  ${label}: ${value}`);
    lines.push('');
    const own = rows.filter((row) => row.target === target);
    if (own.length > 0) lines.push(...table(own), '');
  }
  // The document comes from whatever answered: every line is shown, never obeyed (support/terminal.ts).
  return `${lines.map(show).join('\n').trimEnd()}\n`;
}

/** Columns padded to their widest cell; details and diffs may run past the edge. */
function table(rows: readonly ResourceRow[]): string[] {
  // Escaped before the widths are taken, so the columns line up as they are shown.
  const cells = rows.map((row) =>
    [
      row.kind,
      row.name,
      row.flags.map((flag) => FLAG_LABELS[flag]).join(', '),
      row.manifest ?? '',
      row.notes[0] ?? '',
    ].map(show),
  );
  const widths = HEADINGS.slice(0, -1).map((heading, column) =>
    Math.max(heading.length, ...cells.map((cell) => (cell[column] ?? '').length)),
  );
  const indent = 2 + widths.reduce((sum, width) => sum + width + 2, 0);
  const line = (cell: readonly string[]): string =>
    `  ${cell.map((text, column) => (column < widths.length ? text.padEnd(widths[column] ?? 0) : text)).join('  ')}`.trimEnd();
  const lines = [line(HEADINGS)];
  rows.forEach((row, index) => {
    lines.push(line(cells[index] ?? []));
    const under = [
      ...row.notes.slice(1),
      ...row.diff.map(diffLine),
      ...(row.diffOmitted > 0 ? [`… and ${row.diffOmitted} more fields`] : []),
    ];
    for (const text of under) lines.push(`${' '.repeat(indent)}${text}`);
  });
  return lines;
}

/** `~ tiles[p99].w: 4 → 6` (live → manifest), `+` for a field only the manifest has, `-` for one only live has. */
function diffLine(diff: FieldDiff): string {
  if (diff.before === undefined) return `+ ${diff.path}: ${formatValue(diff.after)}`;
  if (diff.after === undefined) return `- ${diff.path}: ${formatValue(diff.before)}`;
  return `~ ${diff.path}: ${formatValue(diff.before)} → ${formatValue(diff.after)}`;
}

/** True when a resource is in error or a target's last sync failed: `stacksync status` exits 1. */
export function anythingInError(document: StatusDocument): boolean {
  return (
    Object.values(document.targets).some((status) => status.lastResult === 'failure') ||
    rowsOf(document).some((row) => row.flags.some((flag) => ERROR_FLAGS.includes(flag)))
  );
}

/** The document with only the named targets (all when none are named). */
export function onlyTargets(document: StatusDocument, names: readonly string[]): StatusDocument {
  if (names.length === 0) return document;
  return {
    ...document,
    targets: Object.fromEntries(Object.entries(document.targets).filter(([name]) => names.includes(name))),
  };
}
