/**
 * An unreachable API (issue 15, item 9): the one message that matters, the error that ends the
 * retries, is what the user sees, not a log line per failed attempt of every parallel read.
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

  it('plan prints the final error, not a line per retry', async () => {
    const result = await workspace.run(['plan', '--target', 'local-selfhosted'], { timeoutMs: 60_000 });
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stdout).toMatch(/target local-selfhosted: GET \/api\/v2\/\w+: connection failed \(ECONNREFUSED: .*\) \(gave up after \d+ attempts\)/);
    expect(result.stderr, describeRun(result)).not.toContain('retrying');
    expect(result.stderr.split('\n').filter(Boolean), describeRun(result)).toEqual([]);
  }, 60_000);
});
