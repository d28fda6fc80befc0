/**
 * A YAML parse error in words. One mis-indented line makes `yaml` report two or three errors in
 * its own terms ("Sequence item without - indicator", "Nested mappings are not allowed in compact
 * mappings", "Implicit keys need to be on a single line"); the loader reports only a document's
 * first, and for a line indented wrongly says what it is indented against and what was expected
 * (docs/manifests/README.md#checks-and-errors). Pure: the text and a line number in, a sentence out.
 */

/** The codes of `yaml` errors that a line indented wrongly causes. */
const INDENTATION_CODES: ReadonlySet<string> = new Set([
  'MISSING_CHAR',
  'BLOCK_AS_IMPLICIT_KEY',
  'MULTILINE_IMPLICIT_KEY',
  'BAD_INDENT',
  'UNEXPECTED_TOKEN',
  'BAD_SCALAR_START',
]);

/**
 * Errors `yaml` reports at the line above the one indented wrongly: a key with its value, which the
 * next, deeper line would make a multi-line key.
 */
const REPORTED_ABOVE: ReadonlySet<string> = new Set(['BLOCK_AS_IMPLICIT_KEY', 'MULTILINE_IMPLICIT_KEY']);

/** A parse error explained: the line (1-based) and column of the line indented wrongly, and why. */
export interface Explained {
  line: number;
  column: number;
  message: string;
}

/**
 * What is wrong with the indentation that made `yaml` report error `code` at `reported` (a 1-based
 * line of `text`), in words, at the line indented wrongly; undefined when the error is not about
 * indentation or the lines above do not tell.
 */
export function explainIndentation(text: string, reported: number, code: string): Explained | undefined {
  if (!INDENTATION_CODES.has(code)) return undefined;
  const lines = text.split(/\r?\n/);
  const line = REPORTED_ABOVE.has(code) ? nextMeaningful(lines, reported) : reported;
  if (line === undefined) return undefined;
  const message = explainLine(lines, line);
  return message === undefined ? undefined : { line, column: indentOf(lines[line - 1] as string) + 1, message };
}

function explainLine(lines: readonly string[], line: number): string | undefined {
  const own = lines[line - 1];
  if (own === undefined || !isMeaningful(own)) return undefined;
  if (/^ *\t/.test(own)) return `line ${line} is indented with a tab; YAML indents with spaces only`;
  const before = previousMeaningful(lines, line - 1);
  if (before === undefined) return undefined;
  const indent = indentOf(own);
  const above = lines[before] as string;
  const aboveIndent = indentOf(above);
  const aboveText = above.trim();
  const against = `line ${line} is indented by ${spaces(indent)}, against line ${before + 1} (\`${clip(aboveText)}\`, indented by ${spaces(aboveIndent)})`;
  const item = aboveText.startsWith('- ');
  if (item && indent > aboveIndent && indent !== aboveIndent + 2) {
    return (
      `${against}: a member of that list item goes at ${spaces(aboveIndent + 2)}, under its first ` +
      `member; a new item starts with "- " at ${spaces(aboveIndent)}`
    );
  }
  if (indent > aboveIndent && hasInlineValue(aboveText)) {
    const siblings = item ? aboveIndent + 2 : aboveIndent;
    return (
      `${against}: that key already has its value on its own line, so nothing can be nested under it; ` +
      `indent line ${line} by ${spaces(siblings)} to put it beside that key, or move the value below ` +
      `the key`
    );
  }
  if (indent < aboveIndent) {
    const enclosing = enclosingIndents(lines, before);
    if (!enclosing.includes(indent)) {
      return `${against}: it lines up with no key above it (they start at ${enclosing.map(spaces).join(', ')}); indent it like the key it belongs beside`;
    }
  }
  return undefined;
}

function isMeaningful(line: string): boolean {
  const trimmed = line.trim();
  return trimmed !== '' && !trimmed.startsWith('#');
}

/** The 1-based number of the first meaningful line after 1-based `line`. */
function nextMeaningful(lines: readonly string[], line: number): number | undefined {
  for (let index = line; index < lines.length; index++) if (isMeaningful(lines[index] as string)) return index + 1;
  return undefined;
}

function previousMeaningful(lines: readonly string[], from: number): number | undefined {
  for (let index = from - 1; index >= 0; index--) if (isMeaningful(lines[index] as string)) return index;
  return undefined;
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** `key: value` (also `- key: value`) with the value on the same line; not `key:` alone, nor a `|` or `>` block. */
function hasInlineValue(text: string): boolean {
  const body = text.startsWith('- ') ? text.slice(2) : text;
  const match = /^[^\s#'"][^:#]*:\s+(\S.*)$/.exec(body);
  return match !== null && !/^[|>][-+0-9]*\s*(#.*)?$/.test(match[1] as string);
}

/** The indentations of `from` and the lines that enclose it (each less indented than all below it), nearest first. */
function enclosingIndents(lines: readonly string[], from: number): number[] {
  const found: number[] = [];
  let limit = indentOf(lines[from] as string) + 1;
  for (let index = from; index >= 0 && limit > 0; index--) {
    const text = lines[index] as string;
    if (!isMeaningful(text)) continue;
    const indent = indentOf(text);
    if (indent < limit) {
      found.push(indent);
      limit = indent;
    }
  }
  return found;
}

function spaces(n: number): string {
  return `${n} ${n === 1 ? 'space' : 'spaces'}`;
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}
