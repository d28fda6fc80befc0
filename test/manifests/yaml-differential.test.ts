/**
 * One YAML meaning (issue 25): whatever reads a manifest, its result is what `yaml` gives (YAML
 * 1.2 core schema and stacksync's tag rules), with the same documents, values, lines and
 * problems. The fast reader (js-yaml) may read a text only where it is proven to give exactly
 * that, so both are fed generated texts (see yaml-generator.ts) and any difference fails.
 *
 * To search further than the suite does: YAML_SEED=<n> YAML_COUNT=<n> (and SHOW=<n> differences
 * shown) with `npx vitest run test/manifests/yaml-differential.test.ts`.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseManifestText, parseWithPositions } from '../../src/manifests/parse.js';
import { readPlainYaml } from '../../src/yaml/fast-read.js';
import { generateYamlTexts } from './yaml-generator.js';

const LIMITS = { maxDepth: 64, maxAliasCount: 100, maxNodes: 1_000_000, maxDocuments: 1000 };
/** Fixed, so a failure names a text that can be made again; change it to try others. */
const SEED = Number(process.env['YAML_SEED'] ?? 0x25_0003);
/** About 1,300 valid texts, 700 of them read by the fast reader, and 2,700 broken ones: a second or two. */
const COUNT = Number(process.env['YAML_COUNT'] ?? 4000);

/** The result, or the error thrown (a crash: it fails the comparison unless both crash alike). */
function attempt<T>(read: () => T): T | { thrown: string } {
  try {
    return read();
  } catch (error) {
    return { thrown: String(error) };
  }
}

/** Equal values (-0 is not 0) in the same key order. */
function same(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(a, b) && JSON.stringify(a) === JSON.stringify(b);
}

describe('the fast YAML reader against yaml, on generated texts', () => {
  const texts = generateYamlTexts(SEED, COUNT);
  const outcomes = texts.map(({ text }) => ({
    careful: attempt(() => parseWithPositions(text, LIMITS)),
    result: attempt(() => parseManifestText(text, LIMITS)),
  }));

  it('gives exactly what yaml gives wherever it reads a text', () => {
    const differing = outcomes.flatMap(({ careful, result }, index) => (same(result, careful) ? [] : [index]));
    const shown = differing.slice(0, Number(process.env['SHOW'] ?? 5)).map((index) => ({
      index,
      style: texts[index]?.style,
      text: JSON.stringify(texts[index]?.text),
      fast: JSON.stringify(attempt(() => readPlainYaml(texts[index]?.text ?? '', LIMITS))),
      careful: JSON.stringify(outcomes[index]?.careful),
    }));
    expect({ count: differing.length, shown }).toEqual({ count: 0, shown: [] });
  });

  it('never crashes, on any text', () => {
    const crashed = outcomes.flatMap(({ careful }, index) =>
      'thrown' in careful ? [{ index, text: texts[index]?.text, thrown: careful.thrown }] : [],
    );
    expect(crashed.slice(0, 5)).toEqual([]);
  });

  it('is fed texts of every kind: some it reads, some it leaves to yaml, some that are errors', () => {
    const taken = texts.filter(({ text }) => readPlainYaml(text, LIMITS) !== undefined).length;
    const broken = outcomes.filter(({ careful }) => 'problems' in careful && careful.problems.length > 0).length;
    const valid = COUNT - broken;
    const counts = JSON.stringify({ taken, broken, valid });
    // Not vacuous: the fast reader takes a good share, and both valid and broken texts are tried.
    expect(taken / valid, counts).toBeGreaterThan(0.4);
    expect(broken / COUNT, counts).toBeGreaterThan(0.2);
    expect(valid / COUNT, counts).toBeGreaterThan(0.3);
  });
});
