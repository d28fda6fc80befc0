/**
 * Issue 38: a kind's types flow from the registry (`KindTypes` in `src/kinds/descriptor.ts`), so
 * what one kind reads of another (its live objects, its plan's outcome) needs no cast. A type
 * assertion (`x as T`, `<T>x`) in `src/kinds/` fails here; `as const` is no cast. A value read as
 * JSON is narrowed by a guard that checks it (`src/support/json.ts`). An alert's or a dashboard's
 * manifest with the live values kept at its ignored paths is of a type that admits them
 * (`KeptMembers` of `shared/ignore.ts`), not cast back to the manifest's. None is left.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { SRC, sourceFiles } from './imports.js';

/** Casts still in `src/kinds/`, by file: none. */
const LEFT: Record<string, number> = {};

/** The lines of the type assertions in one file's text (`as const` left out). */
function castLines(file: string, text: string): number[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const lines: number[] = [];
  const visit = (node: ts.Node): void => {
    const isCast = ts.isAsExpression(node) || ts.isTypeAssertionExpression(node);
    const isConst = isCast && ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(source) === 'const';
    if (isCast && !isConst) lines.push(source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

describe('casts in src/kinds/', () => {
  it('finds a cast of either spelling, and not `as const` nor an import alias', () => {
    expect(
      castLines(
        'a.ts',
        "const a = x as LiveDashboard;\nconst b = <LivePipe>y;\nconst c = ['a'] as const;\nimport { z as w } from './z.js';",
      ),
    ).toEqual([1, 2]);
  });

  it('are none', () => {
    const found = Object.fromEntries(
      sourceFiles()
        .filter((file) => file.startsWith('kinds/'))
        .map((file) => [file, castLines(file, readFileSync(join(SRC, file), 'utf8')).length] as const)
        .filter(([, count]) => count > 0),
    );
    expect(found).toEqual(LEFT);
  });

  it('are none in what one kind reads of another (its live objects, its outcome)', () => {
    const crossKind = /\b(?:liveOf\([A-Z_]+\)|planned\.get\([A-Z_]+\)\??\.outcome)[^;]*\bas\b/;
    const offending = sourceFiles()
      .filter((file) => file.startsWith('kinds/'))
      .filter((file) =>
        readFileSync(join(SRC, file), 'utf8')
          .split('\n')
          .some((line) => crossKind.test(line)),
      );
    expect(offending).toEqual([]);
  });
});
