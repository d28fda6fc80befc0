/**
 * Notifications that hostile names and receivers cannot turn (issue 33, item 3), from the built
 * CLI's `stacksync run`: a pull request that adds a file named `<!channel>.yaml`, then an unknown
 * key that reads as a Slack link, pings nobody and makes no link; a webhook receiver that answers
 * 307 or 308 towards another port does not get the signed payload sent there; and the Slack URL
 * (its own token) is in no output.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricSum, startDaemon, waitUntil, type RunningDaemon } from '../helpers/daemon.js';
import { dashboardYaml } from '../helpers/e2e.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { sharedEmulator, type Workspace } from '../helpers/workspace.js';

const TARGET = 'local-selfhosted';
const FILE = 'manifests/<!channel>.yaml';
const LINK_KEY = '<https://evil.example/sso|Re-authenticate stacksync>';
const SLACK_TOKEN = 'slackToken0123456789abcdef';

const shared = sharedEmulator();

describe('notifications from hostile names and receivers', () => {
  let workspace: Workspace;
  let slack: Receiver;
  let redirecting: Receiver;
  let elsewhere: Receiver;
  let daemon: RunningDaemon | undefined;
  let slackUrl: string;

  const slackTexts = (): string[] => slack.received.map((request) => (request.json as { text: string }).text);

  beforeAll(async () => {
    [slack, redirecting, elsewhere] = await Promise.all([startReceiver(), startReceiver(), startReceiver()]);
    // Two events (applied, then failed): each answer sends the delivery towards another loopback port.
    redirecting.redirect(307, `${elsewhere.url}/stolen`);
    redirecting.redirect(308, `${elsewhere.url}/stolen`);
    slackUrl = `${slack.url}/services/T0000SECRET/B0000SECRET/${SLACK_TOKEN}`;
    workspace = await shared.workspace({ rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    const config = await readFile(workspace.configPath, 'utf8');
    await workspace.write(
      'config/stacksync.yaml',
      `${config}notify:\n  - provider: slack\n    url: { fromEnv: SLACK_URL }\n  - provider: webhook\n    url: { fromEnv: HOOK_URL }\n    secret: { fromEnv: HOOK_KEY }\n`,
    );
    await workspace.write(FILE, dashboardYaml({ key: 'web', target: TARGET }));
    daemon = await startDaemon(workspace, ['--log-level', 'warn', '--log-format', 'json'], {
      SLACK_URL: slackUrl,
      HOOK_URL: `${redirecting.url}/hook`,
      HOOK_KEY: 'hook-hmac-key-1234',
    });
  }, 60_000);
  afterAll(async () => {
    await daemon?.stop();
    await Promise.all([slack, redirecting, elsewhere].map((receiver) => receiver?.close()));
  });

  it('a file named <!channel>.yaml is named in Slack as text: no mention of the channel', async () => {
    await waitUntil(() => slackTexts().some((text) => text.includes(' applied: ')), 30_000);
    const applied = slackTexts().find((text) => text.includes(' applied: ')) ?? '';
    expect(applied).toContain('&lt;!channel&gt;.yaml');
    expect(applied).not.toContain('<!channel>');
    expect(applied).not.toMatch(/[<>]/);
  });

  it('an unknown key that reads as a Slack link is quoted as text: no link', async () => {
    await workspace.write(
      FILE,
      dashboardYaml({ key: 'web', target: TARGET }).replace('spec:\n', `spec:\n  ${JSON.stringify(LINK_KEY)}: 1\n`),
    );
    await waitUntil(() => slackTexts().some((text) => text.includes(' failed: ')), 30_000);
    const failed = slackTexts().find((text) => text.includes(' failed: ')) ?? '';
    expect(failed).toContain('&lt;https://evil.example/sso|Re-authenticate stacksync&gt;');
    expect(failed).toContain('&lt;!channel&gt;.yaml');
    expect(failed).not.toMatch(/[<>]/);
  });

  it('a 307 or 308 from the webhook is a failed delivery: the payload is not sent where it points, nor retried', async () => {
    const running = daemon as RunningDaemon;
    await waitUntil(
      async () =>
        metricSum((await running.get('/metrics')).text, 'stacksync_notifications_total', {
          provider: 'webhook',
          result: 'failed',
        }) >= 2,
      30_000,
    );
    expect(redirecting.received.map((request) => request.path)).toEqual(['/hook', '/hook']);
    expect(elsewhere.received).toEqual([]);
    const { stderr } = running.output();
    expect(stderr).toContain('the receiver answered 307, a redirect');
    expect(stderr).toContain('the receiver answered 308, a redirect');
  });

  it('the Slack URL, its own token, is in no output', async () => {
    const running = daemon as RunningDaemon;
    const { stdout, stderr } = running.output();
    const outputs = [
      stdout,
      stderr,
      (await running.get('/status')).text,
      (await running.get('/metrics')).text,
      (await running.get('/')).text,
    ];
    for (const text of outputs) {
      expect(text).not.toContain(SLACK_TOKEN);
      expect(text).not.toContain(slackUrl);
    }
  });
});
