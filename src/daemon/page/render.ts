/**
 * The status page (`GET /` of the daemon): the `/status` document as HTML. Server-rendered and
 * complete without script (the filter form works as a plain GET); the inline script only filters
 * in place and refreshes `#live` from the page itself. Every name, message and value from the
 * document is escaped here, in one place. Pure.
 */
import type { FieldDiff } from '../../model/plan.js';
import type { StatusDocument, TargetStatus } from '../status.js';
import {
  FLAG_LABELS,
  formatTime,
  formatValue,
  kindsOf,
  readinessText,
  rowsOf,
  STATUS_FLAGS,
  targetFacts,
  countFlags,
  type ResourceRow,
  type StatusFlag,
} from '../view.js';
import { PAGE_SCRIPT, PAGE_STYLE } from './assets.js';

/** What the reader filters by; an empty or unknown value shows everything. */
export interface PageFilter {
  target?: string;
  kind?: string;
  status?: string;
}

/** The filter a query string asks for (`?target=prod&kind=Alert&status=error`). */
export function filterOf(query: URLSearchParams): PageFilter {
  const filter: PageFilter = {};
  for (const name of ['target', 'kind', 'status'] as const) {
    const value = query.get(name);
    if (value) filter[name] = value;
  }
  return filter;
}

export function renderStatusPage(document: StatusDocument, filter: PageFilter = {}): string {
  const rows = rowsOf(document);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>stacksync status</title>
<link rel="icon" href="data:,">
<style>${PAGE_STYLE}</style>
</head>
<body>
<header><h1>stacksync</h1><p id="summary">${escapeHtml(summaryText(document, rows))}</p></header>
<p id="stale" role="status" hidden></p>
${filterForm(document, rows, filter)}
<main id="live">
${targetCards(document, filter)}
${resourceTable(rows, filter)}
</main>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}

function summaryText(document: StatusDocument, rows: readonly ResourceRow[]): string {
  const targets = Object.keys(document.targets).length;
  const state = readinessText(document);
  return (
    `${targets} target${targets === 1 ? '' : 's'}, ${rows.length} ` +
    `resource${rows.length === 1 ? '' : 's'}; ${state}; as of ${formatTime(document.generatedAt)}`
  );
}

// ---------------------------------------------------------------- filters

function filterForm(document: StatusDocument, rows: readonly ResourceRow[], filter: PageFilter): string {
  const counts = countFlags(rows.map((row) => row.flags));
  const targets = Object.keys(document.targets).map((name) => option(name, name, filter.target));
  const kinds = kindsOf(document).map((kind) => option(kind, kind, filter.kind));
  const statuses = STATUS_FLAGS.map((flag) => option(flag, `${FLAG_LABELS[flag]} (${counts[flag]})`, filter.status));
  const shown = rows.filter((row) => matches(row, filter)).length;
  return `<form id="filters" method="get" action="/" aria-label="Filter resources">
${select('target', 'Target', targets)}
${select('kind', 'Kind', kinds)}
${select('status', 'Status', statuses)}
<button id="filter-button" type="submit">Filter</button>
<output id="shown">${shown} of ${rows.length} resources shown</output>
</form>`;
}

function select(name: string, label: string, options: readonly string[]): string {
  return `<label>${label}<select name="${name}"><option value="">all</option>${options.join('')}</select></label>`;
}

function option(value: string, text: string, selected: string | undefined): string {
  return `<option value="${escapeHtml(value)}"${value === selected ? ' selected' : ''}>${escapeHtml(text)}</option>`;
}

function matches(row: ResourceRow, filter: PageFilter): boolean {
  if (filter.target && row.target !== filter.target) return false;
  if (filter.kind && row.kind !== filter.kind) return false;
  return !filter.status || row.flags.includes(filter.status as StatusFlag);
}

// ---------------------------------------------------------------- targets

function targetCards(document: StatusDocument, filter: PageFilter): string {
  const cards = Object.entries(document.targets).map(([name, status]) => targetCard(name, status, filter));
  return `<section class="targets" aria-label="Targets">\n${cards.join('\n')}\n</section>`;
}

function targetCard(name: string, status: TargetStatus, filter: PageFilter): string {
  const badges = [
    status.lastResult === undefined
      ? ''
      : badge(status.lastResult, status.lastResult === 'success' ? 'last sync succeeded' : 'last sync failed'),
    status.syncing ? badge('syncing', 'syncing') : '',
    status.suspended ? badge('suspended', 'suspended') : '',
  ].join('');
  const facts = targetFacts(status).map(([label, value]) => `<dt>${escapeHtml(label)}</dt><dd>${longText(value)}</dd>`);
  const hidden = filter.target && filter.target !== name ? ' hidden' : '';
  return (
    `<article class="target" ` +
    `data-target-card="${escapeHtml(name)}"${hidden}><h2>${escapeHtml(name)}</h2><p>${badges}</p><dl>${facts.join('')}</dl></article>`
  );
}

/** Text past a few lines folds away behind its beginning, so one long error does not fill a phone's screen. */
const FOLD_AFTER = 160;

function longText(text: string): string {
  if (text.length <= FOLD_AFTER) return escapeHtml(text);
  return `<details class="long"><summary>${escapeHtml(text.slice(0, FOLD_AFTER - 40))}…</summary>${escapeHtml(text)}</details>`;
}

function badge(style: string, text: string): string {
  return `<span class="badge ${style}">${escapeHtml(text)}</span>`;
}

// ---------------------------------------------------------------- resources

function resourceTable(rows: readonly ResourceRow[], filter: PageFilter): string {
  const body = rows.map((row) => resourceRow(row, matches(row, filter)));
  const none = rows.some((row) => matches(row, filter)) || rows.length === 0 ? ' hidden' : '';
  const empty = rows.length === 0 ? '<tr><td class="empty" colspan="6">No resources reported yet.</td></tr>' : '';
  return `<table class="resources" id="resources">
<thead><tr><th>Target</th><th>Kind</th><th>Name</th><th>Status</th><th>Manifest</th><th>Details</th></tr></thead>
<tbody>
${body.join('\n')}${empty}
<tr id="no-match"${none}><td class="empty" colspan="6">No resource matches the filter.</td></tr>
</tbody>
</table>`;
}

function resourceRow(row: ResourceRow, visible: boolean): string {
  const status = row.flags.map((flag) => badge(flag, FLAG_LABELS[flag])).join('');
  const cells = [
    cell('Target', escapeHtml(row.target)),
    cell('Kind', escapeHtml(row.kind)),
    cell('Name', escapeHtml(row.name), 'name'),
    cell('Status', status),
    cell('Manifest', manifestLink(row), 'manifest'),
    cell('Details', details(row)),
  ];
  const data =
    `data-key="${escapeHtml(row.key)}" data-target="${escapeHtml(row.target)}" ` +
    `data-kind="${escapeHtml(row.kind)}" data-status="${row.flags.join(' ')}"`;
  return `<tr ${data}${visible ? '' : ' hidden'}>${cells.join('')}</tr>`;
}

function cell(label: string, html: string, style?: string): string {
  return `<td data-label="${label}"${style ? ` class="${style}"` : ''}>${html}</td>`;
}

function manifestLink(row: ResourceRow): string {
  if (row.manifest === undefined) return '';
  if (row.url === undefined) return `<code>${escapeHtml(row.manifest)}</code>`;
  return `<a href="${escapeHtml(row.url)}" rel="noreferrer"><code>${escapeHtml(row.manifest)}</code></a>`;
}

function details(row: ResourceRow): string {
  const notes = row.notes.map(
    (note, index) =>
      `<li${index === 0 && row.flags.includes('error') ? ' class="error-text"' : ''}>${escapeHtml(note)}</li>`,
  );
  const list = notes.length > 0 ? `<ul class="notes">${notes.join('')}</ul>` : '';
  return `${list}${diffBlock(row)}`;
}

function diffBlock(row: ResourceRow): string {
  if (row.diff.length === 0) return '';
  const count = row.diff.length + row.diffOmitted;
  const lines = row.diff.map((diff) => diffRow(diff));
  const more =
    row.diffOmitted > 0
      ? `<tr><td colspan="3">… and ${row.diffOmitted} more field${row.diffOmitted === 1 ? '' : 's'}</td></tr>`
      : '';
  return (
    `<details class="diff" data-key="${escapeHtml(row.key)}"><summary>${count} ` +
    `field${count === 1 ? '' : 's'} differ${count === 1 ? 's' : ''}</summary><table ` +
    `class="diff"><thead><tr><th>field</th><th>live</th><th>manifest</th></tr></thead><tbody>${lines.join('')}${more}</tbody></table></details>`
  );
}

function diffRow(diff: FieldDiff): string {
  const value = (text: unknown): string =>
    text === undefined ? '<em>(none)</em>' : `<code>${escapeHtml(formatValue(text))}</code>`;
  return `<tr><td><code>${escapeHtml(diff.path)}</code></td><td>${value(diff.before)}</td><td>${value(diff.after)}</td></tr>`;
}

/** Text for HTML text and attribute values (double-quoted). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
