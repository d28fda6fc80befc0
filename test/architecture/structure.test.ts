/**
 * The structure of src/ (docs/architecture.md): no import cycle between files or between
 * folders, so each folder is a stage that only looks down the data flow.
 */
import { describe, expect, it } from 'vitest';
import { cycles, folderGraph, importGraph } from './imports.js';

const files = importGraph();

describe('the import graph of src/', () => {
  it('is read: every folder of the layout has files', () => {
    const folders = new Set(folderGraph(files).keys());
    for (const folder of [
      'model',
      'schema',
      'yaml',
      'config',
      'manifests',
      'api',
      'diff',
      'plan',
      'apply',
      'state',
      'reconcile',
      'daemon',
      'emulator',
      'cli',
      'support',
    ]) {
      expect(folders, folder).toContain(folder);
    }
  });

  it('has no cycle between files', () => {
    expect(cycles(files)).toEqual([]);
  });

  it('has no cycle between folders', () => {
    expect(cycles(folderGraph(files))).toEqual([]);
  });

  it('finds a cycle when there is one (the check can fail)', () => {
    const graph = new Map([
      ['a/x.ts', ['b/y.ts']],
      ['b/y.ts', ['a/z.ts']],
      ['a/z.ts', []],
    ]);
    expect(cycles(graph)).toEqual([]);
    expect(cycles(folderGraph(graph))).toEqual([['a', 'b']]);
  });

  it('keeps model/ and schema/ free of behaviour imports: they import nothing above them', () => {
    const folders = folderGraph(files);
    expect(folders.get('schema')).toEqual([]);
    expect(folders.get('model')?.filter((folder) => folder !== 'schema' && folder !== 'errors.ts')).toEqual([]);
  });
});
