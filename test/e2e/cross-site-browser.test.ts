/**
 * A web page the operator opens cannot drive the daemon or read it (issue 33, item 2), in a real
 * browser (Debian's Chromium, driven by playwright-core) against the built CLI's `stacksync run`
 * on loopback: a page on another site posts forms to `/-/reload` in each encoding a form has,
 * and a `no-cors` fetch, and no sync starts; a page whose name resolves to 127.0.0.1 (DNS
 * rebinding, here by the browser's host-resolver rules) gets 421 and none of `/status`; the
 * status page still opens at `localhost`. Skips like the status page's test without a browser.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricSum, startDaemon, waitUntil, type RunningDaemon } from '../helpers/daemon.js';
import { sharedEmulator } from '../helpers/workspace.js';

const BROWSERS = [process.env['STACKSYNC_CHROMIUM'], '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(
  (path): path is string => Boolean(path),
);
const BROWSER = BROWSERS.find((path) => existsSync(path));
if (!BROWSER)
  console.warn(
    `cross-site browser test skipped: no Chromium at ${BROWSERS.join(' or ')} (apt-get install chromium, as .ci/run does)`,
  );

/** Generous: two cores shared with other test files, a browser and a daemon. */
const WAIT_MS = 45_000;
/** A name the browser resolves to 127.0.0.1, as a rebinding attacker's DNS would. */
const REBOUND = 'rebind.attacker.test';
const ENCODINGS = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data'] as const;

const shared = sharedEmulator();

/** The attacker's site: pages that post to the daemon as soon as they load. */
function attackerPages(daemonUrl: string): (path: string) => string {
  return (path) => {
    const enctype = new URL(path, 'http://x').searchParams.get('enctype') ?? 'text/plain';
    if (path.startsWith('/fetch')) {
      return `<!doctype html><title>fetch</title><script>fetch(${JSON.stringify(`${daemonUrl}/-/reload`)}, { method: 'POST', mode: 'no-cors', body: '{"x":1}' }).then(() => { document.title = 'sent'; }, () => { document.title = 'sent'; });</script>`;
    }
    return `<!doctype html><title>form</title><form method="POST" action="${daemonUrl}/-/reload" enctype="${enctype}"><input name="a" value="1"></form><script>document.forms[0].submit()</script>`;
  };
}

describe.skipIf(!BROWSER)('the daemon against a hostile page in a browser', { timeout: 120_000 }, () => {
  let daemon: RunningDaemon | undefined;
  let browser: Browser | undefined;
  let attacker: Server | undefined;
  let attackerUrl: string;
  let port: string;

  const syncCount = async (): Promise<number> =>
    metricSum((await (daemon as RunningDaemon).get('/metrics')).text, 'stacksync_reconcile_total');

  beforeAll(async () => {
    daemon = await startDaemon(
      await shared.workspace({ rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } }),
      ['--log-level', 'warn'],
    );
    const running = daemon;
    await waitUntil(async () => (await running.get('/readyz')).status === 200, WAIT_MS);
    port = new URL(running.url).port;
    const page = attackerPages(running.url);
    attacker = createServer(
      (request, response) =>
        void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(request.url ?? '/')),
    );
    await new Promise<void>((resolve) => attacker?.listen(0, '127.0.0.1', resolve));
    // Another site than 127.0.0.1: the browser sends Origin http://localhost:… and Sec-Fetch-Site: cross-site.
    attackerUrl = `http://localhost:${(attacker.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: BROWSER,
      args: ['--no-sandbox', `--host-resolver-rules=MAP ${REBOUND} 127.0.0.1`],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (attacker ? attacker.close(() => resolve()) : resolve()));
    await daemon?.stop();
  });

  it.each(ENCODINGS)('a %s form posted from another site is refused and starts no sync', async (enctype) => {
    const before = await syncCount();
    const page = await (browser as Browser).newPage();
    try {
      const answered = page.waitForResponse((response) => response.url().endsWith('/-/reload'), { timeout: WAIT_MS });
      await page.goto(`${attackerUrl}/form?enctype=${encodeURIComponent(enctype)}`);
      const response = await answered;
      expect(response.status()).toBe(403);
      expect(await response.text()).toMatch(/^forbidden: /);
    } finally {
      await page.close();
    }
    expect(await syncCount()).toBe(before);
  });

  it('a no-cors fetch from another site is refused and starts no sync', async () => {
    const before = await syncCount();
    const page = await (browser as Browser).newPage();
    try {
      const answered = page.waitForResponse((response) => response.url().endsWith('/-/reload'), { timeout: WAIT_MS });
      await page.goto(`${attackerUrl}/fetch`);
      expect((await answered).status()).toBe(403);
    } finally {
      await page.close();
    }
    expect(await syncCount()).toBe(before);
  });

  it.each(['/status', '/', '/metrics'])('a rebound name reads nothing of %s: 421', async (path) => {
    const page = await (browser as Browser).newPage();
    try {
      const response = await page.goto(`http://${REBOUND}:${port}${path}`);
      expect(response?.status()).toBe(421);
      const text = await page.locator('body').innerText();
      expect(text).toMatch(/^misdirected request/);
      expect(text).not.toContain('local-selfhosted');
    } finally {
      await page.close();
    }
  });

  it('the status page still opens at localhost', async () => {
    const page = await (browser as Browser).newPage();
    try {
      const response = await page.goto(`http://localhost:${port}/`);
      expect(response?.status()).toBe(200);
      await page.locator('[data-target-card="local-selfhosted"]').waitFor({ timeout: WAIT_MS });
    } finally {
      await page.close();
    }
  });
});
