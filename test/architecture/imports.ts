/**
 * The import graph of src/, read with the TypeScript compiler's own pre-processor (the same
 * imports `tsc` follows), for checks on the structure: no cycles between files or folders.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export const SRC = new URL('../../src/', import.meta.url).pathname;

/** Every .ts file under src/, as a path relative to src/. */
export function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return entry.endsWith('.ts') ? [relative(SRC, path)] : [];
  });
}

/** File → the src/ files it imports (type-only imports included: they tie the files too). */
export function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles()) {
    const info = ts.preProcessFile(readFileSync(join(SRC, file), 'utf8'), true, true);
    const targets = info.importedFiles
      .map((imported) => imported.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => relative(SRC, resolve(SRC, dirname(file), name)).replace(/\.js$/, '.ts'));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The folder of a file (`diff` for `diff/alerts.ts`); a file at the top of src/ stands for itself. */
export function folderOf(file: string): string {
  const dir = dirname(file);
  return dir === '.' ? file : (dir.split('/')[0] ?? file);
}

/** Folder → folders it imports, from the file graph. */
export function folderGraph(files: ReadonlyMap<string, string[]>): Map<string, string[]> {
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of files) {
    const from = folderOf(file);
    const edges = folders.get(from) ?? new Set<string>();
    for (const target of targets) if (folderOf(target) !== from) edges.add(folderOf(target));
    folders.set(from, edges);
  }
  return new Map([...folders].map(([folder, edges]) => [folder, [...edges].sort()]));
}

/** Every cycle's members (strongly connected components of more than one node, or a self-loop), by Tarjan's algorithm. */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    indexOf.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indexOf.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indexOf.get(next)!));
      }
    }
    if (low.get(node) !== indexOf.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!indexOf.has(node)) visit(node);
  return found;
}
