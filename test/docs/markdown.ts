/**
 * Reading the documentation as its tests need it: the Markdown files (README.md and docs/), their
 * fenced code blocks with the line each starts on, their links and headings (as GitHub turns a
 * heading into an anchor), and the words of a shell command line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** README.md and every Markdown file under docs/, as paths relative to the repository. */
export function documentationFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return walk(path);
      return entry.name.endsWith('.md') ? [path] : [];
    });
  return ['README.md', ...walk('docs').sort()];
}

export function readDoc(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8');
}

export interface CodeBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The first word of the info string (`yaml`, `sh`, …), or '' for a block without one. */
  lang: string;
  /** The words after it (e.g. `fragment`). */
  flags: string[];
  /** The content, with the block's indentation or blockquote prefix taken off each line. */
  text: string;
}

const FENCE = /^(\s*(?:>\s?)?)(`{3,})(.*)$/;

/** Every fenced code block of a Markdown text, also those indented in lists or in blockquotes. */
export function codeBlocks(file: string, markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = FENCE.exec(lines[index] ?? '');
    if (!open) continue;
    const [, prefix = '', fence = '', info = ''] = open;
    const body: string[] = [];
    let end = index + 1;
    for (; end < lines.length; end++) {
      const line = lines[end] ?? '';
      const stripped = line.startsWith(prefix) ? line.slice(prefix.length) : line.trimStart();
      if (stripped.startsWith(fence) && stripped.trim() === fence) break;
      body.push(stripped);
    }
    const [lang = '', ...flags] = info.trim().split(/\s+/).filter(Boolean);
    blocks.push({ file, line: index + 1, lang, flags, text: body.join('\n') });
    index = end;
  }
  return blocks;
}

/** The Markdown text without its fenced blocks (their lines blanked, so line numbers hold). */
export function proseOf(markdown: string): string {
  const lines = markdown.split('\n');
  let fence: string | undefined;
  return lines
    .map((line) => {
      const open = FENCE.exec(line);
      if (fence === undefined && open) {
        fence = open[2];
        return '';
      }
      if (fence !== undefined) {
        if (line.trim().replace(/^>\s?/, '').trim() === fence) fence = undefined;
        return '';
      }
      return line;
    })
    .join('\n');
}

export interface Link {
  file: string;
  line: number;
  target: string;
}

/** Every inline link and image target `[text](target)` in the prose (not in code spans). */
export function linksOf(file: string, markdown: string): Link[] {
  const links: Link[] = [];
  proseOf(markdown)
    .split('\n')
    .forEach((text, index) => {
      const line = text.replace(/`[^`]*`/g, (span) => ' '.repeat(span.length));
      for (const match of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g))
        links.push({ file, line: index + 1, target: match[1] ?? '' });
    });
  return links;
}

/** The anchors GitHub gives the headings of a Markdown text (`## A b` → `a-b`; repeats get `-1`, `-2`). */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseOf(markdown).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1] ?? '');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** GitHub's heading slug: lowercase, punctuation dropped (but `-` and `_`), spaces to `-`. */
export function slug(heading: string): string {
  const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

export function relativeToRoot(path: string): string {
  return relative(ROOT, path);
}

/** One command of a shell line: its leading `NAME=value` assignments and its words. */
export interface ShellCommand {
  env: Record<string, string>;
  words: string[];
  /** Runs in the background (`… &`). */
  background: boolean;
}

/**
 * The commands of one shell line, split at `&&`, `||`, `;`, `|` and `&`, with quotes removed and
 * redirections (`> file`) dropped; a `#` starting a word begins a comment. Enough shell for the
 * documentation's command lines: no expansion, no subshells.
 */
export function parseShellLine(line: string): ShellCommand[] {
  const commands: ShellCommand[] = [];
  let words: string[] = [];
  let word: string | undefined;
  let redirect = false;
  const endWord = (): void => {
    if (word === undefined) return;
    if (redirect) redirect = false;
    else words.push(word);
    word = undefined;
  };
  const endCommand = (background: boolean): void => {
    endWord();
    if (words.length > 0) commands.push(toCommand(words, background));
    words = [];
  };
  for (let i = 0; i < line.length; i++) {
    const char = line[i] ?? '';
    const next = line[i + 1] ?? '';
    if (char === "'" || char === '"') {
      const close = line.indexOf(char, i + 1);
      if (close < 0) throw new Error(`unterminated ${char} in: ${line}`);
      word = (word ?? '') + line.slice(i + 1, close);
      i = close;
    } else if (char === '\\' && next !== '') {
      word = (word ?? '') + next;
      i++;
    } else if (/\s/.test(char)) {
      endWord();
    } else if (char === '#' && word === undefined) {
      break;
    } else if (char === '>' || char === '<') {
      endWord();
      if (next === '>') i++;
      redirect = true;
    } else if ((char === '&' && next === '&') || (char === '|' && next === '|')) {
      endCommand(false);
      i++;
    } else if (char === ';' || char === '|') {
      endCommand(false);
    } else if (char === '&') {
      endCommand(true);
    } else {
      word = (word ?? '') + char;
    }
  }
  endCommand(false);
  return commands;
}

function toCommand(words: string[], background: boolean): ShellCommand {
  const env: Record<string, string> = {};
  let index = 0;
  for (; index < words.length; index++) {
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(words[index] ?? '');
    if (!assignment) break;
    env[assignment[1] ?? ''] = assignment[2] ?? '';
  }
  return { env, words: words.slice(index), background };
}

/** The logical lines of a shell block: continuations joined; with `$ ` prompts, only the prompted lines. */
export function shellLines(text: string): string[] {
  const joined = text.replace(/\\\n\s*/g, ' ').split('\n');
  const prompted = joined.some((line) => line.startsWith('$ '));
  return joined.filter((line) => !prompted || line.startsWith('$ ')).map((line) => (prompted ? line.slice(2) : line));
}

/** The exit code a line's comment promises (`# exit 2: …`, `# exits 0`), else 0. */
export function expectedExit(line: string): number {
  const comment = /\s#\s.*$/.exec(line)?.[0] ?? '';
  const promised = /\bexits? (\d)\b/.exec(comment);
  return promised ? Number(promised[1]) : 0;
}

/** The stacksync words of a command (`stacksync …` or `npx stacksync …`), or undefined. */
export function stacksyncArgs(command: ShellCommand): string[] | undefined {
  const [first, second] = command.words;
  if (first === 'stacksync') return command.words.slice(1);
  if (first === 'npx' && second === 'stacksync') return command.words.slice(2);
  return undefined;
}
