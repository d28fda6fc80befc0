/**
 * A terminal that shows, never obeys (docs/security.md): control characters in a file name, a
 * value of a manifest or a server's error (ESC, BEL, CR, BS, and C1 such as U+009B) reach the
 * terminal as visible escapes (`\x1b`), in validate, plan and apply, their progress and their
 * JSON, through the built CLI against the emulator, with a proxy that answers as a hostile
 * server would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardYaml, describeRun, parseJsonOutput } from '../helpers/e2e.js';
import { startProxy, type RunningProxy } from '../helpers/proxy.js';
import { sharedEmulator, type CliResult } from '../helpers/workspace.js';

const shared = sharedEmulator();
let proxy: RunningProxy;

beforeAll(async () => {
  proxy = await startProxy(shared.emulator.url);
});
afterAll(async () => proxy.close());

/** Retitles the terminal, writes over the line, rubs a character out, and clears the screen by a C1 CSI. */
const HOSTILE = 'A\u001b]0;owned\u0007B\rC\bD\u009b2JE';
/** The same, as the terminal must show it. */
const SHOWN = 'A\\x1b]0;owned\\x07B\\rC\\x08D\\x9b2JE';
/** Every control character a terminal acts on but the newline. */
const CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

function expectShownNeverObeyed(result: CliResult): void {
  expect(CONTROLS.exec(result.stdout), `stdout\n${describeRun(result)}`).toBeNull();
  expect(CONTROLS.exec(result.stderr), `stderr\n${describeRun(result)}`).toBeNull();
}

describe('control characters from manifests, file names and servers', { timeout: 120_000 }, () => {
  it('are shown escaped by validate and plan: a file name, a value, and a broken manifest in a hostile file', async () => {
    const workspace = await shared.workspace({ rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    await workspace.write(
      `manifests/${HOSTILE}.yaml`,
      dashboardYaml({ key: 'hostile-file', target: 'local', name: HOSTILE }),
    );
    await workspace.write(
      `manifests/broken-${HOSTILE}.yaml`,
      'apiVersion: stacksync/v1\nkind: Dashboard\nmetadata: { name: broken, target: local }\nspec: { tiles: 7 }\n',
    );

    const validate = await workspace.run(['validate']);
    expect(validate.code).toBe(1);
    expectShownNeverObeyed(validate);
    expect(validate.stdout).toContain(`manifests/broken-${SHOWN}.yaml`);

    const plan = await workspace.run(['plan', '--target', 'local']);
    expectShownNeverObeyed(plan);
    expect(plan.stdout).toContain(`manifests/broken-${SHOWN}.yaml`);
    expect(plan.stdout).toMatch(
      new RegExp(`\\+ create Dashboard/hostile-file +\\(manifests/${SHOWN.replace(/[\\[\]()]/g, '\\$&')}\\.yaml:1\\)`),
    );
    // A value is compact JSON (C0 as JSON escapes it), and what JSON leaves raw is escaped too.
    expect(plan.stdout).toContain('+ name: "A\\u001b]0;owned\\u0007B\\rC\\bD\\x9b2JE"');

    for (const output of ['github', 'markdown'])
      expectShownNeverObeyed(await workspace.run(['plan', '--target', 'local', '--output', output]));

    // JSON keeps the value (a parser reads it back as it is), with no raw C1 or DEL for a terminal.
    const json = await workspace.run(['plan', '--target', 'local', '--output', 'json']);
    expectShownNeverObeyed(json);
    const change = parseJsonOutput(json).changes.find((each) => each.name === 'hostile-file');
    expect(change?.file).toBe(`manifests/${HOSTILE}.yaml`);
  });

  it('are shown escaped by apply: a server error quoted in the progress, the results and the JSON', async () => {
    const workspace = await shared.workspace(
      { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } },
      proxy.url,
    );
    await workspace.write('manifests/refused.yaml', dashboardYaml({ key: 'refused', target: 'local' }));
    proxy.intercept((request) =>
      request.method === 'POST' && request.path.includes('dashboards')
        ? { status: 400, body: JSON.stringify({ status: 400, error: `BAD_REQUEST: tile ${HOSTILE} is wrong` }) }
        : undefined,
    );
    try {
      const applied = await workspace.run(['apply', '--target', 'local']);
      expect(applied.code, describeRun(applied)).toBe(1);
      expectShownNeverObeyed(applied);
      expect(applied.stdout).toMatch(
        new RegExp(
          `failed: local/Dashboard/refused: E_API_\\w+: .*tile ${SHOWN.replace(/[\\[\]()]/g, '\\$&')} is wrong`,
        ),
      );
      expect(applied.stderr).toContain(`tile ${SHOWN} is wrong`);

      const json = await workspace.run(['apply', '--target', 'local', '--output', 'json']);
      expect(json.code).toBe(1);
      expectShownNeverObeyed(json);
      expect(parseJsonOutput(json).changes.find((each) => each.name === 'refused')?.error).toContain(
        `tile ${HOSTILE} is wrong`,
      );
    } finally {
      proxy.intercept(undefined);
    }
  });
});
