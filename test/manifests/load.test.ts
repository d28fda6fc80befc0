import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifests/load.js';
import { KIND_LIST } from '../helpers/kinds.js';
import type { LoadProblem } from '../../src/model/desired.js';
import type { DesiredAlert } from '../../src/kinds/alert/model.js';
import type { DesiredDashboard } from '../../src/kinds/dashboard/model.js';
import type { DesiredPipe } from '../../src/kinds/pipe/model.js';
import { PIPE_ID, alert, config, dashboard, hmac, kafkaPipe, removeTrees, writeTree, type Tree } from './helpers.js';

afterAll(removeTrees);

const env = { KAFKA_USER: 'kafka-user-value', KAFKA_PASSWORD: 'kafka-password-value' };

async function load(tree: Tree, options: { withConfig?: boolean } = {}) {
  const dir = await writeTree(tree);
  const result = await loadManifests(dir, { ...(options.withConfig === false ? {} : { config }), hmac, env });
  const rel = (p: LoadProblem) => ({ ...p, location: { ...p.location, file: p.location.file.slice(dir.length + 1) } });
  return { dir, ...result, problems: result.problems.map(rel), warnings: result.warnings.map(rel) };
}

const postgresPipe = (mappings: string): string => `apiVersion: stacksync/v1
kind: Pipe
metadata:
  name: billing
spec:
  pipeId: 7a0e1f2c-0004-4b3a-9c4d-5e6f7a8b9c04
  source:
    postgres:
      tableMappings:
${mappings}`;

const mapping = (table: string): string =>
  `        - { sourceSchemaName: public, sourceTable: ${table}, targetTable: ${table} }\n`;

interface Row {
  name: string;
  tree: Tree;
  want: { file: string; line: number; column?: number; code: LoadProblem['code']; message: string }[];
  blocked: string[];
  /** `Kind/key` of the resources that still load. */
  resources: string[];
}

const rows: Row[] = [
  {
    name: 'unknown kind',
    tree: { 'a.yaml': dashboard('api').replace('kind: Dashboard', 'kind: Dashbaord') },
    want: [
      {
        file: 'a.yaml',
        line: 2,
        column: 7,
        code: 'E_MANIFEST_INVALID',
        message: `kind: must be one of ${KIND_LIST}`,
      },
    ],
    blocked: ['prod'],
    resources: [],
  },
  {
    name: 'unknown apiVersion',
    tree: { 'a.yaml': dashboard('api').replace('stacksync/v1', 'stacksync/v2') },
    want: [
      {
        file: 'a.yaml',
        line: 1,
        column: 13,
        code: 'E_MANIFEST_INVALID',
        message: 'apiVersion: must be "stacksync/v1"',
      },
    ],
    blocked: ['prod'],
    resources: [],
  },
  {
    name: 'duplicate metadata.name of one kind in one target',
    tree: {
      'a.yaml': dashboard('api'),
      'b/c.yaml': `# another copy\n${dashboard('api')}`,
      'd.yaml': dashboard('api', '', 'sh'),
    },
    want: [
      {
        file: 'a.yaml',
        line: 4,
        column: 9,
        code: 'E_MANIFEST_DUPLICATE',
        message: 'metadata.name: Dashboard api is defined again for target prod at',
      },
      {
        file: 'b/c.yaml',
        line: 5,
        column: 9,
        code: 'E_MANIFEST_DUPLICATE',
        message: 'metadata.name: Dashboard api is already defined for target prod at',
      },
    ],
    blocked: ['prod'],
    resources: ['Dashboard/api@sh'],
  },
  {
    name: 'two manifests with one API name (spec.name) of one kind in one target',
    tree: {
      'a.yaml': dashboard('api'),
      'b.yaml': dashboard('web').replace('name: web board', 'name: api board'),
      'c.yaml': dashboard('other', '', 'sh').replace('name: other board', 'name: api board'),
    },
    want: [
      {
        file: 'a.yaml',
        line: 6,
        column: 9,
        code: 'E_MANIFEST_DUPLICATE',
        message: 'spec.name: a Dashboard named "api board" is defined again for target prod at',
      },
      {
        file: 'b.yaml',
        line: 6,
        column: 9,
        code: 'E_MANIFEST_DUPLICATE',
        message: 'spec.name: a Dashboard named "api board" is already defined for target prod at',
      },
    ],
    blocked: ['prod'],
    resources: ['Dashboard/other@sh'],
  },
  {
    name: 'a target that is not configured',
    tree: { 'a.yaml': dashboard('api', '', 'staging') },
    want: [
      {
        file: 'a.yaml',
        line: 5,
        column: 11,
        code: 'E_REF_UNRESOLVED',
        message: 'metadata.target: names no target in the config; the targets are prod, sh',
      },
    ],
    blocked: ['*'],
    resources: [],
  },
  {
    name: 'an alert on a target that is not configured gets only that problem',
    tree: { 'a.yaml': dashboard('api'), 'b.yaml': alert('slow', 'api', 'p99', 'staging') },
    want: [
      {
        file: 'b.yaml',
        line: 5,
        column: 11,
        code: 'E_REF_UNRESOLVED',
        message: 'metadata.target: names no target in the config',
      },
    ],
    blocked: ['*'],
    resources: ['Dashboard/api@prod'],
  },
  {
    name: 'a Pipe on a self-hosted target',
    tree: { 'p.yaml': kafkaPipe().replace('name: orders\n', 'name: orders\n  target: sh\n') },
    want: [
      {
        file: 'p.yaml',
        line: 5,
        column: 11,
        code: 'E_MANIFEST_INVALID',
        message: 'metadata.target: a Pipe needs a managed target, and sh is self-hosted',
      },
    ],
    blocked: ['sh'],
    resources: [],
  },
  {
    name: 'an alert whose dashboard names nothing',
    tree: { 'a.yaml': `${dashboard('api')}---\n${alert('slow', 'apii', 'p99')}` },
    want: [
      {
        file: 'a.yaml',
        line: 35,
        column: 14,
        code: 'E_REF_UNRESOLVED',
        message: 'spec.dashboard: names no Dashboard manifest of target prod; its dashboards are api',
      },
    ],
    blocked: ['prod'],
    resources: ['Dashboard/api@prod'],
  },
  {
    name: "an alert on another target's dashboard",
    tree: { 'a.yaml': dashboard('api', '', 'sh'), 'b.yaml': alert('slow', 'api', 'p99') },
    want: [
      {
        file: 'b.yaml',
        line: 11,
        column: 14,
        code: 'E_REF_UNRESOLVED',
        message: 'spec.dashboard: names no Dashboard manifest of target prod',
      },
    ],
    blocked: ['prod'],
    resources: ['Dashboard/api@sh'],
  },
  {
    name: 'an alert whose tile names nothing',
    tree: { 'a.yaml': dashboard('api'), 'b.yaml': alert('slow', 'api', 'p95') },
    want: [
      {
        file: 'b.yaml',
        line: 12,
        column: 9,
        code: 'E_REF_UNRESOLVED',
        message: 'spec.tile: Dashboard api has no tile named p95; its tiles are p99, errors',
      },
    ],
    blocked: ['prod'],
    resources: ['Dashboard/api@prod'],
  },
  {
    name: 'an alert on a dashboard that has errors',
    tree: { 'a.yaml': dashboard('api').replace('w: 6', 'w: 0'), 'b.yaml': alert('slow', 'api', 'p99') },
    want: [
      { file: 'a.yaml', line: 12, column: 10, code: 'E_MANIFEST_INVALID', message: 'spec.tiles[0].w: must be >= 1' },
      {
        file: 'b.yaml',
        line: 11,
        column: 14,
        code: 'E_REF_UNRESOLVED',
        message: 'spec.dashboard: Dashboard api has errors',
      },
    ],
    blocked: ['prod'],
    resources: [],
  },
  {
    name: 'a duplicate tile name',
    tree: { 'a.yaml': dashboard('api').replace('- name: errors', '- name: p99') },
    want: [
      {
        file: 'a.yaml',
        line: 16,
        column: 13,
        code: 'E_MANIFEST_DUPLICATE',
        message: 'spec.tiles[1].name: tile name p99 is already used by tiles[0]',
      },
    ],
    blocked: ['prod'],
    resources: [],
  },
  {
    name: 'a source table mapped twice',
    tree: { 'p.yaml': postgresPipe(mapping('invoices') + mapping('customers') + mapping('invoices')) },
    want: [
      {
        file: 'p.yaml',
        line: 12,
        column: 11,
        code: 'E_MANIFEST_DUPLICATE',
        message:
          'spec.source.postgres.tableMappings[2]: source table public.invoices is already mapped by tableMappings[0]',
      },
    ],
    blocked: ['prod'],
    resources: [],
  },
  {
    name: 'schema errors, all of them, each on its node',
    tree: {
      'a.yaml': dashboard('API')
        .replace('tags: [team-a]', 'tags: [team-a]\n  colour: red')
        .replace('w: 6', 'w: 25')
        .replace('aggFn: quantile, ', ''),
    },
    want: [
      {
        file: 'a.yaml',
        line: 4,
        column: 9,
        code: 'E_MANIFEST_INVALID',
        message: "metadata.name: must be lowercase letters, digits and '-'",
      },
      {
        file: 'a.yaml',
        line: 8,
        column: 3,
        code: 'E_MANIFEST_INVALID',
        message: 'spec.colour: is not a known member here; expected one of name, tags, tiles',
      },
      { file: 'a.yaml', line: 13, column: 10, code: 'E_MANIFEST_INVALID', message: 'spec.tiles[0].w: must be <= 24' },
      {
        file: 'a.yaml',
        line: 16,
        column: 11,
        code: 'E_MANIFEST_INVALID',
        message: 'spec.tiles[0].series[0].aggFn: is required',
      },
    ],
    blocked: ['prod'],
    resources: [],
  },
  {
    name: 'alert fields that do not fit its source',
    tree: {
      'a.yaml': dashboard('api'),
      'b.yaml': alert('slow', 'api', 'p99')
        .replace('source: tile', 'source: search')
        .replace('threshold: 1.5', 'threshold: high')
        .replace('webhookId: hook-1', 'id: x'),
    },
    want: [
      {
        file: 'b.yaml',
        line: 6,
        column: 3,
        code: 'E_MANIFEST_INVALID',
        message: 'spec: must set exactly one of savedSearchId, savedSearch',
      },
      {
        file: 'b.yaml',
        line: 7,
        column: 14,
        code: 'E_MANIFEST_INVALID',
        message: 'spec.threshold: must be a number (got a string)',
      },
      {
        file: 'b.yaml',
        line: 11,
        column: 3,
        code: 'E_MANIFEST_INVALID',
        message: 'spec.dashboard: is not allowed here when source is search',
      },
      {
        file: 'b.yaml',
        line: 12,
        column: 3,
        code: 'E_MANIFEST_INVALID',
        message: 'spec.tile: is not allowed here when source is search',
      },
      {
        file: 'b.yaml',
        line: 13,
        column: 12,
        code: 'E_MANIFEST_INVALID',
        message: 'spec.channel: must set exactly one of webhookId, webhook',
      },
      {
        file: 'b.yaml',
        line: 13,
        column: 29,
        code: 'E_MANIFEST_INVALID',
        message: 'spec.channel.id: is not a known member here; expected one of type, webhookId, webhook,',
      },
    ],
    blocked: ['prod'],
    resources: ['Dashboard/api@prod'],
  },
  {
    name: 'a pipe with two source kinds and a bad id',
    tree: { 'p.yaml': kafkaPipe().replace(PIPE_ID, 'orders').replace('    kafka:\n', '    kinesis: {}\n    kafka:\n') },
    want: [
      { file: 'p.yaml', line: 6, column: 11, code: 'E_MANIFEST_INVALID', message: 'spec.pipeId: must be a UUID' },
      {
        file: 'p.yaml',
        line: 9,
        column: 5,
        code: 'E_MANIFEST_INVALID',
        message: 'spec.source: must set exactly one of kafka, objectStorage, kinesis, postgres',
      },
    ],
    blocked: ['prod'],
    resources: [],
  },
  {
    name: 'a pipe changing a member Update pipe cannot change',
    tree: { 'p.yaml': kafkaPipe().replace('      iamRole:', '      brokers: b:9092\n      iamRole:') },
    want: [
      {
        file: 'p.yaml',
        line: 10,
        column: 7,
        code: 'E_MANIFEST_INVALID',
        message:
          'spec.source.kafka.brokers: is not a known member here; expected one of iamRole, caCertificate, reversePrivateEndpointIds, authentication, tlsHost, disableTls, credentials',
      },
    ],
    blocked: ['prod'],
    resources: [],
  },
  {
    name: 'YAML that does not parse, beside a good file',
    tree: { 'a.yaml': 'apiVersion: stacksync/v1\nkind: Dashboard\nspec: { name: [x\n', 'b.yaml': dashboard('api') },
    want: [
      // The first parser error of the document only: the rest is the same mistake seen again.
      {
        file: 'a.yaml',
        line: 4,
        code: 'E_MANIFEST_PARSE',
        message: 'invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
      },
    ],
    blocked: ['*'],
    resources: ['Dashboard/api@prod'],
  },
  {
    name: 'a document that is not a mapping',
    tree: { 'a.yaml': `${dashboard('api')}---\n- just\n- a list\n` },
    want: [
      {
        file: 'a.yaml',
        line: 25,
        column: 1,
        code: 'E_MANIFEST_INVALID',
        message: '(document): must be a mapping (got a list)',
      },
    ],
    blocked: ['*'],
    resources: ['Dashboard/api@prod'],
  },
  {
    name: 'duplicate keys in a mapping',
    tree: { 'a.yaml': dashboard('api').replace('  tags: [team-a]\n', '  tags: [team-a]\n  tags: [team-b]\n') },
    want: [
      {
        file: 'a.yaml',
        line: 8,
        column: 3,
        code: 'E_MANIFEST_PARSE',
        message: 'invalid YAML: Map keys must be unique',
      },
    ],
    blocked: ['*'],
    resources: [],
  },
];

describe('loadManifests: rejections name file, line and column', () => {
  it.each(rows)('$name', async ({ tree, want, blocked, resources }) => {
    const result = await load(tree);
    expect(result.problems.map((p) => `${p.location.file}:${p.location.line}: ${p.code}`)).toEqual(
      want.map((w) => `${w.file}:${w.line}: ${w.code}`),
    );
    want.forEach((w, i) => {
      const got = result.problems[i];
      expect(got?.message).toContain(w.message);
      if (w.column !== undefined) expect(got?.location.column).toBe(w.column);
    });
    expect([...result.blockedTargets].sort()).toEqual(blocked);
    // Every problem blocks the target it belongs to ('*' when it cannot be told).
    for (const p of result.problems) expect(result.blockedTargets.has(p.target ?? '*')).toBe(true);
    expect(result.resources.map((r) => `${r.kind}/${r.key}@${r.target}`)).toEqual(resources);
  });
});

describe('loadManifests: the desired model', () => {
  it('reads every yaml/yml file recursively and in order, multi-document, skipping dot entries and other files', async () => {
    const { resources, problems, warnings } = await load({
      'z.yml': dashboard('zeta'),
      'a.yaml': `# yaml-language-server: $schema=../schemas/dashboard.json\n${dashboard('api')}---\n${alert('slow', 'api', 'p99')}---\n# an empty document\n`,
      'nested/deeper/b.yaml': dashboard('beta', '', 'sh'),
      '.github/workflows/ci.yml': 'on: push\n',
      '.hidden.yaml': 'not: a manifest\n',
      'README.md': '# notes\n',
      'empty.yaml': '',
    });
    expect(problems).toEqual([]);
    expect(warnings).toEqual([]);
    expect(
      resources.map((r) => [r.kind, r.key, r.target, r.location.file.split('/').slice(-1)[0], r.location.line]),
    ).toEqual([
      ['Dashboard', 'api', 'prod', 'a.yaml', 2],
      ['Alert', 'slow', 'prod', 'a.yaml', 26],
      ['Dashboard', 'beta', 'sh', 'b.yaml', 1],
      ['Dashboard', 'zeta', 'prod', 'z.yml', 1],
    ]);
  });

  it('builds dashboards and alerts with references by name, each with the line of its document', async () => {
    const { dir, resources } = await load({ 'a.yaml': `${dashboard('api')}---\n${alert('slow', 'api', 'p99')}` });
    const [board, watch] = resources as [DesiredDashboard, DesiredAlert];
    expect(board).toEqual({
      kind: 'Dashboard',
      key: 'api',
      target: 'prod',
      location: { file: join(dir, 'a.yaml'), line: 1, column: 1 },
      name: 'api board',
      tags: ['team-a'],
      tiles: [
        { name: 'p99', x: 0, y: 0, w: 6, h: 4, series: [{ type: 'time', aggFn: 'quantile', dataSource: 'events' }] },
        {
          name: 'errors',
          x: 6,
          y: 0,
          w: 6,
          h: 4,
          asRatio: true,
          series: [{ type: 'number', aggFn: 'count', where: 'level:error' }],
        },
      ],
    });
    expect(watch).toEqual({
      kind: 'Alert',
      key: 'slow',
      target: 'prod',
      location: { file: join(dir, 'a.yaml'), line: 25, column: 1 },
      name: 'slow alert',
      threshold: 1.5,
      thresholdType: 'above',
      interval: '5m',
      source: 'tile',
      dashboard: 'api',
      tile: 'p99',
      channel: { type: 'webhook', webhookId: 'hook-1' },
    });
  });

  it('builds pipes with resolved secrets (env, and files relative to the manifest) and their HMACs', async () => {
    const { resources, problems } = await load({
      'pipes/p.yaml': kafkaPipe(
        '\n      credentials:\n        username: { fromEnv: KAFKA_USER }\n        password: { fromFile: ../secrets/kafka-password }',
      ),
      'secrets/kafka-password': 'file-password-value\n',
    });
    expect(problems).toEqual([]);
    const pipe = resources[0] as DesiredPipe;
    expect(pipe).toMatchObject({
      kind: 'Pipe',
      key: 'orders',
      target: 'prod',
      pipeId: PIPE_ID,
      name: 'orders-kafka',
      source: {
        kind: 'kafka',
        block: { iamRole: 'arn:aws:iam::123:role/ingest' },
        secrets: [
          {
            member: 'credentials',
            fields: {
              username: { value: 'kafka-user-value', hmac: 'hmac(16)' },
              password: { value: 'file-password-value', hmac: 'hmac(19)' },
            },
          },
        ],
      },
      columns: [{ name: 'id', type: 'UInt64' }],
      fieldMappings: [{ sourceField: 'id', destinationField: 'id' }],
      settings: { streaming_max_insert_wait_ms: 5000 },
    });
    expect(pipe.source).not.toHaveProperty('tableMappings');
  });

  it.each([
    [
      'env var',
      '\n      credentials:\n        username: { fromEnv: KAFKA_USER }\n        password: { fromEnv: KAFKA_PASSWORD_TYPO }',
      13,
      'spec.source.kafka.credentials.password: env var KAFKA_PASSWORD_TYPO is not set',
    ],
    [
      'file',
      '\n      credentials:\n        username: { fromFile: secrets/user }\n        password: { fromEnv: KAFKA_PASSWORD }',
      12,
      'spec.source.kafka.credentials.username: file ',
    ],
  ])(
    'a secret whose %s cannot be read is a warning at its line, and the pipe is built with it unknown, blocking nothing',
    async (_what, credentials, line, message) => {
      const { problems, warnings, resources, blockedTargets } = await load({ 'p.yaml': kafkaPipe(credentials) });
      expect(problems).toEqual([]);
      expect([...blockedTargets]).toEqual([]);
      const warning = warnings.find((each) => each.code === 'E_SECRET_MISSING');
      expect(warning?.location).toMatchObject({ file: 'p.yaml', line });
      expect(warning?.message).toContain(message);
      expect(warning?.message).toContain('unknown in this plan');
      const pipe = resources[0] as DesiredPipe;
      const fields = pipe.source?.secrets?.[0]?.fields ?? {};
      const unknown = Object.values(fields).filter((secret) => secret.unknown !== undefined);
      expect(unknown).toHaveLength(1);
      expect(unknown[0]).toMatchObject({ value: '', hmac: '' });
    },
  );

  it('keeps the full postgres mapping list and validateSamples, and warns about plain-string secrets', async () => {
    const tree = {
      'p.yaml': postgresPipe(mapping('invoices') + mapping('customers')).replace(
        '    postgres:\n',
        '    validateSamples: true\n    postgres:\n      port: 5432\n      credentials: { username: billing, password: { fromEnv: KAFKA_PASSWORD } }\n',
      ),
    };
    const { resources, problems, warnings } = await load(tree);
    expect(problems).toEqual([]);
    expect((resources[0] as DesiredPipe).source).toEqual({
      kind: 'postgres',
      block: { port: 5432 },
      secrets: [
        {
          member: 'credentials',
          fields: {
            username: { value: 'billing', hmac: 'hmac(7)' },
            password: { value: 'kafka-password-value', hmac: 'hmac(20)' },
          },
        },
      ],
      tableMappings: [
        { sourceSchemaName: 'public', sourceTable: 'invoices', targetTable: 'invoices' },
        { sourceSchemaName: 'public', sourceTable: 'customers', targetTable: 'customers' },
      ],
      validateSamples: true,
    });
    expect(warnings.map((w) => `${w.location.file}:${w.location.line}:${w.location.column}: ${w.message}`)).toEqual([
      'p.yaml:11:32: spec.source.postgres.credentials.username: is a plain string in the manifest; use {fromEnv: NAME} or {fromFile: PATH} to keep secrets out of Git',
    ]);
  });

  it('allows the same name for different kinds and different targets', async () => {
    const { resources, problems } = await load({
      'a.yaml': `${dashboard('api')}---\n${dashboard('api', '', 'sh')}---\n${alert('api', 'api', 'p99')}---\n${alert('api', 'api', 'p99', 'sh')}`,
    });
    expect(problems).toEqual([]);
    expect(resources.map((r) => `${r.kind}/${r.key}@${r.target}`)).toEqual([
      'Dashboard/api@prod',
      'Dashboard/api@sh',
      'Alert/api@prod',
      'Alert/api@sh',
    ]);
  });

  it('without a config, checks everything but targets and says which target is assumed', async () => {
    const { resources, problems } = await load(
      {
        'a.yaml': `${dashboard('api', '', 'anywhere')}---\n${alert('slow', 'api', 'p99', 'anywhere')}---\n${alert('fast', 'api', 'p99')}`,
      },
      { withConfig: false },
    );
    expect(resources.map((r) => `${r.kind}/${r.key}@${r.target}`)).toEqual([
      'Dashboard/api@anywhere',
      'Alert/slow@anywhere',
    ]);
    expect(problems.map((p) => p.message)).toEqual([
      'spec.dashboard: names no Dashboard manifest of the default target',
    ]);
  });

  it('reports a missing manifests directory as a problem blocking every target', async () => {
    const result = await loadManifests('/nonexistent/stacksync/manifests', { config, hmac });
    expect(result.problems).toEqual([
      {
        code: 'E_MANIFEST_PARSE',
        message: 'the manifests directory cannot be read (ENOENT)',
        location: { file: '/nonexistent/stacksync/manifests' },
      },
    ]);
    expect([...result.blockedTargets]).toEqual(['*']);
  });

  it('names files as the directory was given', async () => {
    const dir = await writeTree({ 'x/a.yaml': dashboard('api').replace('w: 6', 'w: 0') });
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const result = await loadManifests('x', { config, hmac });
      expect(result.problems[0]?.location).toEqual({ file: join('x', 'a.yaml'), line: 12, column: 10 });
    } finally {
      process.chdir(cwd);
    }
  });
});
