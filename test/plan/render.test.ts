import { describe, expect, it } from 'vitest';
import { planTarget } from '../../src/diff/index.js';
import {
  buildPlan,
  hasChanges,
  planToJson,
  renderPlanGithub,
  renderPlanJson,
  renderPlanText,
} from '../../src/plan/index.js';
import { changeRef, type ChangeResult } from '../../src/model/plan.js';
import { escapeData, escapeProperty, formatAnnotation } from '../../src/plan/render-github.js';
import { planInput } from '../diff/factories.js';
import { samplePlan } from './sample.js';

const TEXT = `Target prod:
  ~ update Pipe/orders  (id p-1, manifests/pipes.yaml:3)
      ~ name: "orders" → "orders-v2"
      ~ source.kafka.credentials: (sensitive) → (sensitive)
  + create Dashboard/api-latency  (manifests/api.yaml:1)
      + name: "API latency"
  ~ update Dashboard/web  (id d-2, manifests/web.yaml:1)
      ~ tiles[p99].w: 4 → 6
      - tiles[old]: {"name":"old"}
      warning: the server deletes alerts watching removed tiles: Alert legacy
  = adopt Dashboard/shared  (id d-3, manifests/shared.yaml:2)
  + create Alert/p99-high  (manifests/api.yaml:20)
      + tileId: (known after apply)
  ! error Pipe/ghost  (manifests/ghost.yaml:4)
      error: E_API_NOT_FOUND: pipe x does not exist
  - delete Alert/gone  (id a-9)
  ? orphan Dashboard/old  (id d-5)
      no manifest names it; apply --prune deletes it

Errors:
  manifests/bad.yaml:3:7: E_MANIFEST_INVALID: spec.tiles[0].w: must be <= 24

Warnings:
  config/stacksync.yaml:9: a plain-string secret; use fromEnv or fromFile

Plan: 2 to create, 2 to update, 1 to delete, 1 to adopt, 1 orphaned (apply --prune deletes them), 1 unchanged, 2 errors.
`;

describe('buildPlan', () => {
  it('counts every action, and errors as problems plus error changes', () => {
    const plan = samplePlan();
    expect(plan.version).toBe(1);
    expect(plan.summary).toEqual({
      create: 2,
      update: 2,
      replace: 0,
      delete: 1,
      adopt: 1,
      orphan: 1,
      suspended: 0,
      unchanged: 1,
      errors: 2,
    });
    expect(hasChanges(plan)).toBe(true);
  });

  it('a plan of unchanged resources has no changes', () => {
    const plan = buildPlan(
      samplePlan().changes.filter((c) => c.action === 'unchanged'),
      [],
    );
    expect(plan.summary).toEqual({
      create: 0,
      update: 0,
      replace: 0,
      delete: 0,
      adopt: 0,
      orphan: 0,
      suspended: 0,
      unchanged: 1,
      errors: 0,
    });
    expect(plan.warnings).toEqual([]);
    expect(hasChanges(plan)).toBe(false);
  });
});

describe('renderPlanText', () => {
  it('groups by target, marks each action, shows field diffs and hides unchanged', () => {
    expect(renderPlanText(samplePlan())).toBe(TEXT);
  });

  it('colours only when asked, and the colours are the only difference', () => {
    const coloured = renderPlanText(samplePlan(), { color: true });
    expect(coloured).toContain('\u001b[32m+ create\u001b[0m');
    expect(coloured).toContain('\u001b[31m- delete\u001b[0m');
    expect(coloured.replace(/\u001b\[\d+m/g, '')).toBe(TEXT);
    expect(TEXT).not.toContain('\u001b');
  });

  it('says so when nothing changes', () => {
    const plan = buildPlan(
      samplePlan().changes.filter((c) => c.action === 'unchanged'),
      [],
    );
    expect(renderPlanText(plan)).toBe(
      'No changes. Live state matches the manifests.\n\nPlan: 0 to create, 0 to update, 0 to delete, 0 to adopt, 1 unchanged, 0 errors.\n',
    );
  });

  it('groups changes of several targets under each target', () => {
    const plan = buildPlan(
      [...samplePlan().changes.slice(1, 2), { ...samplePlan().changes[1]!, target: 'staging' }],
      [],
    );
    const text = renderPlanText(plan);
    expect(text.indexOf('Target prod:')).toBeLessThan(text.indexOf('Target staging:'));
    expect(text.match(/create Dashboard\/api-latency/g)).toHaveLength(2);
  });

  it('shows apply results under their change', () => {
    const plan = samplePlan();
    const results = new Map<string, ChangeResult>([
      [changeRef(plan.changes[1]!), { result: 'failed', code: 'E_API_VALIDATION', error: 'bad tile' }],
    ]);
    expect(renderPlanText(plan, { results })).toContain(
      '  + create Dashboard/api-latency  (manifests/api.yaml:1)\n      + name: "API latency"\n      result: failed: E_API_VALIDATION: bad tile\n',
    );
  });
});

describe('renderPlanJson', () => {
  it('prints the docs/reference/cli.md shape with stable key order', () => {
    const json = JSON.parse(renderPlanJson(samplePlan())) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(['version', 'summary', 'changes', 'errors', 'warnings']);
    expect(Object.keys(json['summary'] as object)).toEqual([
      'create',
      'update',
      'replace',
      'delete',
      'adopt',
      'orphan',
      'suspended',
      'unchanged',
      'errors',
    ]);
    const changes = json['changes'] as Record<string, unknown>[];
    expect(Object.keys(changes[0]!)).toEqual(['target', 'kind', 'name', 'action', 'id', 'file', 'line', 'diff']);
    expect(Object.keys(changes[2]!)).toEqual([
      'target',
      'kind',
      'name',
      'action',
      'id',
      'file',
      'line',
      'diff',
      'warnings',
    ]);
    expect(Object.keys(changes[6]!)).toEqual([
      'target',
      'kind',
      'name',
      'action',
      'file',
      'line',
      'diff',
      'error',
      'code',
    ]);
    expect(changes[7]).toEqual({ target: 'prod', kind: 'Alert', name: 'gone', action: 'delete', id: 'a-9', diff: [] });
    expect(changes[8]).toEqual({
      target: 'prod',
      kind: 'Dashboard',
      name: 'old',
      action: 'orphan',
      id: 'd-5',
      diff: [],
    });
    expect(json['errors']).toEqual([
      {
        file: 'manifests/bad.yaml',
        line: 3,
        column: 7,
        message: 'spec.tiles[0].w: must be <= 24',
        code: 'E_MANIFEST_INVALID',
      },
    ]);
  });

  it('is exactly this for a one-change plan', () => {
    const plan = buildPlan([samplePlan().changes[2]!], []);
    expect(renderPlanJson(plan)).toBe(`{
  "version": 1,
  "summary": {
    "create": 0,
    "update": 1,
    "replace": 0,
    "delete": 0,
    "adopt": 0,
    "orphan": 0,
    "suspended": 0,
    "unchanged": 0,
    "errors": 0
  },
  "changes": [
    {
      "target": "prod",
      "kind": "Dashboard",
      "name": "web",
      "action": "update",
      "id": "d-2",
      "file": "manifests/web.yaml",
      "line": 1,
      "diff": [
        {
          "path": "tiles[p99].w",
          "before": 4,
          "after": 6
        },
        {
          "path": "tiles[old]",
          "before": {
            "name": "old"
          }
        }
      ],
      "warnings": [
        "the server deletes alerts watching removed tiles: Alert legacy"
      ]
    }
  ],
  "errors": []
}
`);
  });

  it('never carries operations, secret hashes or dependencies', () => {
    const text = renderPlanJson(samplePlan());
    for (const key of ['operations', 'secretHashes', 'dependsOn', 'patch', 'TOP-SECRET', 'abc123'])
      expect(text).not.toContain(key);
  });

  it('adds result and error to every change it has results for (apply --output json)', () => {
    const plan = samplePlan();
    const results = new Map<string, ChangeResult>(plan.changes.map((c) => [changeRef(c), { result: 'ok' }]));
    results.set(changeRef(plan.changes[0]!), {
      result: 'failed',
      code: 'E_API_VALIDATION',
      error: 'E_API_VALIDATION: Columns are required',
    });
    const changes = planToJson(plan, { results })['changes'] as Record<string, unknown>[];
    expect(changes[0]).toMatchObject({
      result: 'failed',
      outcome: 'failed',
      error: 'E_API_VALIDATION: Columns are required',
      code: 'E_API_VALIDATION',
    });
    expect(Object.keys(changes[0]!).slice(-4)).toEqual(['result', 'outcome', 'error', 'code']);
    expect(changes[1]).toMatchObject({ result: 'ok' });
    expect(changes[1]).not.toHaveProperty('error');
  });
});

describe('renderPlanGithub', () => {
  it('annotates errors and warnings at their lines, then prints the plain text plan', () => {
    expect(renderPlanGithub(samplePlan())).toBe(
      '::error file=manifests/bad.yaml,line=3,col=7::E_MANIFEST_INVALID: spec.tiles[0].w: must be <= 24\n' +
        '::error file=manifests/ghost.yaml,line=4::[prod] Pipe/ghost: E_API_NOT_FOUND: pipe x does not exist\n' +
        '::warning file=config/stacksync.yaml,line=9::a plain-string secret; use fromEnv or fromFile\n' +
        '::warning file=manifests/web.yaml,line=1::[prod] Dashboard/web: the server deletes alerts watching removed tiles: Alert legacy\n' +
        '\n' +
        TEXT,
    );
  });

  it.each([
    ['data keeps : and , but escapes % CR LF', escapeData('50%: a,b\r\nnext'), '50%25: a,b%0D%0Anext'],
    ['properties escape : and , too', escapeProperty('C:\\dir,x%\n'), 'C%3A\\dir%2Cx%25%0A'],
  ])('%s', (_name, actual, expected) => expect(actual).toBe(expected));

  it('escapes both parts of one annotation, and leaves out absent properties', () => {
    expect(formatAnnotation({ level: 'error', file: 'a,b:c.yaml', line: 2, message: 'bad\nvalue 100%' })).toBe(
      '::error file=a%2Cb%3Ac.yaml,line=2::bad%0Avalue 100%25\n',
    );
    expect(formatAnnotation({ level: 'warning', message: 'target down' })).toBe('::warning::target down\n');
  });
});

describe('secrets never reach any rendering', () => {
  it('a plan that sends credentials shows them only as (sensitive) in every format', () => {
    const secrets = ['kafka-user-s3cr3t', 'P@ss-w0rd-s3cr3t', 'AKIA-s3cr3t', 'aws-s3cr3t-key'];
    const input = planInput({
      desired: [
        {
          kind: 'Pipe',
          key: 'orders',
          pipeId: 'p1',
          source: {
            kind: 'kafka',
            block: {},
            secrets: [
              {
                member: 'credentials',
                fields: { username: { value: secrets[0], hmac: 'h1' }, password: { value: secrets[1], hmac: 'h2' } },
              },
            ],
          },
        },
        {
          kind: 'Pipe',
          key: 'events',
          pipeId: 'p2',
          name: 'events-v2',
          source: {
            kind: 'objectStorage',
            block: {},
            secrets: [
              {
                member: 'accessKey',
                fields: {
                  accessKeyId: { value: secrets[2], hmac: 'h3' },
                  secretKey: { value: secrets[3], hmac: 'h4' },
                },
              },
            ],
          },
        },
      ],
      live: {
        pipes: [
          { id: 'p1', name: 'orders', source: { kind: 'kafka', block: {} }, destination: {} },
          { id: 'p2', name: 'events', source: { kind: 'objectStorage', block: {} }, destination: {} },
        ],
      },
      state: { secretHashes: { 'Pipe/events:source.objectStorage.accessKey.secretKey': 'old' } },
    });
    const changes = planTarget(input);
    // The values are really sent: the operations hold them, and only the operations.
    expect(JSON.stringify(changes.map((c) => c.operations))).toContain(secrets[1]);
    const plan = buildPlan(changes, []);
    const results = new Map<string, ChangeResult>(changes.map((c) => [changeRef(c), { result: 'ok' }]));
    const outputs = [
      renderPlanText(plan),
      renderPlanText(plan, { color: true, results }),
      renderPlanJson(plan),
      renderPlanJson(plan, { results }),
      renderPlanGithub(plan),
    ];
    for (const output of outputs) {
      expect(output).toContain('(sensitive)');
      for (const secret of secrets) expect(output).not.toContain(secret);
    }
  });
});
