/**
 * A "try this" line is written for the process that printed it: run with `-c some/other.yaml
 * --target staging`, its hints name both, so pasting one acts on what was just shown (not on the
 * default config, nor on every target), and it runs as printed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertYaml, dashboardYaml, describeRun, type TargetName } from '../helpers/e2e.js';
import { sharedEmulator, type Workspace } from '../helpers/workspace.js';

const STAGING = 'staging' as TargetName;

describe('hints name the config and the target of the command that printed them', { timeout: 120_000 }, () => {
  const shared = sharedEmulator();
  let workspace: Workspace;
  beforeAll(async () => {
    workspace = await shared.workspace();
    await workspace.remove('config');
    await workspace.write(
      'some/other.yaml',
      [
        'targets:',
        '  - name: staging',
        '    variant: self-hosted',
        `    baseUrl: ${shared.emulator.url}`,
        '    auth: { token: { fromEnv: STACKSYNC_TOKEN } }',
        '  - name: other',
        '    variant: self-hosted',
        `    baseUrl: ${shared.emulator.url}`,
        '    auth: { token: { fromEnv: STACKSYNC_TOKEN } }',
        'defaultTarget: staging',
        'state: .stacksync/state.json',
        '',
      ].join('\n'),
    );
    await workspace.write('manifests/board.yaml', dashboardYaml({ key: 'board', target: STAGING }));
  });
  afterAll(async () => workspace.dispose());

  it('plan --out: the line that applies the saved plan names the config', async () => {
    const planned = await workspace.run(['plan', '-c', 'some/other.yaml', '--target', 'staging', '--out', 'plan.json']);
    expect(planned.code, describeRun(planned)).toBe(0);
    expect(planned.stderr).toContain('apply exactly it with: stacksync apply -c some/other.yaml --plan plan.json\n');
  });

  it('a target held back for a broken manifest: plan and apply print the apply that lifts it, for this config and target, and it runs as printed', async () => {
    await workspace.write(
      'manifests/broken.yaml',
      alertYaml({ key: 'broken', target: STAGING, dashboard: 'missing', tile: 'main' }),
    );
    const hint =
      'to apply the valid manifests anyway: stacksync apply -c some/other.yaml --target staging --allow-partial';
    const planned = await workspace.run(['plan', '-c', 'some/other.yaml', '--target', 'staging']);
    expect(planned.code, describeRun(planned)).toBe(1);
    expect(planned.stderr.split('\n')).toContain(`stacksync: ${hint}`);
    const applied = await workspace.run(['apply', '-c', 'some/other.yaml', '--target', 'staging']);
    expect(applied.code, describeRun(applied)).toBe(1);
    expect(applied.stdout).toMatch(/^Result: 0 created, .*1 not applied/m);
    expect(applied.stderr.split('\n')).toContain(`stacksync: ${hint}`);

    // Pasted as printed: the valid dashboard is created, the broken alert still is not.
    const [, ...args] = hint.split(': ')[1]!.split(' ');
    const lifted = await workspace.run(args);
    expect(lifted.stdout, describeRun(lifted)).toMatch(/^Result: 1 created,/m);
    expect(lifted.stderr).not.toContain('--allow-partial');
  });
});
