/** `metadata.forEach`: reading, expanding and instantiating templates (pure), and through the loader. */
import { afterAll, describe, expect, it } from 'vitest';
import { instantiate, instantiateAll, listItems, matrixItems, readForEach } from '../../src/manifests/foreach.js';
import { loadManifests } from '../../src/manifests/load.js';
import { formatLocation } from '../../src/errors.js';
import { config as baseConfig, hmac, removeTrees, writeTree } from './helpers.js';
import type { Config } from '../../src/model/config.js';

afterAll(removeTrees);

const withForEach = (forEach: unknown): unknown => ({ kind: 'Alert', metadata: { name: 'x', forEach }, spec: {} });

describe('readForEach', () => {
  const cases: { name: string; forEach: unknown; spec?: unknown; problem?: RegExp; pointer?: (string | number)[] }[] = [
    {
      name: 'a matrix',
      forEach: { service: ['a', 'b'], n: [1, true] },
      spec: {
        matrix: [
          ['service', ['a', 'b']],
          ['n', ['1', 'true']],
        ],
      },
    },
    { name: 'a file', forEach: { fromFile: 'items.yaml' }, spec: { fromFile: 'items.yaml' } },
    { name: 'a list', forEach: ['a'], problem: /must be a mapping/, pointer: ['metadata', 'forEach'] },
    { name: 'an empty mapping', forEach: {}, problem: /must be a mapping/ },
    {
      name: 'a bad variable name',
      forEach: { 'my-var': ['a'] },
      problem: /my-var is not a variable name/,
      pointer: ['metadata', 'forEach', 'my-var'],
    },
    { name: 'an empty list', forEach: { a: [] }, problem: /non-empty list/ },
    {
      name: 'a nested generator',
      forEach: { a: ['x', { b: ['y'] }] },
      problem: /no nesting of generators/,
      pointer: ['metadata', 'forEach', 'a', 1],
    },
    { name: 'fromFile beside lists', forEach: { fromFile: 'x.yaml', a: ['b'] }, problem: /fromFile stands alone/ },
    {
      name: 'fromFile not a path',
      forEach: { fromFile: 3 },
      problem: /must be the path/,
      pointer: ['metadata', 'forEach', 'fromFile'],
    },
  ];
  it.each(cases)('$name', ({ forEach, spec, problem, pointer }) => {
    const read = readForEach(withForEach(forEach));
    if (spec) expect(read).toEqual({ spec });
    if (problem) {
      expect('problem' in read && read.problem.message).toMatch(problem);
      if (pointer) expect('problem' in read && read.problem.pointer).toEqual(pointer);
    }
  });
});

describe('matrixItems', () => {
  const cases: { name: string; matrix: [string, string[]][]; max: number; labels?: string[]; problem?: RegExp }[] = [
    { name: 'one variable', matrix: [['s', ['a', 'b']]], max: 10, labels: ['s=a', 's=b'] },
    {
      name: 'every combination, first variable outermost',
      matrix: [
        ['s', ['a', 'b']],
        ['v', ['1', '2']],
      ],
      max: 10,
      labels: ['s=a, v=1', 's=a, v=2', 's=b, v=1', 's=b, v=2'],
    },
    {
      name: 'exactly the cap',
      matrix: [
        ['s', ['a', 'b']],
        ['v', ['1', '2']],
      ],
      max: 4,
      labels: ['s=a, v=1', 's=a, v=2', 's=b, v=1', 's=b, v=2'],
    },
    {
      name: 'beyond the cap',
      matrix: [
        ['s', ['a', 'b']],
        ['v', ['1', '2', '3']],
      ],
      max: 5,
      problem: /stands for 6 items, more than the 5/,
    },
  ];
  it.each(cases)('$name', ({ matrix, max, labels, problem }) => {
    const result = matrixItems(matrix, max);
    if (labels) expect('items' in result && result.items.map((item) => item.label)).toEqual(labels);
    if (problem) expect('problem' in result && result.problem.message).toMatch(problem);
  });
});

describe('listItems', () => {
  const cases: { name: string; list: unknown; max: number; labels?: string[]; problem?: RegExp }[] = [
    {
      name: 'rows in order',
      list: [
        { s: 'b', n: 2 },
        { s: 'a', n: 1 },
      ],
      max: 10,
      labels: ['s=b, n=2', 's=a, n=1'],
    },
    { name: 'not a list', list: { s: 'a' }, max: 10, problem: /non-empty YAML list of mappings/ },
    { name: 'an empty list', list: [], max: 10, problem: /non-empty YAML list/ },
    { name: 'a row not a mapping', list: [{ s: 'a' }, 'b'], max: 10, problem: /item 2 must be a mapping/ },
    { name: 'a nested value', list: [{ s: ['a'] }], max: 10, problem: /item 1: s must be a string, number or boolean/ },
    { name: 'a bad name', list: [{ 'a-b': 'x' }], max: 10, problem: /item 1: a-b is not a variable name/ },
    { name: 'beyond the cap', list: [{ s: 'a' }, { s: 'b' }], max: 1, problem: /lists 2 items, more than the 1/ },
  ];
  it.each(cases)('$name', ({ list, max, labels, problem }) => {
    const result = listItems(list, 'items.yaml', max);
    if (labels) expect('items' in result && result.items.map((item) => item.label)).toEqual(labels);
    if (problem) expect('problem' in result && result.problem.message).toMatch(problem);
  });
});

describe('instantiate', () => {
  const item = { vars: { service: 'payments', severity: 'page' }, label: 'service=payments, severity=page' };
  const cases: { name: string; text: string; expected: string }[] = [
    { name: 'one variable', text: '${service}', expected: 'payments' },
    { name: 'several in one string', text: '${service}-${severity}', expected: 'payments-page' },
    { name: 'a per-target variable left for its stage', text: '${service} on ${ENV}', expected: 'payments on ${ENV}' },
    {
      name: 'an escaped reference left escaped for the per-target stage',
      text: '$${service}',
      expected: '$${service}',
    },
    { name: 'plain text', text: 'no references', expected: 'no references' },
  ];
  it.each(cases)('$name', ({ text, expected }) => {
    const value = instantiate(
      { kind: 'Alert', metadata: { name: 'n', forEach: { service: ['payments'] } }, spec: { list: [{ text }] } },
      item,
    );
    expect(value).toEqual({ kind: 'Alert', metadata: { name: 'n' }, spec: { list: [{ text: expected }] } });
  });

  it('leaves the template untouched', () => {
    const template = Object.freeze({
      metadata: Object.freeze({ name: '${service}', forEach: Object.freeze({ service: Object.freeze(['a']) }) }),
    });
    instantiate(template, item);
    expect(template.metadata.name).toBe('${service}');
    expect(template.metadata.forEach).toBeDefined();
  });

  it('refuses two items that give one name, naming both, and keeps the rest', () => {
    const items = matrixItems(
      [
        ['service', ['a', 'b', 'c']],
        ['severity', ['page']],
      ],
      10,
    );
    if (!('items' in items)) throw new Error('no items');
    const template = { metadata: { name: '${service}', forEach: {} } };
    const named = instantiateAll({ metadata: { name: 'same' } }, items.items);
    expect(named.instances).toEqual([]);
    expect(named.problems.map((p) => `${p.item.label}: ${p.problem.message}`)).toEqual([
      expect.stringMatching(
        /^service=b, severity=page: gives the name same, as item \(service=a, severity=page\) does/,
      ),
      expect.stringMatching(
        /^service=a, severity=page: gives the name same, as item \(service=b, severity=page\) does/,
      ),
      expect.stringMatching(
        /^service=c, severity=page: gives the name same, as item \(service=a, severity=page\) does/,
      ),
    ]);
    const distinct = instantiateAll(template, items.items);
    expect(distinct.problems).toEqual([]);
    expect(
      distinct.instances.map((instance) => (instance.value as { metadata: { name: string } }).metadata.name),
    ).toEqual(['a', 'b', 'c']);
  });
});

describe('through the loader', () => {
  const config: Config = {
    ...baseConfig,
    targets: baseConfig.targets.map((target) => ({ ...target, vars: { ENV: target.name } })),
  };
  const template = (forEach: string, message = '${service} on ${ENV}'): string => `apiVersion: stacksync/v1
kind: Alert
metadata:
  name: slow-\${service}-\${severity}
  forEach: ${forEach}
spec:
  name: slow \${service} \${severity}
  message: "${message}"
  threshold: 1
  thresholdType: above
  interval: 5m
  source: search
  savedSearchId: search-1
  channel: { type: webhook, webhookId: oncall }
`;

  it('gives one resource per item, each located at the template and naming its item', async () => {
    const dir = await writeTree({ 'alerts.yaml': template('{ service: [a, b], severity: [page, ticket] }') });
    const loaded = await loadManifests(dir, { config, hmac });
    expect(loaded.problems).toEqual([]);
    expect(
      loaded.resources.map((resource) => `${resource.key} ${formatLocation(resource.location).replace(dir, 'D')}`),
    ).toEqual([
      'slow-a-page D/alerts.yaml:1:1 (service=a, severity=page)',
      'slow-a-ticket D/alerts.yaml:1:1 (service=a, severity=ticket)',
      'slow-b-page D/alerts.yaml:1:1 (service=b, severity=page)',
      'slow-b-ticket D/alerts.yaml:1:1 (service=b, severity=ticket)',
    ]);
  });

  it('reports an unset variable at its line, once per item, naming each', async () => {
    const dir = await writeTree({
      'alerts.yaml': template('{ service: [a, b], severity: [page] }', '${service} ${missing}'),
    });
    const loaded = await loadManifests(dir, { config, hmac });
    expect(loaded.resources).toEqual([]);
    expect(loaded.problems.map((problem) => formatLocation(problem.location).replace(dir, 'D'))).toEqual([
      'D/alerts.yaml:8:12 (service=a, severity=page)',
      'D/alerts.yaml:8:12 (service=b, severity=page)',
    ]);
    expect(loaded.problems[0]?.message).toMatch(
      /\$\{missing\} is set by no forEach item \(they set service, severity\) and is not set for target/,
    );
  });

  it('keeps the sound items of a template one of whose items is invalid', async () => {
    const dir = await writeTree({ 'alerts.yaml': template('{ service: [a], severity: [page, "not a name"] }') });
    const loaded = await loadManifests(dir, { config, hmac });
    expect(loaded.resources.map((resource) => resource.key)).toEqual(['slow-a-page']);
    expect(
      loaded.problems.map((problem) => `${formatLocation(problem.location).replace(dir, 'D')} ${problem.message}`),
    ).toEqual([expect.stringMatching(/^D\/alerts\.yaml:4:\d+ \(service=a, severity=not a name\) metadata\.name/)]);
  });

  it('takes items from a list file beside it, which is not loaded as manifests', async () => {
    const dir = await writeTree({
      'a/alerts.yaml': template('{ fromFile: items.yaml }'),
      'a/items.yaml': '- { service: x, severity: page }\n- { service: y, severity: page }\n',
    });
    const loaded = await loadManifests(dir, { config, hmac });
    expect(loaded.problems).toEqual([]);
    expect(loaded.resources.map((resource) => resource.key)).toEqual(['slow-x-page', 'slow-y-page']);
  });

  it('leaves a file of manifests named by fromFile as manifests, and refuses the template', async () => {
    const other = template('{ service: [kept], severity: [page] }');
    const dir = await writeTree({ 'alerts.yaml': template('{ fromFile: other.yaml }'), 'other.yaml': other });
    const loaded = await loadManifests(dir, { config, hmac });
    expect(loaded.resources.map((resource) => resource.key)).toEqual(['slow-kept-page']);
    expect(
      loaded.problems.map((problem) => `${formatLocation(problem.location).replace(dir, 'D')} ${problem.message}`),
    ).toEqual([
      expect.stringMatching(
        /^D\/alerts\.yaml:5:\d+ metadata\.forEach\.fromFile: .*other\.yaml must hold a non-empty YAML list of mappings/,
      ),
    ]);
  });

  it('reports a list file that is not YAML, and refuses the template', async () => {
    const dir = await writeTree({
      'alerts.yaml': template('{ fromFile: items.yaml }'),
      'items.yaml': '- { service: x\n',
    });
    const loaded = await loadManifests(dir, { config, hmac });
    expect(loaded.resources).toEqual([]);
    const messages = loaded.problems.map(
      (problem) => `${formatLocation(problem.location).replace(dir, 'D')} ${problem.code}`,
    );
    expect(messages).toContainEqual(expect.stringMatching(/^D\/items\.yaml:\d+:\d+ E_MANIFEST_PARSE$/));
    expect(messages).toContainEqual(expect.stringMatching(/^D\/alerts\.yaml:5:\d+ E_MANIFEST_INVALID$/));
  });

  it('honours a lower item cap from the limits', async () => {
    const dir = await writeTree({ 'alerts.yaml': template('{ service: [a, b], severity: [page, ticket] }') });
    const loaded = await loadManifests(dir, { config, hmac, limits: { maxForEachItems: 3 } });
    expect(loaded.resources).toEqual([]);
    expect(
      loaded.problems.map((problem) => `${formatLocation(problem.location).replace(dir, 'D')} ${problem.message}`),
    ).toEqual([expect.stringMatching(/^D\/alerts\.yaml:5:\d+ metadata\.forEach: stands for 4 items, more than the 3/)]);
  });
});
