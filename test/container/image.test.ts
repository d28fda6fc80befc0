/**
 * The container image, checked without a container engine (none runs on these machines):
 * the Dockerfile's structure, its build context, and its production install step performed for
 * real in a temp dir (`npm ci --omit=dev`), then the CLI started from there, through the same
 * symlink the image puts on PATH.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  copyArgs,
  dockerignorePatterns,
  execForm,
  ignoredBy,
  parseDockerfile,
  type Instruction,
  type Stage,
} from './dockerfile.js';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const { stages } = parseDockerfile(await readFile(join(ROOT, 'Dockerfile'), 'utf8'));
const ignore = dockerignorePatterns(await readFile(join(ROOT, '.dockerignore'), 'utf8'));

function final(): Stage {
  const stage = stages.at(-1);
  if (!stage) throw new Error('the Dockerfile has no stage');
  return stage;
}

function all(stage: Stage, keyword: string): Instruction[] {
  return stage.instructions.filter((instruction) => instruction.keyword === keyword);
}

function last(stage: Stage, keyword: string): Instruction {
  const found = all(stage, keyword).at(-1);
  if (!found) throw new Error(`stage ${stage.name ?? stage.image} has no ${keyword}`);
  return found;
}

function runs(stage: Stage): string {
  return all(stage, 'RUN')
    .map((instruction) => instruction.args)
    .join('\n');
}

describe('Dockerfile', () => {
  it('has a build, a production-deps and a runtime stage, all on a current LTS Node base pinned by tag', () => {
    expect(stages.map((stage) => stage.name)).toEqual(['build', 'deps', 'runtime']);
    for (const stage of stages) {
      const match = /^node:(\d+)(?:\.\d+)*-(?:bookworm-slim|slim)$/.exec(stage.image);
      expect(match, stage.image).not.toBeNull();
      const major = Number(match?.[1]);
      // Even majors become LTS; 22 and 24 are the current ones (20 is leaving maintenance).
      expect(major % 2 === 0 && major >= 22, stage.image).toBe(true);
    }
  });

  it('builds with dev dependencies, and ships only production ones', () => {
    const [build, deps, runtime] = stages as [Stage, Stage, Stage];
    expect(runs(build)).toMatch(/npm ci(?![^\n]*--omit=dev)/);
    expect(runs(build)).toContain('npm run build');
    expect(runs(deps)).toContain('npm ci --omit=dev');
    const copies = all(runtime, 'COPY').map((instruction) => copyArgs(instruction.args));
    expect(copies).toContainEqual({ from: 'deps', sources: ['/app/node_modules'], dest: './node_modules' });
    expect(copies).toContainEqual({ from: 'build', sources: ['/src/dist'], dest: './dist' });
    // The published schemas are build output (scripts/write-schemas.mjs), not in the repository.
    expect(copies).toContainEqual({ from: 'build', sources: ['/src/schemas'], dest: './schemas' });
    expect(
      copies.some((copy) => copy.from === 'build' && copy.sources.some((source) => source.includes('node_modules'))),
    ).toBe(false);
  });

  it('runs as a non-root numeric user, with state on a volume it owns', () => {
    const runtime = final();
    expect(last(runtime, 'USER').args).toBe('10001:10001');
    expect(execForm(last(runtime, 'VOLUME').args)).toEqual(['/var/lib/stacksync']);
    expect(runs(runtime)).toContain('chown 10001:10001 /var/lib/stacksync');
    // The working directory is the volume, so a relative `state:` lands there too.
    expect(last(runtime, 'WORKDIR').args).toBe('/var/lib/stacksync');
  });

  it('starts `stacksync run` under tini, which forwards signals and reaps zombies', () => {
    const runtime = final();
    expect(execForm(last(runtime, 'ENTRYPOINT').args)).toEqual(['/usr/bin/tini', '--', 'stacksync']);
    expect(execForm(last(runtime, 'CMD').args)).toEqual(['run']);
    expect(runs(runtime)).toMatch(/apt-get install -y --no-install-recommends tini/);
    expect(runs(runtime)).toContain('ln -s /app/dist/cli.js /usr/local/bin/stacksync');
  });

  it('checks health with node (no curl in slim) on /healthz, and exposes 9464', () => {
    const runtime = final();
    const healthcheck = last(runtime, 'HEALTHCHECK').args;
    const command = execForm(healthcheck.slice(healthcheck.indexOf('CMD') + 3).trim());
    expect(command?.[0]).toBe('node');
    expect(command?.join(' ')).toContain('http://127.0.0.1:9464/healthz');
    expect(healthcheck).not.toMatch(/curl|wget/);
    expect(last(runtime, 'EXPOSE').args).toBe('9464');
  });

  it('copies into the build stage every script `npm run build` runs, and those they import', () => {
    const build = stages[0] as Stage;
    const copied = new Set(
      all(build, 'COPY')
        .map((instruction) => copyArgs(instruction.args))
        .filter((copy) => copy.from === undefined)
        .flatMap((copy) => copy.sources),
    );
    const needed = buildScripts(pkg.scripts['build'] ?? '');
    expect(needed).toEqual(expect.arrayContaining(['scripts/postbuild.mjs', 'scripts/write-schemas.mjs']));
    expect(needed.filter((script) => !copied.has(script) && !copied.has('scripts'))).toEqual([]);
  });

  it('finds the scripts a build command runs and what they import (the check can fail)', () => {
    expect(buildScripts('tsc -p x.json && node scripts/postbuild.mjs')).toEqual([
      'scripts/postbuild.mjs',
      'scripts/write-schemas.mjs',
    ]);
  });

  it('copies only files that exist and that .dockerignore lets into the context', () => {
    const sources = stages.flatMap((stage) =>
      all(stage, 'COPY')
        .map((instruction) => copyArgs(instruction.args))
        .filter((copy) => copy.from === undefined)
        .flatMap((copy) => copy.sources),
    );
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(existsSync(join(ROOT, source)), source).toBe(true);
      expect(ignoredBy(ignore, source), `${source} is excluded by .dockerignore`).toBe(false);
    }
  });

  it('keeps local state, dependencies and build output out of the context', () => {
    for (const path of [
      'node_modules',
      'dist/cli.js',
      '.git/config',
      '.stacksync/state.json',
      'test/export/roundtrip.test.ts',
      'config/state.key',
    ]) {
      expect(ignoredBy(ignore, path), path).toBe(true);
    }
  });
});

describe('production install, as the deps and runtime stages do it', () => {
  let dir: string;
  let installed: { ok: true } | { ok: false; reason: string };

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist', 'cli.js')))
      throw new Error('dist/cli.js is missing: run `npm run build` first (`npm test` does)');
    dir = await mkdtemp(join(tmpdir(), 'stacksync-image-'));
    for (const file of ['package.json', 'package-lock.json']) await cp(join(ROOT, file), join(dir, file));
    installed = await npmCi(dir);
    // The runtime stage's COPY lines, then its PATH symlink.
    await cp(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
    await cp(join(ROOT, 'schemas'), join(dir, 'schemas'), { recursive: true });
    await mkdir(join(dir, 'bin'));
    await symlink(join(dir, 'dist', 'cli.js'), join(dir, 'bin', 'stacksync'));
  }, 120_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('installs the production dependencies and nothing else', (ctx) => {
    if (!installed.ok) return ctx.skip(installed.reason);
    for (const name of Object.keys(pkg.dependencies))
      expect(existsSync(join(dir, 'node_modules', name, 'package.json')), name).toBe(true);
    // A dev dependency that a production dependency needs too (the lockfile does not mark it dev,
    // as @kubernetes/client-node needs @types/js-yaml) is installed in production as well.
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const devOnly = Object.keys(pkg.devDependencies).filter(
      (name) => lock.packages[`node_modules/${name}`]?.dev === true,
    );
    expect(devOnly).toContain('vitest');
    for (const name of devOnly) expect(existsSync(join(dir, 'node_modules', name)), name).toBe(false);
  });

  it('starts the CLI through the PATH symlink and prints the package version', async (ctx) => {
    if (!installed.ok) return ctx.skip(installed.reason);
    const env = { PATH: `${join(dir, 'bin')}:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: dir, NO_COLOR: '1' };
    const { stdout } = await exec('stacksync', ['--version'], { cwd: dir, env });
    expect(stdout.trim()).toBe(pkg.version);
    const help = await exec('stacksync', ['run', '--help'], { cwd: dir, env });
    expect(help.stdout).toContain('--listen');
  });

  it('validates manifests with only production dependencies (ajv, yaml, schemas resolved)', async (ctx) => {
    if (!installed.ok) return ctx.skip(installed.reason);
    const { stdout, stderr } = await exec(
      process.execPath,
      [
        join(dir, 'dist', 'cli.js'),
        'validate',
        '-m',
        join(ROOT, 'manifests'),
        '-c',
        join(ROOT, 'config', 'emulator.yaml'),
      ],
      {
        cwd: dir,
        env: { HOME: dir, NO_COLOR: '1', STACKSYNC_KEY_ID: 'k', STACKSYNC_KEY_SECRET: 's', STACKSYNC_TOKEN: 't' },
      },
    );
    // exec rejects on a non-zero exit, so getting here means exit 0.
    expect(`${stdout}${stderr}`).toMatch(/validate ok: 0 errors/);
  });
});

/** The scripts a build command runs (`node scripts/x.mjs`), and the scripts they import in turn. */
function buildScripts(command: string): string[] {
  const found = new Set<string>();
  const queue = [...command.matchAll(/\bnode (scripts\/[\w.-]+\.mjs)/g)].map((match) => match[1] ?? '');
  while (queue.length > 0) {
    const script = queue.shift() ?? '';
    if (found.has(script)) continue;
    found.add(script);
    const text = readFileSync(join(ROOT, script), 'utf8');
    for (const match of text.matchAll(/from '\.\/([\w.-]+\.mjs)'/g)) queue.push(`scripts/${match[1] ?? ''}`);
  }
  return [...found];
}

/** `npm ci --omit=dev` from the local cache when it can; a network failure is a skip, anything else fails. */
async function npmCi(dir: string): Promise<{ ok: true } | { ok: false; reason: string }> {
  try {
    await exec('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: dir,
      timeout: 100_000,
    });
    return { ok: true };
  } catch (error) {
    const output = `${String((error as { stderr?: unknown }).stderr ?? '')}${String((error as Error).message)}`;
    if (/ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|network/i.test(output)) {
      return {
        ok: false,
        reason: `npm could not reach the registry or its cache, so the production install was not tried: ${output.split('\n')[0] ?? ''}`,
      };
    }
    throw error;
  }
}
