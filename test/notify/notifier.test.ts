/**
 * The notifier against a real loopback receiver: each provider's payload, the webhook signature,
 * GitHub commit statuses per revision, retries, a bounded queue, and no secret in anything sent.
 */
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Redactor } from '../../src/api/redact.js';
import { createMetrics } from '../../src/daemon/metrics.js';
import type { NotifierSettings } from '../../src/model/config.js';
import { createNotifier, SIGNATURE_HEADER, type NotifierOptions } from '../../src/notify/notifier.js';
import type { SyncNotice } from '../../src/notify/events.js';
import { buildPlan } from '../../src/plan/build.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

let receiver: Receiver;
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(async () => {
  receiver.release();
  await receiver.close();
});

const ALL = ['applied', 'failed', 'drift', 'pruneRefused', 'recovered'] as const;
const env = { HOOK_URL: '', HOOK_KEY: 'hmac-key-1234', GH_TOKEN: 'ghp_secret_token' };
const noWait = { sleep: async () => undefined, random: () => 0 };

function notifier(settings: NotifierSettings[], extra: Partial<NotifierOptions> = {}) {
  const metrics = createMetrics({ defaultMetrics: false });
  const made = createNotifier(settings, {
    secretIo: { env: { ...env, HOOK_URL: `${receiver.url}/hook` } },
    counter: metrics.notifications,
    ...noWait,
    ...extra,
  });
  const count = async (labels: Record<string, string>): Promise<number> =>
    (await metrics.notifications.get()).values
      .filter((v) => Object.entries(labels).every(([k, want]) => v.labels[k as 'provider'] === want))
      .reduce((sum, v) => sum + v.value, 0);
  return { notifier: made, count };
}

const failing: SyncNotice = {
  target: 'prod',
  revision: 'a'.repeat(40),
  ok: false,
  plan: buildPlan(
    [],
    [
      {
        file: 'manifests/bad.yaml',
        line: 7,
        code: 'E_MANIFEST_INVALID',
        message: 'spec.name: must be a string (token hmac-key-1234)',
        target: 'prod',
      },
    ],
  ),
};
const healthy: SyncNotice = { target: 'prod', revision: 'a'.repeat(40), ok: true, plan: buildPlan([], []) };

describe('webhook', () => {
  const webhook: NotifierSettings = {
    provider: 'webhook',
    url: { fromEnv: 'HOOK_URL' },
    secret: { fromEnv: 'HOOK_KEY' },
    events: [...ALL],
    timeoutMs: 2_000,
  };

  it('POSTs the event as JSON, signed with HMAC-SHA256 of the body, with no secret in it', async () => {
    const { notifier: sender, count } = notifier([webhook]);
    sender.syncFinished(failing);
    await sender.flush(5_000);
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request?.path).toBe('/hook');
    expect(request?.headers[SIGNATURE_HEADER]).toBe(
      `sha256=${createHmac('sha256', env.HOOK_KEY)
        .update(request?.body ?? '')
        .digest('hex')}`,
    );
    expect(request?.headers['x-stacksync-event']).toBe('failed');
    expect(request?.json).toMatchObject({
      version: 1,
      event: 'failed',
      target: 'prod',
      revision: 'a'.repeat(40),
      error: { code: 'E_MANIFEST_INVALID', file: 'manifests/bad.yaml', line: 7 },
    });
    expect(request?.body).not.toContain('hmac-key-1234');
    expect(request?.body).toContain('(sensitive)');
    expect(await count({ provider: 'webhook', event: 'failed', result: 'sent' })).toBe(1);
  });

  it('sends only the events and targets it is configured for', async () => {
    const { notifier: sender } = notifier([
      { ...webhook, events: ['recovered'] },
      { ...webhook, targets: ['staging'] },
    ]);
    sender.syncFinished(failing);
    sender.syncFinished(healthy);
    await sender.flush(5_000);
    expect(receiver.received.map((r) => (r.json as { event: string }).event)).toEqual(['recovered']);
  });

  it('retries a 503 and gives up on a 400 at once, counting what failed', async () => {
    const { notifier: sender, count } = notifier([webhook]);
    receiver.answer(400, 503, 503);
    sender.syncFinished(failing);
    sender.syncFinished(healthy);
    await sender.flush(5_000);
    // `failed` gets a 400 and is not tried again; `recovered` gets 503, 503 and a 200 on its third attempt.
    expect(receiver.received.map((r) => (r.json as { event: string }).event)).toEqual([
      'failed',
      'recovered',
      'recovered',
      'recovered',
    ]);
    expect(await count({ event: 'failed', result: 'failed' })).toBe(1);
    expect(await count({ event: 'recovered', result: 'sent' })).toBe(1);
  });

  it('a receiver that hangs neither blocks the caller nor grows the queue past its bound', async () => {
    const { notifier: sender, count } = notifier([webhook], { maxQueue: 2 });
    receiver.hold();
    for (let i = 0; i < 3; i++) {
      sender.syncFinished(failing);
      sender.syncFinished(healthy);
    }
    // syncFinished returned at once six times; one delivery is in flight, two wait, the rest were dropped.
    expect(await count({ result: 'dropped' })).toBe(3);
    receiver.release();
    await sender.flush(5_000);
    expect(await count({ result: 'sent' })).toBe(3);
  });

  it('an attempt without an answer times out and is retried', async () => {
    const { notifier: sender, count } = notifier([{ ...webhook, timeoutMs: 200 }]);
    receiver.hold();
    sender.syncFinished(failing);
    await sender.flush(10_000);
    expect(receiver.received).toHaveLength(3);
    expect(await count({ result: 'failed' })).toBe(1);
  });
});

describe('slack', () => {
  it('posts an incoming-webhook message naming the target, the event and the first error, masking known credentials', async () => {
    const redactor = new Redactor(['hmac-key-1234']); // as the daemon builds one from the targets' credentials
    const { notifier: sender } = notifier(
      [{ provider: 'slack', url: { fromEnv: 'HOOK_URL' }, events: [...ALL], timeoutMs: 2_000 }],
      { redact: (text) => redactor.redact(text) },
    );
    sender.syncFinished(failing);
    await sender.flush(5_000);
    const text = (receiver.received[0]?.json as { text: string }).text;
    expect(text).toContain(
      ':x: *stacksync* `prod` failed: sync of prod failed: spec.name: must be a string (token (sensitive)) at manifests/bad.yaml:7',
    );
    expect(text).not.toContain(receiver.url);
  });

  it('escapes <, > and & of everything quoted, after masking: a secret holding them is masked whole, a mention is text', async () => {
    const secret = 'p&ss<w>rd-1234';
    const redactor = new Redactor([secret]);
    const { notifier: sender } = notifier(
      [{ provider: 'slack', url: { fromEnv: 'HOOK_URL' }, events: [...ALL], timeoutMs: 2_000 }],
      { redact: (text) => redactor.redact(text) },
    );
    const hostile = buildPlan(
      [],
      [
        {
          file: 'manifests/<!here>.yaml',
          line: 2,
          code: 'E_API_VALIDATION',
          message: `rejected ${secret} & <https://evil.example|log in>`,
          target: 'prod',
        },
      ],
    );
    sender.syncFinished({ ...failing, plan: hostile });
    await sender.flush(5_000);
    const text = (receiver.received[0]?.json as { text: string }).text;
    expect(text).toContain(
      'rejected (sensitive) &amp; &lt;https://evil.example|log in&gt; at manifests/&lt;!here&gt;.yaml:2',
    );
    expect(text).not.toMatch(/[<>]|&(?!amp;|lt;|gt;)/);
    expect(text).not.toContain('p&amp;ss');
  });

  it('masks its URL as a URL library writes it back, and the token its query holds', async () => {
    const url = `${receiver.url}/a/../hook?token=Tok%2Fen-1234`;
    const { notifier: sender } = notifier(
      [{ provider: 'slack', url: { fromEnv: 'SLACK' }, events: [...ALL], timeoutMs: 2_000 }],
      { secretIo: { env: { SLACK: url } } },
    );
    sender.syncFinished({
      ...failing,
      plan: buildPlan(
        [],
        [{ code: 'E_API_VALIDATION', message: `quoted ${new URL(url).href} and Tok/en-1234`, target: 'prod' }],
      ),
    });
    await sender.flush(5_000);
    expect(receiver.received.map((r) => r.path)).toEqual(['/hook?token=Tok%2Fen-1234']);
    const text = (receiver.received[0]?.json as { text: string }).text;
    expect(text).toContain('quoted (sensitive) and (sensitive)');
    expect(text).not.toContain('Tok');
  });
});

describe('github', () => {
  const github: NotifierSettings = {
    provider: 'github',
    token: { fromEnv: 'GH_TOKEN' },
    repository: 'acme/dashboards',
    events: [...ALL],
    timeoutMs: 2_000,
  };

  it('sets pending while a new revision syncs, then success or failure, once per revision and outcome', async () => {
    const { notifier: sender } = notifier([{ ...github, apiUrl: receiver.url }]);
    const sha = 'a'.repeat(40);
    sender.syncStarted('prod', sha);
    sender.syncFinished(failing);
    sender.syncStarted('prod', sha); // a resync of the same revision
    sender.syncFinished(failing);
    sender.syncStarted('prod', sha);
    sender.syncFinished(healthy);
    await sender.flush(5_000);
    expect(receiver.received.map((r) => [r.path, (r.json as { state: string }).state])).toEqual([
      [`/repos/acme/dashboards/statuses/${sha}`, 'pending'],
      [`/repos/acme/dashboards/statuses/${sha}`, 'failure'],
      [`/repos/acme/dashboards/statuses/${sha}`, 'success'],
    ]);
    expect(receiver.received[0]?.headers['authorization']).toBe('Bearer ghp_secret_token');
    expect(receiver.received[1]?.json).toMatchObject({
      context: 'stacksync/prod',
      description: expect.stringContaining('manifests/bad.yaml:7'),
    });
  });
});
