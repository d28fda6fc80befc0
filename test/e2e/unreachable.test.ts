/**
 * An unreachable API (issue 15, item 9; issue 34, item 5): the error that ends the retries is the
 * plan's, and each retry is one plain line on stderr as it is decided (what, attempt n of m, the
 * wait, why), so nobody waits 23 s in silence; no log record of the client's own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/daemon.js';
import { describeRun } from '../helpers/e2e.js';
import { createWorkspace, type Workspace } from '../helpers/workspace.js';

describe('an API nobody listens on', () => {
  let workspace: Workspace;

  beforeAll(async () => {
    // A loopback port just released: connections to it are refused.
    workspace = await createWorkspace(`http://127.0.0.1:${await freePort()}`);
  });
  afterAll(async () => {
    await workspace?.dispose();
  });

  it('plan prints the final error, and one line per retry as it happens', async () => {
    const result = await workspace.run(['plan', '--target', 'local-selfhosted'], { timeoutMs: 60_000 });
    expect(result.code, describeRun(result)).toBe(1);
    const gaveUp =
      /target local-selfhosted: GET \/api\/v2\/\w+: connection failed \(ECONNREFUSED: .*\) \(gave up after (\d+) attempts\)/.exec(
        result.stdout,
      );
    expect(gaveUp, describeRun(result)).not.toBeNull();
    const lines = result.stderr.split('\n').filter(Boolean);
    const retry =
      /^stacksync: warning: \[local-selfhosted\] GET \/api\/v2\/\w+: attempt (\d+) of (\d+) failed \(connection failed \(ECONNREFUSED: .*\)\); attempt \d+ in \d+\.\ds$/;
    for (const line of lines) expect(line, describeRun(result)).toMatch(retry);
    // The first retry is told, and the last attempt, which ends it, is not one.
    expect(
      lines.some((line) => retry.exec(line)?.[1] === '1'),
      describeRun(result),
    ).toBe(true);
    expect(
      lines.every((line) => Number(retry.exec(line)?.[1]) < Number(gaveUp?.[1])),
      describeRun(result),
    ).toBe(true);
  }, 60_000);
});
