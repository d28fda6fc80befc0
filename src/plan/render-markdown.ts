/**
 * `--output markdown`: the plan as the body of a pull-request comment (GitHub-flavoured). A hidden
 * marker line lets a CI job find its own comment and update it (a sticky comment); a bold summary
 * line gives the counts; errors come first; then (under a heading per tenant, when tenants are
 * configured) one collapsible block per target and kind with
 * each change's field diff and a link to its manifest line. The body stays under GitHub's limit on
 * comment length: past it, the field diffs go, then the rows that do not fit, counted, with a
 * pointer to the full JSON plan. Pure: links are built from what the caller passes in.
 */
import {
  KNOWN_AFTER_APPLY,
  SENSITIVE,
  UNKNOWN_IN_PLAN,
  type Action,
  type Change,
  type FieldDiff,
  type Plan,
  type PlanWarning,
} from '../model/plan.js';
import { DRIFT_NOTE, isListed, ORPHAN_NOTE, summaryLine } from './render-text.js';
import { estimateLines } from './render-estimate.js';

/** The hidden first line of every markdown plan; what a job searches its PR's comments for. */
export const MARKDOWN_MARKER = '<!-- stacksync-plan -->';

/** GitHub refuses an issue or pull-request comment body longer than this many characters. */
export const GITHUB_COMMENT_LIMIT = 65_536;

export interface MarkdownRenderOptions {
  /**
   * The path a manifest file has in the repository, from the `file` the plan names (default: the
   * file as the plan names it). The CLI makes it relative to the repository's top level.
   */
  repoPath?: (file: string) => string;
  /**
   * Prefix of file links, e.g. `https://github.com/acme/dashboards/blob/<sha>/`: a location
   * becomes a link to `<linkBase><repo path>#L<line>`. Without it locations are shown as text
   * (a relative link in a comment would resolve against the pull request's page, not the repo).
   */
  linkBase?: string;
  /** Where the full plan is, named when the body is cut short (e.g. `the artifact plan.json`). */
  fullPlan?: string;
  /** Longest body to produce, in UTF-16 code units (default {@link GITHUB_COMMENT_LIMIT}). */
  maxLength?: number;
}

const SIGNS: Readonly<Record<Action, string>> = {
  create: '+',
  update: '~',
  replace: '-/+',
  delete: '-',
  adopt: '=',
  orphan: '?',
  suspended: '#',
  waiting: '*',
  unchanged: ' ',
  error: '!',
};

/** Room kept for the closing lines that say what was left out. */
const FOOTER_RESERVE = 600;

/** Blocks open by default when the plan lists at most this many changes. */
const OPEN_BLOCKS_UP_TO = 20;

type Detail = 'full' | 'compact';

export function renderPlanMarkdown(plan: Plan, options: MarkdownRenderOptions = {}): string {
  const limit = options.maxLength ?? GITHUB_COMMENT_LIMIT;
  const head = headLines(plan, options, Math.floor(limit / 2)).join('\n');
  const groups = groupChanges(plan.changes);
  const listed = groups.reduce((sum, group) => sum + group.changes.length, 0);
  const open = listed <= OPEN_BLOCKS_UP_TO;
  for (const detail of ['full', 'compact'] as const) {
    const blocks = groups.map((group) =>
      block(
        group,
        group.changes.map((change) => changeMarkdown(change, detail, options)),
        detail,
        open,
        0,
      ),
    );
    const body = [head, ...withTenantHeadings(groups, blocks)].join('\n\n');
    if (body.length + 1 <= limit) return `${body}\n`;
  }
  return `${truncated(head, groups, options, limit)}\n`;
}

// ---------------------------------------------------------------- head: marker, counts, errors, warnings

function headLines(plan: Plan, options: MarkdownRenderOptions, budget: number): string[] {
  const lines = [MARKDOWN_MARKER, '### stacksync plan', '', `**${escapeText(summaryLine(plan))}**`];
  // The apply's time: a sentence, then a list item per target when several write.
  const estimate = estimateLines(plan.estimate);
  if (estimate.length > 0)
    lines.push('', ...estimate.map((line, index) => (index === 0 ? escapeText(line) : `- ${escapeText(line.trim())}`)));
  const problems = [
    ...plan.errors.map((problem) => problemItem(problem, options)),
    ...errorChanges(plan).map((change) => changeErrorItem(change, options)),
  ];
  if (problems.length === 0 && !plan.changes.some((change) => change.action !== 'unchanged'))
    lines.push('', 'No changes. Live state matches the manifests.');
  lines.push(...section(`:x: ${count(problems.length, 'error')}`, problems, budget * 0.75));
  const warnings = [...plan.warnings.map((warning) => problemItem(warning, options)), ...changeWarnings(plan, options)];
  lines.push(...section(`:warning: ${count(warnings.length, 'warning')}`, warnings, budget * 0.25));
  return lines;
}

/** A titled list, cut at `budget` characters with a count of what was left out. */
function section(title: string, items: readonly string[], budget: number): string[] {
  if (items.length === 0) return [];
  const lines = ['', `#### ${title}`, ''];
  let used = 0;
  for (const [index, item] of items.entries()) {
    if (used + item.length + 1 > budget) {
      lines.push(`- … and ${items.length - index} more, in the full plan`);
      break;
    }
    lines.push(item);
    used += item.length + 1;
  }
  return lines;
}

function errorChanges(plan: Plan): Change[] {
  return plan.changes.filter((change) => change.action === 'error');
}

function problemItem(problem: PlanWarning, options: MarkdownRenderOptions): string {
  const where = problem.file === undefined ? '' : `${location(problem.file, problem.line, problem.column, options)}: `;
  const target = problem.target === undefined ? '' : `**${escapeText(problem.target)}** `;
  return `- ${target}${where}${escapeText(problem.message)} (${code(problem.code)})`;
}

function changeErrorItem(change: Change, options: MarkdownRenderOptions): string {
  const where = change.file === undefined ? '' : ` (${location(change.file, change.line, undefined, options)})`;
  const why = `${escapeText(change.error ?? 'cannot be planned')}${change.code === undefined ? '' : ` (${code(change.code)})`}`;
  return `- **${escapeText(change.target)}** ${code(`${change.kind}/${change.name}`)}${where}: ${why}`;
}

function changeWarnings(plan: Plan, options: MarkdownRenderOptions): string[] {
  return plan.changes.flatMap((change) =>
    change.warnings.map((warning) => {
      const where = change.file === undefined ? '' : ` (${location(change.file, change.line, undefined, options)})`;
      return `- **${escapeText(change.target)}** ${code(`${change.kind}/${change.name}`)}${where}: ${escapeText(warning)}`;
    }),
  );
}

// ---------------------------------------------------------------- blocks: one per target and kind

interface Group {
  tenant?: string;
  target: string;
  kind: Change['kind'];
  changes: Change[];
}

/**
 * Listed changes (not unchanged, not errors, which the head lists) by tenant (with tenants
 * configured: by name, those of no tenant last, so each team reviews its own), then target, then
 * kind, in plan order.
 */
function groupChanges(changes: readonly Change[]): Group[] {
  const groups = new Map<string, Group>();
  for (const change of changes) {
    if (!isListed(change) || change.action === 'error') continue;
    const key = `${change.tenant ?? ''}\u0000${change.target}\u0000${change.kind}`;
    const group = groups.get(key) ?? {
      ...(change.tenant !== undefined ? { tenant: change.tenant } : {}),
      target: change.target,
      kind: change.kind,
      changes: [],
    };
    group.changes.push(change);
    groups.set(key, group);
  }
  const order = (group: Group): string => (group.tenant === undefined ? '\uffff' : group.tenant);
  // A stable sort: within a tenant, the plan's order stays.
  return [...groups.values()].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}

/** The blocks with a heading before each tenant's first (`### Tenant payments`, `### No tenant`); as they are without tenants. */
function withTenantHeadings(groups: readonly Group[], blocks: readonly string[]): string[] {
  if (!groups.some((group) => group.tenant !== undefined)) return [...blocks];
  const result: string[] = [];
  blocks.forEach((each, index) => {
    const tenant = groups[index]?.tenant;
    if (index === 0 || groups[index - 1]?.tenant !== tenant)
      result.push(tenant === undefined ? '### No tenant' : `### Tenant ${escapeText(tenant)}`);
    result.push(each);
  });
  return result;
}

/** A collapsible block; `rows` are full entries (blank line between) or compact list items. */
function block(group: Group, rows: readonly string[], detail: Detail, open: boolean, omitted: number): string {
  const counts = countActions(group.changes);
  const summary = `<summary><b>${escapeHtml(group.target)}</b> · ${group.kind}: ${counts}</summary>`;
  const body = rows.join(detail === 'full' ? '\n\n' : '\n');
  const more = omitted > 0 ? [`_… ${count(omitted, 'more change')} of this block not shown._`, ''] : [];
  return [`<details${open ? ' open' : ''}>${summary}`, '', ...(body ? [body, ''] : []), ...more, '</details>'].join(
    '\n',
  );
}

const ACTION_WORDS: readonly [Action, string][] = [
  ['create', 'to create'],
  ['update', 'to update'],
  ['replace', 'to replace'],
  ['delete', 'to delete'],
  ['adopt', 'to adopt'],
  ['orphan', 'orphaned'],
  ['suspended', 'suspended'],
  ['waiting', 'waiting'],
];

function countActions(changes: readonly Change[]): string {
  return ACTION_WORDS.flatMap(([action, words]) => {
    const n = changes.filter((change) => change.action === action).length;
    return n > 0 ? [`${n} ${words}`] : [];
  }).join(', ');
}

function changeMarkdown(change: Change, detail: Detail, options: MarkdownRenderOptions): string {
  if (detail === 'compact') return compactRow(change, options);
  const notes = [
    ...(change.action === 'orphan' ? [`_${ORPHAN_NOTE}_`] : []),
    ...(change.drift ? [`_${DRIFT_NOTE}_`] : []),
  ];
  const diff = change.diff.length > 0 ? [fenced('diff', change.diff.flatMap(diffLines))] : [];
  return [changeHead(change, options), ...notes, ...diff].join('\n');
}

function changeHead(change: Change, options: MarkdownRenderOptions): string {
  const parts = [`${actionLabel(change)} ${code(`${change.kind}/${change.name}`)}`];
  if (change.file !== undefined) parts.push(location(change.file, change.line, undefined, options));
  if (change.id !== undefined) parts.push(`id ${code(change.id)}`);
  if (change.reclaimed) parts.push('reclaimed after an interrupted create');
  return parts.join(' · ');
}

/** One list item, short enough for hundreds: the resource name is the link to its manifest line. */
function compactRow(change: Change, options: MarkdownRenderOptions): string {
  const name = code(`${change.kind}/${change.name}`);
  const url = change.file === undefined ? undefined : fileUrl(change.file, change.line, options);
  const parts = [`- ${actionLabel(change)} ${url === undefined ? name : `[${name}](${url})`}`];
  if (url === undefined && change.file !== undefined)
    parts.push(location(change.file, change.line, undefined, options));
  if (change.diff.length > 0) parts.push(count(change.diff.length, 'field'));
  return parts.join(' · ');
}

function actionLabel(change: Change): string {
  return `**${code(`${SIGNS[change.action]} ${change.action}`)}**`;
}

/** One diff as `-`/`+` lines, so GitHub colours what goes and what comes. */
function diffLines(diff: FieldDiff): string[] {
  const lines: string[] = [];
  if (diff.before !== undefined) lines.push(`- ${diff.path}: ${formatValue(diff.before)}`);
  if (diff.after !== undefined) lines.push(`+ ${diff.path}: ${formatValue(diff.after)}`);
  return lines;
}

function formatValue(value: unknown): string {
  if (value === SENSITIVE || value === KNOWN_AFTER_APPLY || value === UNKNOWN_IN_PLAN) return value;
  return JSON.stringify(value) ?? String(value);
}

// ---------------------------------------------------------------- past the limit

/**
 * The compact rows in plan order until the budget runs out; every block keeps its counts, and
 * the end says how many rows were left out and where the whole plan is.
 */
function truncated(head: string, groups: readonly Group[], options: MarkdownRenderOptions, limit: number): string {
  const shells = groups.map((group) => block(group, [], 'compact', false, group.changes.length));
  const budget = limit - head.length - shells.reduce((sum, shell) => sum + shell.length + 2, 0) - FOOTER_RESERVE;
  const rows = fairShare(
    groups.map((group) => group.changes.map((change) => changeMarkdown(change, 'compact', options))),
    budget,
  );
  const blocks = groups.map((group, index) =>
    block(group, rows[index] ?? [], 'compact', false, group.changes.length - (rows[index]?.length ?? 0)),
  );
  const omitted = groups.reduce((sum, group, index) => sum + group.changes.length - (rows[index]?.length ?? 0), 0);
  const where = options.fullPlan ?? 'the output of `stacksync plan --output json`';
  const footer =
    `**${count(omitted, 'change')} not shown**, and field diffs left out: a comment holds at most ` +
    `${thousands(limit)} characters. The full plan is ${where}.`;
  return [head, ...withTenantHeadings(groups, blocks), footer].join('\n\n');
}

/** The first rows of every block, taken in turn, so that no block is starved by the ones before it. */
function fairShare(blocks: readonly (readonly string[])[], budget: number): string[][] {
  const taken = blocks.map((): string[] => []);
  let left = budget;
  for (let index = 0, progressed = true; progressed; index += 1) {
    progressed = false;
    for (const [which, rows] of blocks.entries()) {
      const row = rows[index];
      if (row === undefined || row.length + 1 > left || taken[which]?.length !== index) continue;
      taken[which]?.push(row);
      left -= row.length + 1;
      progressed = true;
    }
  }
  return taken;
}

// ---------------------------------------------------------------- small pieces

/** `file:line[:column]`, linked to the line when a link base is known. */
function location(
  file: string,
  line: number | undefined,
  column: number | undefined,
  options: MarkdownRenderOptions,
): string {
  const text = code(
    `${repoPathOf(file, options)}${line === undefined ? '' : `:${line}`}${line !== undefined && column !== undefined ? `:${column}` : ''}`,
  );
  const url = fileUrl(file, line, options);
  return url === undefined ? text : `[${text}](${url})`;
}

function fileUrl(file: string, line: number | undefined, options: MarkdownRenderOptions): string | undefined {
  if (options.linkBase === undefined) return undefined;
  const path = encodeURI(repoPathOf(file, options)).replace(/[()#?]/g, escapeUrlChar);
  return `${options.linkBase}${path}${line === undefined ? '' : `#L${line}`}`;
}

function repoPathOf(file: string, options: MarkdownRenderOptions): string {
  return options.repoPath ? options.repoPath(file) : file;
}

function escapeUrlChar(char: string): string {
  return `%${char.charCodeAt(0).toString(16).toUpperCase()}`;
}

/** An inline code span that holds any text: the fence is longer than any backtick run inside. */
function code(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text.replace(/\n/g, ' ')}${pad}${fence}`;
}

/** A fenced code block whose fence no line of the content can close. */
function fenced(language: string, lines: readonly string[]): string {
  const longest = Math.max(2, ...lines.flatMap((line) => [...line.matchAll(/`+/g)].map((match) => match[0].length)));
  const fence = '`'.repeat(longest + 1);
  return [`${fence}${language}`, ...lines.map((line) => line.replace(/\r?\n/g, ' ')), fence].join('\n');
}

/** Text outside code: no HTML, no accidental emphasis, links, tables or headings. */
function escapeText(text: string): string {
  return escapeHtml(text.replace(/\r?\n/g, ' ')).replace(/([\\`*_[\]|#~])/g, '\\$1');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** `65536` → `65,536`, the same on every machine (no locale). */
function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
