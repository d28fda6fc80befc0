import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { StacksyncError } from '../../src/errors.js';

const ORG = '0b4f6c1e-4d2a-4f6b-9a51-7c3d2e1f0a01';
const SVC = '9c1e2b7e-3a4d-4c5b-8e6f-1a2b3c4d5e01';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stacksync-config-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function write(name: string, text: string | Uint8Array): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

async function problemsOf(text: string): Promise<{ line?: number; column?: number; message: string }[]> {
  const path = await write(`c-${Math.random().toString(36).slice(2)}.yaml`, text);
  try {
    await loadConfig(path);
  } catch (error) {
    expect(error).toBeInstanceOf(StacksyncError);
    const e = error as StacksyncError;
    expect(e.code).toBe('E_CONFIG_INVALID');
    const problems = (e.details?.['problems'] ?? []) as {
      file: string;
      line?: number;
      column?: number;
      message: string;
    }[];
    for (const p of problems) expect(p.file).toBe(path);
    return problems;
  }
  throw new Error('expected the config to be rejected');
}

const managed = `targets:
  - name: prod
    variant: managed
    baseUrl: https://api.example.com/
    organizationId: ${ORG}
    serviceId: ${SVC}
    auth:
      keyId: { fromEnv: KEY_ID }
      keySecret: { fromFile: secrets/key }
`;

describe('loadConfig: defaults and normalisation', () => {
  it('fills every default and freezes the result', async () => {
    const path = await write('ok.yaml', managed);
    const { config, warnings } = await loadConfig(path);
    expect(warnings).toEqual([]);
    expect(config).toEqual({
      file: resolve(path),
      targets: [
        {
          name: 'prod',
          variant: 'managed',
          baseUrl: 'https://api.example.com',
          organizationId: ORG,
          serviceId: SVC,
          auth: { keyId: { fromEnv: 'KEY_ID' }, keySecret: { fromFile: join(dir, 'secrets/key') } },
          rateLimit: { requests: 10, perSeconds: 10, concurrency: 2 },
          api: { profile: 'seed' },
        },
      ],
      defaultTarget: 'prod',
      sync: {
        intervalMs: 300_000,
        drift: 'heal',
        prune: false,
        maxDeletes: 10,
        maxDeletePercent: 25,
        adopt: false,
        lateCreateWindowMs: 120_000,
        markManaged: false,
      },
      state: { backend: 'file', path: resolve('.stacksync/state.json') },
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.targets[0])).toBe(true);
    expect(Object.isFrozen(config.sync)).toBe(true);
  });

  it('takes explicit settings, merges a partial rate limit with the variant default', async () => {
    const path = await write(
      'explicit.yaml',
      `${managed}  - name: sh
    variant: self-hosted
    baseUrl: http://127.0.0.1:8000
    auth: { token: { fromEnv: TOKEN } }
    rateLimit: { concurrency: 1 }
defaultTarget: sh
sync: { interval: 1h30m, drift: report, prune: true, maxDeletes: 3, maxDeletePercent: 50, adopt: true, settleWindow: 5m }
state: /var/lib/stacksync/state.json
`,
    );
    const { config } = await loadConfig(path);
    expect(config.defaultTarget).toBe('sh');
    expect(config.sync).toEqual({
      intervalMs: 5_400_000,
      drift: 'report',
      prune: true,
      maxDeletes: 3,
      maxDeletePercent: 50,
      adopt: true,
      lateCreateWindowMs: 300_000,
      markManaged: false,
    });
    expect(config.state).toEqual({ backend: 'file', path: '/var/lib/stacksync/state.json' });
    expect(config.targets[1]).toMatchObject({
      variant: 'self-hosted',
      rateLimit: { requests: 100, perSeconds: 60, concurrency: 1 },
    });
    expect(config.targets[1]).not.toHaveProperty('organizationId');
  });

  it('takes a state backend: postgres with its URL as a secret reference, file with a path', async () => {
    const postgres = await write(
      'pg.yaml',
      `${managed}state: { backend: postgres, url: { fromEnv: STATE_URL }, name: team-a }\n`,
    );
    expect((await loadConfig(postgres)).config.state).toEqual({
      backend: 'postgres',
      url: { fromEnv: 'STATE_URL' },
      name: 'team-a',
    });
    const named = await write(
      'pg-default.yaml',
      `${managed}state: { backend: postgres, url: { fromEnv: STATE_URL } }\n`,
    );
    expect((await loadConfig(named)).config.state).toMatchObject({ name: 'default' });
    const file = await write('file.yaml', `${managed}state: { backend: file, path: st/state.json }\n`);
    expect((await loadConfig(file)).config.state).toEqual({ backend: 'file', path: resolve('st/state.json') });
  });

  it('takes an s3 state backend with its bucket, key and region, and refuses one without them or with credentials in its endpoint', async () => {
    const s3 = await write(
      's3.yaml',
      `${managed}state: { backend: s3, bucket: team-state, key: stacksync/prod.json, region: eu-west-1 }\n`,
    );
    expect((await loadConfig(s3)).config.state).toEqual({
      backend: 's3',
      bucket: 'team-state',
      key: 'stacksync/prod.json',
      region: 'eu-west-1',
      forcePathStyle: false,
    });
    const compatible = await write(
      's3-compat.yaml',
      `${managed}state: { backend: s3, bucket: st-x, key: s.json, region: auto, endpoint: 'https://minio.example:9000', forcePathStyle: true }\n`,
    );
    expect((await loadConfig(compatible)).config.state).toEqual({
      backend: 's3',
      bucket: 'st-x',
      key: 's.json',
      region: 'auto',
      endpoint: 'https://minio.example:9000',
      forcePathStyle: true,
    });
    const missing = await write('s3-missing.yaml', `${managed}state: { backend: s3, bucket: team-state }\n`);
    const error = String(await loadConfig(missing).catch((caught: unknown) => (caught as Error).message));
    expect(error).toContain('state.key: is required with backend s3');
    expect(error).toContain('state.region: is required with backend s3');
    const foreign = await write(
      's3-foreign.yaml',
      `${managed}state: { backend: s3, bucket: st-x, key: s.json, region: r, url: x }\n`,
    );
    expect(String(await loadConfig(foreign).catch((caught: unknown) => (caught as Error).message))).toContain(
      'state.url: is not a setting of backend s3',
    );
    const secret = await write(
      's3-secret.yaml',
      `${managed}state: { backend: s3, bucket: st-x, key: s.json, region: r, endpoint: 'https://AKIA:hunter2-s3@minio.example' }\n`,
    );
    const refused = String(await loadConfig(secret).catch((caught: unknown) => (caught as Error).message));
    expect(refused).toContain('state.endpoint: must not carry a user or password');
    expect(refused).not.toContain('hunter2-s3');
  });

  it('takes a kubernetes state backend: namespace and name, a kubeconfig found beside the config file', async () => {
    const path = await write(
      'kube.yaml',
      `${managed}state: { backend: kubernetes, namespace: stacksync, name: team-a, kubeconfig: kube/config, context: prod }\n`,
    );
    expect((await loadConfig(path)).config.state).toEqual({
      backend: 'kubernetes',
      namespace: 'stacksync',
      name: 'team-a',
      kubeconfig: join(dir, 'kube/config'),
      context: 'prod',
    });
    const bare = await write(
      'kube-bare.yaml',
      `${managed}state: { backend: kubernetes, namespace: stacksync, name: team-a }\n`,
    );
    expect((await loadConfig(bare)).config.state).toEqual({
      backend: 'kubernetes',
      namespace: 'stacksync',
      name: 'team-a',
    });
  });

  it('refuses a kubernetes state without its name, with a name no Secret can have, or with a member of another backend', async () => {
    const missing = (await problemsOf(`${managed}state: { backend: kubernetes, namespace: stacksync }\n`)).map(
      (problem) => problem.message,
    );
    expect(missing).toEqual([expect.stringContaining('state.name: is required with backend kubernetes')]);
    const bad = (
      await problemsOf(`${managed}state: { backend: kubernetes, namespace: Stack_Sync, name: ${'a'.repeat(41)} }\n`)
    ).map((problem) => problem.message);
    expect(bad).toEqual([
      expect.stringMatching(/^state\.namespace: must be a DNS label of at most 63/),
      expect.stringMatching(/^state\.name: must be a DNS label of at most 40/),
    ]);
    const foreign = (
      await problemsOf(`${managed}state: { backend: kubernetes, namespace: stacksync, name: a, url: x }\n`)
    ).map((problem) => problem.message);
    expect(foreign).toEqual([expect.stringContaining('state.url: is not a setting of backend kubernetes')]);
  });

  it('refuses a state backend it does not know, at its line', async () => {
    const path = await write('bad-state.yaml', `${managed}state: { backend: etcd, url: x }\n`);
    const error = await loadConfig(path).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'E_CONFIG_INVALID' });
    expect(String((error as Error).message)).toMatch(/state/);
  });

  it('warns, with the line, about a plain-string secret and never repeats its value', async () => {
    const path = await write('plain.yaml', managed.replace('{ fromFile: secrets/key }', 'sup3r-s3cret-value'));
    const { config, warnings } = await loadConfig(path);
    expect(config.targets[0]?.auth).toMatchObject({ keySecret: 'sup3r-s3cret-value' });
    expect(warnings).toEqual([
      {
        message: expect.stringContaining('targets[0].auth.keySecret: is a plain string'),
        location: { file: path, line: 9, column: 18 },
      },
    ]);
    expect(JSON.stringify(warnings)).not.toContain('sup3r');
  });

  it('reads through an injected readFile', async () => {
    const { config } = await loadConfig('virtual/stacksync.yaml', { readFile: async () => managed });
    expect(config.file).toBe(resolve('virtual/stacksync.yaml'));
    expect(config.targets[0]?.auth).toMatchObject({ keySecret: { fromFile: resolve('virtual/secrets/key') } });
  });
});

const selfHosted = `targets:
  - name: sh
    variant: self-hosted
    baseUrl: http://127.0.0.1:8000
    auth: { token: { fromEnv: TOKEN } }
`;

const rejections: { name: string; text: string; want: { line: number; column?: number; message: string }[] }[] = [
  {
    name: 'duplicate target names',
    text: `${selfHosted}  - name: sh\n    variant: self-hosted\n    baseUrl: http://x\n    auth: { token: t }\ndefaultTarget: sh\n`,
    want: [{ line: 6, column: 11, message: 'targets[1].name: target sh is already defined (targets[0])' }],
  },
  {
    name: 'managed target without ids',
    text: managed.replace(`    organizationId: ${ORG}\n    serviceId: ${SVC}\n`, ''),
    want: [
      { line: 2, message: 'targets[0].organizationId: is required when variant is managed' },
      { line: 2, message: 'targets[0].serviceId: is required when variant is managed' },
    ],
  },
  {
    name: 'organization id not a UUID',
    text: managed.replace(ORG, 'org-1'),
    want: [{ line: 5, column: 21, message: 'targets[0].organizationId: must be a UUID' }],
  },
  {
    name: 'managed target without key secret',
    text: managed.replace('      keySecret: { fromFile: secrets/key }\n', ''),
    want: [{ line: 7, message: 'targets[0].auth.keySecret: is required when variant is managed' }],
  },
  {
    name: 'self-hosted target without token',
    text: selfHosted.replace('{ token: { fromEnv: TOKEN } }', '{}'),
    want: [{ line: 5, message: 'targets[0].auth.token: is required when variant is self-hosted' }],
  },
  {
    name: 'self-hosted target with a service id',
    text: `${selfHosted}    serviceId: ${SVC}\n`,
    want: [{ line: 6, column: 5, message: 'targets[0].serviceId: is not allowed here when variant is self-hosted' }],
  },
  {
    name: 'unknown variant',
    text: selfHosted.replace('variant: self-hosted', 'variant: cloud'),
    want: [{ line: 3, column: 14, message: 'targets[0].variant: must be one of managed, self-hosted' }],
  },
  {
    name: 'baseUrl that is not http',
    text: selfHosted.replace('http://127.0.0.1:8000', 'ftp://files'),
    want: [{ line: 4, message: 'targets[0].baseUrl: must start with http:// or https://' }],
  },
  {
    name: 'defaultTarget naming nothing',
    text: `${selfHosted}defaultTarget: prod\n`,
    want: [{ line: 6, column: 16, message: 'defaultTarget: names no target; the targets are sh' }],
  },
  {
    name: 'several targets without defaultTarget',
    text: `${managed}${selfHosted.replace('targets:\n', '')}`,
    want: [{ line: 1, column: 1, message: 'defaultTarget: is required when there are several targets (prod, sh)' }],
  },
  {
    name: 'interval that is not a duration',
    text: `${selfHosted}sync:\n  interval: soon\n`,
    want: [{ line: 7, column: 13, message: 'sync.interval: must be a duration like 30s, 5m, 1h or 1h30m' }],
  },
  {
    name: 'interval of zero',
    text: `${selfHosted}sync:\n  interval: 0s\n`,
    want: [{ line: 7, message: 'sync.interval: must be at least 1s' }],
  },
  {
    name: 'interval past a week (a timer would overflow past 24.8 days)',
    text: `${selfHosted}sync:\n  interval: 30d\n`,
    want: [{ line: 7, column: 13, message: 'sync.interval: must be at most 7d (30d is longer' }],
  },
  {
    name: 'interval too long to count',
    text: `${selfHosted}sync:\n  interval: 99999999999999999999d\n`,
    want: [{ line: 7, column: 13, message: 'sync.interval: must be at most 7d' }],
  },
  {
    name: 'settle window past a day (an intent naming nothing live is forgotten then)',
    text: `${selfHosted}sync:\n  settleWindow: 2d\n`,
    want: [{ line: 7, column: 17, message: 'sync.settleWindow: must be at most 1d' }],
  },
  {
    name: 'misspelt sync member',
    text: `${selfHosted}sync:\n  prun: true\n`,
    want: [
      {
        line: 7,
        column: 3,
        message:
          'sync.prun: is not a known member here; did you mean prune? (expected one of interval, drift, prune, maxDeletes, maxDeletePercent, adopt, settleWindow, markManaged, propose)',
      },
    ],
  },
  {
    name: 'percent over 100 and a negative count',
    text: `${selfHosted}sync:\n  maxDeletePercent: 150\n  maxDeletes: -1\n`,
    want: [
      { line: 7, message: 'sync.maxDeletePercent: must be <= 100' },
      { line: 8, message: 'sync.maxDeletes: must be >= 0' },
    ],
  },
  {
    name: 'secret reference with a bad env name, an empty one, and a number',
    text:
      managed.replace('{ fromEnv: KEY_ID }', '{ fromEnv: KEY-ID }').replace('{ fromFile: secrets/key }', '{}') +
      '    rateLimit: { requests: "ten" }\n',
    want: [
      { line: 8, message: 'targets[0].auth.keyId.fromEnv: must be an environment variable name' },
      { line: 9, message: 'targets[0].auth.keySecret: must be {fromEnv: NAME}, {fromFile: PATH} or a plain string' },
      { line: 10, message: 'targets[0].rateLimit.requests: must be an integer (got a string)' },
    ],
  },
  {
    name: 'no targets',
    text: 'targets: []\n',
    want: [{ line: 1, column: 10, message: 'targets: must NOT have fewer than 1 items' }],
  },
  {
    name: 'invalid YAML',
    text: 'targets:\n  - name: [a\n',
    want: [{ line: 3, message: 'invalid YAML' }],
  },
  {
    name: 'duplicate keys',
    text: `${selfHosted}sync: {}\nsync: {}\n`,
    want: [{ line: 7, column: 1, message: 'invalid YAML: Map keys must be unique' }],
  },
  {
    name: 'empty file',
    text: '# nothing\n',
    want: [{ line: 1, message: 'the config file is empty' }],
  },
  {
    name: 'alias bomb',
    text: aliasBomb(),
    want: [{ line: 1, message: 'alias bomb' }],
  },
];

function aliasBomb(): string {
  const lines = ['a: &a [x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 8; i++) {
    const prev = String.fromCharCode(96 + i);
    const name = String.fromCharCode(97 + i);
    lines.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(', ')}]`);
  }
  return `${lines.join('\n')}\n`;
}

describe('loadConfig: every problem, with its line', () => {
  it.each(rejections)('$name', async ({ text, want }) => {
    const problems = await problemsOf(text);
    expect(problems).toHaveLength(want.length);
    want.forEach((w, i) => {
      const got = problems[i];
      expect(got?.message).toContain(w.message);
      expect(got?.line).toBe(w.line);
      if (w.column !== undefined) expect(got?.column).toBe(w.column);
    });
  });

  it('collects all problems into one readable message', async () => {
    const path = await write('many.yaml', `${selfHosted}defaultTarget: nope\nsync: { interval: soon, drift: never }\n`);
    const error = (await loadConfig(path).catch((e: unknown) => e)) as StacksyncError;
    expect(error.code).toBe('E_CONFIG_INVALID');
    expect(error.location).toEqual({ file: path });
    expect(error.message).toBe(
      [
        '2 problems:',
        `  ${path}:7:19: sync.interval: must be a duration like 30s, 5m, 1h or 1h30m`,
        `  ${path}:7:32: sync.drift: must be one of heal, report, propose`,
      ].join('\n'),
    );
    // The defaultTarget rule runs only once the schema passes, so it is not among them yet.
  });

  it('puts a single problem on the error location', async () => {
    const path = await write('one.yaml', `${selfHosted}defaultTarget: nope\n`);
    const error = (await loadConfig(path).catch((e: unknown) => e)) as StacksyncError;
    expect(error.location).toEqual({ file: path, line: 6, column: 16 });
    expect(error.toString()).toBe(`${path}:6:16: defaultTarget: names no target; the targets are sh`);
  });

  it.each([
    ['a missing file', undefined, 'not found'],
    ['a binary file', Uint8Array.from([0x74, 0x00, 0x01, 0x02]), 'is a binary file'],
    ['invalid UTF-8', Uint8Array.from([0x74, 0x3a, 0x20, 0xc3, 0x28]), 'is not valid UTF-8'],
    ['a huge file', 'x'.repeat(1024 * 1024 + 1), 'over the limit'],
  ])('rejects %s', async (_name, content, message) => {
    const path = join(dir, `odd-${Math.random().toString(36).slice(2)}.yaml`);
    if (content !== undefined) await writeFile(path, content);
    const error = (await loadConfig(path).catch((e: unknown) => e)) as StacksyncError;
    expect(error).toBeInstanceOf(StacksyncError);
    expect(error.code).toBe('E_CONFIG_INVALID');
    expect(error.message).toContain(message);
  });

  it('rejects a directory given as the config', async () => {
    const error = (await loadConfig(dir).catch((e: unknown) => e)) as StacksyncError;
    expect(error.code).toBe('E_CONFIG_INVALID');
    expect(error.message).toContain('not a regular file');
  });
});

describe('notify, control, vars and suspend', () => {
  const selfHosted = `targets:
  - name: sh
    variant: self-hosted
    baseUrl: http://127.0.0.1:1
    auth: { token: { fromEnv: T } }
    vars: { ENV: staging, KEY: { fromFile: key.txt } }
    suspend: true
`;

  it('loads them, anchoring secret references to the config file', async () => {
    const path = await write(
      'ops.yaml',
      `${selfHosted}notify:\n  - provider: github\n    repository: acme/obs\n    token: { fromEnv: GH }\n    events: [failed]\ncontrol: { token: { fromEnv: CTL } }\n`,
    );
    const { config } = await loadConfig(path);
    expect(config.targets[0]).toMatchObject({
      suspend: true,
      vars: { ENV: 'staging', KEY: { fromFile: join(dir, 'key.txt') } },
    });
    expect(config.notify).toEqual([
      { provider: 'github', repository: 'acme/obs', token: { fromEnv: 'GH' }, events: ['failed'], timeoutMs: 10_000 },
    ]);
    expect(config.controlToken).toEqual({ fromEnv: 'CTL' });
  });

  it('takes a reload token alone in control, and refuses an empty control', async () => {
    const path = await write('reload.yaml', `${selfHosted}control: { reloadToken: { fromEnv: RELOAD } }\n`);
    const { config, warnings } = await loadConfig(path);
    expect([config.reloadToken, config.controlToken, warnings]).toEqual([{ fromEnv: 'RELOAD' }, undefined, []]);
    expect((await problemsOf(`${selfHosted}control: {}\n`)).map((p) => p.line)).toEqual([8]);
    const plain = await loadConfig(
      await write('plain.yaml', `${selfHosted}control: { reloadToken: reload-token-123 }\n`),
    );
    expect(plain.warnings.map((w) => w.message)).toEqual([
      'control.reloadToken: is a plain string in the config file; use {fromEnv: NAME} or {fromFile: PATH}',
    ]);
  });

  it('refuses a github provider without a token and a slack one without a url', async () => {
    const problems = await problemsOf(
      `${selfHosted}notify:\n  - provider: github\n    repository: acme/obs\n  - provider: slack\n`,
    );
    expect(problems.map((p) => [p.line, p.message])).toEqual([
      [9, expect.stringContaining('token')],
      [11, expect.stringContaining('url')],
    ]);
  });

  it('refuses a target filter naming no target', async () => {
    const problems = await problemsOf(
      `${selfHosted}notify:\n  - provider: webhook\n    url: http://x\n    targets: [nope]\n`,
    );
    expect(problems.map((p) => [p.line, p.message])).toEqual([
      [11, 'notify[0].targets[0]: names no target; the targets are sh'],
    ]);
  });
});
