/**
 * The install path: .github/workflows/release.yml publishes the image and the npm tarball, and
 * everything that installs stacksync (the chart's default image, the example workflow, the
 * README and docs/) names exactly what it publishes, at the version in package.json. The project's
 * GitHub account is `stacksync`, so its releases are ghcr.io/stacksync/stacksync:<version> and
 * https://github.com/stacksync/stacksync/releases/download/v<version>/stacksync-<version>.tgz.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { publishedSchemas } from '../../src/kinds/index.js';
import { job, readWorkflow, ROOT, runner, step, type Runner } from './workflow.js';

const exec = promisify(execFile);
const OWNER = 'stacksync';

const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  engines: { node: string };
};
const chart = parse(await readFile(join(ROOT, 'helm/stacksync/Chart.yaml'), 'utf8')) as { appVersion: string };
const chartValues = parse(await readFile(join(ROOT, 'helm/stacksync/values.yaml'), 'utf8')) as {
  image: { repository: string; tag: string };
};
const release = await readWorkflow('.github/workflows/release.yml');
const example = await readWorkflow('examples/github-actions/stacksync.yml');
// The README and every page of docs/: wherever an install command is written.
const docPaths = [
  'README.md',
  ...(await readdir(join(ROOT, 'docs'), { recursive: true }))
    .filter((path) => path.endsWith('.md'))
    .map((path) => join('docs', path)),
];
const docs = (await Promise.all(docPaths.map((path) => readFile(join(ROOT, path), 'utf8')))).join('\n');

let gha: Runner;
beforeEach(async () => {
  gha = await runner();
});
afterEach(async () => {
  await gha.dispose();
});

/** The image the release workflow pushes when it runs in a repository of `owner`. */
async function releasedImage(owner: string): Promise<string> {
  const name = step(job(release, 'image'), 'name');
  const run = await gha.run(name.run ?? 'exit 99', { OWNER: owner });
  expect(run.code).toBe(0);
  return run.outputs['image'] ?? '';
}

describe('release workflow', () => {
  it('runs on version tags only', () => {
    expect(release.on).toEqual({ push: { tags: ['v[0-9]+.[0-9]+.[0-9]+', 'v[0-9]+.[0-9]+.[0-9]+-*'] } });
  });

  it('tests the tagged commit on the oldest supported Node and the image’s, and refuses a tag that is not package.json’s version', async () => {
    const test = job(release, 'test');
    expect(test.strategy?.matrix?.['node']).toEqual([pkg.engines.node.replace(/^>=(\d+).*/, '$1'), '22']);
    const runs = test.steps.map((item) => item.run ?? '');
    expect(runs).toEqual(expect.arrayContaining(['npm ci', 'npm test']));
    const check = step(test, 'The tag is the version in package.json').run ?? '';
    await gha.standIn('node', `#!/bin/sh\nexec "${process.execPath}" "$@"\n`);
    await writeFile(join(gha.work, 'package.json'), '{ "version": "1.2.3" }');
    expect((await gha.run(check, { GITHUB_REF_NAME: 'v1.2.3' })).code).toBe(0);
    const wrong = await gha.run(check, { GITHUB_REF_NAME: 'v1.2.4' });
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain('::error::');
  });

  it('pushes the image for amd64 and arm64 to ghcr.io/<owner>/stacksync, after the tests', async () => {
    const image = job(release, 'image');
    expect(image.needs).toBe('test');
    expect(image.permissions).toEqual({ contents: 'read', packages: 'write' });
    expect(image.steps.map((item) => item.uses?.replace(/@.*/, ''))).toEqual(
      expect.arrayContaining([
        'docker/setup-qemu-action',
        'docker/setup-buildx-action',
        'docker/login-action',
        'docker/build-push-action',
      ]),
    );
    const build = step(image, 'build');
    expect(build.with).toMatchObject({ platforms: 'linux/amd64,linux/arm64', push: true, context: '.' });
    expect(step(image, 'meta').with?.['tags']).toContain('type=semver,pattern={{version}}');
    expect(await releasedImage('Example-Org')).toBe('ghcr.io/example-org/stacksync');
  });

  it('attaches npm pack’s tarball to the release, after the image is pushed', () => {
    const publish = job(release, 'release');
    expect(publish.needs).toEqual(['test', 'image']);
    expect(publish.permissions).toEqual({ contents: 'write' });
    const runs = publish.steps.map((item) => item.run ?? '').join('\n');
    expect(runs).toMatch(/npm run build[\s\S]*npm pack/);
    expect(runs).toMatch(/gh release create "\$GITHUB_REF_NAME" "\$TARBALL"/);
    expect(release.permissions).toEqual({ contents: 'read' });
  });
});

describe('what installs stacksync names what the release publishes', () => {
  it('the chart’s appVersion is package.json’s version, and its default image is the release’s', async () => {
    expect(chart.appVersion).toBe(pkg.version);
    expect(chartValues.image.tag).toBe('');
    expect(chartValues.image.repository).toBe(await releasedImage(OWNER));
  });

  it('npm pack makes stacksync-<version>.tgz with the built CLI and the schemas the build wrote', async () => {
    const { stdout } = await exec('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT });
    const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    expect(packed?.filename).toBe(`${pkg.name}-${pkg.version}.tgz`);
    const files = packed?.files.map((file) => file.path) ?? [];
    // schemas/ is build output, as dist/ is: the release job builds before it packs.
    const schemas = Object.keys(publishedSchemas()).map((name) => `schemas/${name}`);
    expect(files).toEqual(expect.arrayContaining(['dist/cli.js', 'package.json', ...schemas]));
    expect(files.filter((file) => file.startsWith('test/') || file.startsWith('src/'))).toEqual([]);
  });

  it('the example workflow installs the release tarball of this version', async () => {
    expect(String(example.env?.['STACKSYNC_VERSION'])).toBe(pkg.version);
    await gha.standIn('npm', '#!/bin/sh\necho "$@" > npm-args\n');
    const install = step(job(example, 'apply'), 'Install stacksync').run ?? '';
    expect((await gha.run(install, { STACKSYNC_VERSION: pkg.version })).code).toBe(0);
    const args = (await readFile(join(gha.work, 'npm-args'), 'utf8')).trim();
    expect(args).toBe(
      `install --global https://github.com/${OWNER}/stacksync/releases/download/v${pkg.version}/${pkg.name}-${pkg.version}.tgz`,
    );
  });

  it('the README and docs/ pin the release’s image and tarball at this version, and never an unpublished npm name', async () => {
    const image = await releasedImage(OWNER);
    const images = [...docs.matchAll(new RegExp(`${image.replaceAll('.', '\\.')}:([0-9][^\\s\`"']*)`, 'g'))].map(
      (match) => match[1],
    );
    const tarballs = [...docs.matchAll(/releases\/download\/v([^/\s]+)\/stacksync-([^\s`"']+)\.tgz/g)].map((match) => [
      match[1],
      match[2],
    ]);
    expect(images.length).toBeGreaterThan(0);
    expect(tarballs.length).toBeGreaterThan(0);
    expect(new Set(images)).toEqual(new Set([pkg.version]));
    for (const [tag, file] of tarballs) expect([tag, file]).toEqual([pkg.version, pkg.version]);
    // stacksync is not on the npm registry: installing it by name would install nothing, or someone
    // else's package. (`npx stacksync` in a clone runs the clone's own bin, and is fine.)
    expect(docs).not.toMatch(/npm (?:install|i)\b[^\n`]*\s(?:-g\s+|--global\s+)?stacksync(?:@\S+)?\s*(?:$|`)/m);
  });

  it('the Dockerfile downloads nothing for one architecture only', async () => {
    const dockerfile = await readFile(join(ROOT, 'Dockerfile'), 'utf8');
    const instructions = dockerfile.split('\n').filter((line) => !line.trimStart().startsWith('#'));
    expect(instructions.join('\n')).not.toMatch(
      /\b(?:amd64|x86_64|x64|arm64|aarch64)\b|\bcurl\b|\bwget\b|^ADD\s+https?:/im,
    );
    expect(instructions.find((line) => line.includes('AS build'))).toMatch(/^FROM --platform=\$BUILDPLATFORM /);
  });
});
