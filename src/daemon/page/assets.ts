/**
 * The status page's only style and script, inline, and the Content-Security-Policy that allows
 * exactly them (by their SHA-256) and nothing else: no other script, no style attribute, no
 * external asset, no framing. The script only filters rows and refreshes the page in place.
 */
import { createHash } from 'node:crypto';

export const PAGE_STYLE = `
:root { color-scheme: light; --fg: #1c2024; --muted: #5b6470; --line: #d9dee4; --bg: #f6f7f9; --card: #fff;
  --ok: #1d7a3a; --drift: #8a5a00; --error: #b3261e; --quiet: #4a5568; --degraded: #7b2cbf; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header, main, #filters { padding: 0 16px; max-width: 1400px; margin: 0 auto; }
header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 16px; padding-top: 12px; }
h1 { font-size: 1.3rem; margin: 0; }
h2 { font-size: 1.05rem; margin: 0 0 6px; }
#summary { color: var(--muted); }
#stale { background: #fff4e5; border: 1px solid #f0b35a; padding: 6px 10px; border-radius: 6px; margin: 8px 16px; }
#filters { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: end; margin: 12px auto; }
#filters label { display: flex; flex-direction: column; font-size: .85rem; color: var(--muted); }
#filters select, #filters button { font: inherit; padding: 4px 6px; min-width: 9rem; }
#shown { color: var(--muted); font-size: .9rem; }
.targets { display: grid; grid-template-columns: repeat(auto-fill, minmax(340px, 1fr)); gap: 12px; margin: 0 0 16px; }
.target { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; }
.target dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; margin: 0; font-size: .9rem; }
.target dt { color: var(--muted); }
.target dd { margin: 0; overflow-wrap: anywhere; }
.badge { display: inline-block; border-radius: 999px; padding: 0 8px; font-size: .8rem; font-weight: 600;
  border: 1px solid currentColor; margin-right: 4px; white-space: nowrap; }
.in_sync, .success { color: var(--ok); } .drifted { color: var(--drift); } .error, .failure { color: var(--error); }
.suspended, .orphan, .syncing { color: var(--quiet); } .degraded { color: var(--degraded); }
table.resources { width: 100%; border-collapse: collapse; background: var(--card); border: 1px solid var(--line); }
table.resources th, table.resources td { text-align: left; vertical-align: top; padding: 6px 8px; border-bottom: 1px solid var(--line); }
table.resources th { font-size: .85rem; color: var(--muted); background: var(--bg); }
td.name, td.manifest { overflow-wrap: anywhere; }
td.name { min-width: 8rem; } td.manifest { min-width: 14rem; }
.notes { margin: 0; padding: 0; list-style: none; overflow-wrap: anywhere; }
.notes li.error-text { color: var(--error); }
details.diff summary { cursor: pointer; color: var(--drift); }
details.long summary { cursor: pointer; }
details.long[open] summary { display: none; }
table.diff { border-collapse: collapse; margin-top: 4px; font-size: .85rem; }
table.diff th, table.diff td { border: 1px solid var(--line); padding: 2px 6px; vertical-align: top; }
table.diff code { white-space: pre-wrap; overflow-wrap: anywhere; }
.empty { color: var(--muted); padding: 12px 8px; }
@media (max-width: 720px) {
  table.resources thead { display: none; }
  table.resources, table.resources tbody, table.resources tr, table.resources td { display: block; width: 100%; }
  table.resources tr { border-bottom: 2px solid var(--line); padding: 4px 0; }
  table.resources td { border: 0; padding: 2px 8px; min-width: 0; }
  table.resources td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); font-size: .85rem; }
  table.resources td:empty { display: none; }
}
`;

export const PAGE_SCRIPT = `
(() => {
  'use strict';
  const REFRESH_MS = 5000;
  const form = document.getElementById('filters');
  const selects = ['target', 'kind', 'status'].map((name) => form.elements.namedItem(name));
  const shown = document.getElementById('shown');
  const stale = document.getElementById('stale');
  document.getElementById('filter-button').hidden = true;

  const matches = (row, filter) =>
    (!filter.target || row.dataset.target === filter.target) &&
    (!filter.kind || row.dataset.kind === filter.kind) &&
    (!filter.status || row.dataset.status.split(' ').includes(filter.status));

  function applyFilter() {
    const filter = Object.fromEntries(selects.map((select) => [select.name, select.value]));
    const rows = [...document.querySelectorAll('#resources tbody tr[data-key]')];
    let visible = 0;
    for (const row of rows) {
      row.hidden = !matches(row, filter);
      if (!row.hidden) visible += 1;
    }
    for (const card of document.querySelectorAll('[data-target-card]')) card.hidden = Boolean(filter.target) && card.dataset.targetCard !== filter.target;
    const none = document.getElementById('no-match');
    if (none) none.hidden = visible > 0 || rows.length === 0;
    shown.textContent = visible + ' of ' + rows.length + ' resources shown';
  }

  function rememberFilter() {
    const query = new URLSearchParams();
    for (const select of selects) if (select.value) query.set(select.name, select.value);
    const search = query.toString();
    history.replaceState(null, '', search ? '?' + search : location.pathname);
  }

  form.addEventListener('change', () => { rememberFilter(); applyFilter(); });
  form.addEventListener('submit', (event) => { event.preventDefault(); rememberFilter(); applyFilter(); });

  /**
   * The row the reader is at, and where: the first that starts on screen (else the one cut by the
   * top edge), so a refresh that changes rows above it leaves it where it was.
   */
  function anchor() {
    let cut;
    for (const row of document.querySelectorAll('#resources tbody tr[data-key]')) {
      if (row.hidden) continue;
      const box = row.getBoundingClientRect();
      if (box.top >= 0) return box.top < window.innerHeight ? { key: row.dataset.key, top: box.top } : cut;
      if (box.bottom > 0) cut = { key: row.dataset.key, top: box.top };
    }
    return cut;
  }

  function keepOptions(select, fresh) {
    if (!fresh) return;
    const value = select.value;
    select.replaceChildren(...[...fresh.options].map((option) => document.importNode(option, true)));
    if (value && ![...select.options].some((option) => option.value === value)) select.append(new Option(value, value));
    select.value = value;
  }

  async function refresh() {
    if (document.hidden) return later();
    try {
      const response = await fetch(location.pathname + location.search, { headers: { accept: 'text/html' }, cache: 'no-store' });
      if (!response.ok) throw new Error('HTTP ' + response.status);
      const next = new DOMParser().parseFromString(await response.text(), 'text/html');
      const fresh = next.getElementById('live');
      if (!fresh) throw new Error('not a status page');
      const open = new Set([...document.querySelectorAll('details[open][data-key]')].map((element) => element.dataset.key));
      const focused = document.activeElement && document.activeElement.closest('[data-key]');
      const focusKey = focused && document.getElementById('live').contains(focused) ? focused.dataset.key : undefined;
      const place = anchor();
      const scrollY = window.scrollY;
      document.getElementById('live').replaceChildren(...[...fresh.childNodes].map((node) => document.importNode(node, true)));
      for (const element of document.querySelectorAll('details[data-key]')) if (open.has(element.dataset.key)) element.open = true;
      for (const select of selects) keepOptions(select, next.querySelector('#filters select[name="' + select.name + '"]'));
      document.getElementById('summary').textContent = next.getElementById('summary').textContent;
      applyFilter();
      const again = place && [...document.querySelectorAll('#resources tbody tr[data-key]')].find((row) => row.dataset.key === place.key);
      if (again) window.scrollBy(0, again.getBoundingClientRect().top - place.top);
      else window.scrollTo(window.scrollX, scrollY);
      if (focusKey) {
        const target = [...document.querySelectorAll('#live [data-key]')].find((element) => element.dataset.key === focusKey);
        const summary = target && (target.matches('summary, a') ? target : target.querySelector('summary, a'));
        if (summary) summary.focus({ preventScroll: true });
      }
      stale.hidden = true;
    } catch (error) {
      stale.textContent = 'The daemon did not answer at ' + new Date().toLocaleTimeString() + ' (' + error.message + ')' +
        '; this is what it said before. Trying again.';
      stale.hidden = false;
    }
    later();
  }

  function later() { setTimeout(refresh, REFRESH_MS); }

  applyFilter();
  later();
})();
`;

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** Allows the page's own style and script and its fetches of itself; nothing else. */
export const PAGE_CSP = [
  "default-src 'none'",
  `script-src ${sha256(PAGE_SCRIPT)}`,
  `style-src ${sha256(PAGE_STYLE)}`,
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
