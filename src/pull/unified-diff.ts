/**
 * A unified diff of two texts (`--- a/…`, `+++ b/…`, `@@ -l,n +l,n @@` hunks with three lines of
 * context), as `git apply` and `patch` read it: what `pull --dry-run` prints. The lines common to
 * both ends are set aside first, so the quadratic longest-common-subsequence only sees the
 * changed middle (a pull changes a few lines of a file).
 */

const CONTEXT = 3;

type Line = { op: ' ' | '-' | '+'; text: string };

export function unifiedDiff(path: string, before: string, after: string): string {
  if (before === after) return '';
  const a = splitLines(before);
  const b = splitLines(after);
  const lines = diffLines(a, b);
  const hunks = hunksOf(lines);
  const header = [`--- a/${path}`, `+++ b/${path}`];
  return `${[...header, ...hunks].join('\n')}\n`;
}

/** Lines with their endings cut, so a CRLF file shows as text; a last line without one is marked as diff does. */
function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n').map((line) => line.replace(/\r$/, ''));
  if (lines[lines.length - 1] === '') lines.pop();
  else lines[lines.length - 1] += '\n\\ No newline at end of file';
  return lines;
}

function diffLines(a: readonly string[], b: readonly string[]): Line[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const middleA = a.slice(head, a.length - tail);
  const middleB = b.slice(head, b.length - tail);
  const same = (text: string): Line => ({ op: ' ', text });
  return [...a.slice(0, head).map(same), ...lcsDiff(middleA, middleB), ...a.slice(a.length - tail).map(same)];
}

function lcsDiff(a: readonly string[], b: readonly string[]): Line[] {
  const width = b.length + 1;
  const table = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i * width + j] =
        a[i] === b[j]
          ? (table[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(table[(i + 1) * width + j] ?? 0, table[i * width + j + 1] ?? 0);
    }
  }
  const out: Line[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ op: ' ', text: a[i++] as string });
      j++;
    } else if ((table[(i + 1) * width + j] ?? 0) >= (table[i * width + j + 1] ?? 0))
      out.push({ op: '-', text: a[i++] as string });
    else out.push({ op: '+', text: b[j++] as string });
  }
  while (i < a.length) out.push({ op: '-', text: a[i++] as string });
  while (j < b.length) out.push({ op: '+', text: b[j++] as string });
  return out;
}

function hunksOf(lines: readonly Line[]): string[] {
  const out: string[] = [];
  let index = 0;
  while (index < lines.length) {
    const firstChange = lines.findIndex((line, at) => at >= index && line.op !== ' ');
    if (firstChange === -1) break;
    const start = Math.max(index, firstChange - CONTEXT);
    let end = firstChange;
    // Extend while the next change is within twice the context of the last one.
    for (let at = firstChange; at < lines.length; at++) {
      if (lines[at]?.op !== ' ') end = at;
      else if (at - end > 2 * CONTEXT) break;
    }
    const stop = Math.min(lines.length, end + CONTEXT + 1);
    const hunk = lines.slice(start, stop);
    const oldStart = lines.slice(0, start).filter((line) => line.op !== '+').length + 1;
    const newStart = lines.slice(0, start).filter((line) => line.op !== '-').length + 1;
    const oldCount = hunk.filter((line) => line.op !== '+').length;
    const newCount = hunk.filter((line) => line.op !== '-').length;
    out.push(
      `@@ -${oldCount === 0 ? oldStart - 1 : oldStart},${oldCount} +${newCount === 0 ? newStart - 1 : newStart},${newCount} @@`,
    );
    for (const line of hunk) out.push(`${line.op}${line.text}`);
    index = stop;
  }
  return out;
}
