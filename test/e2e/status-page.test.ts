/**
 * The daemon's status page in a real browser (Debian's Chromium, driven by playwright-core): what
 * a person sees of a dry-run daemon over both targets: a resource in sync, one drifted (edited
 * outside stacksync) with its field diff, one in error with its message, a degraded pipe; every
 * name and message from the API shown as text, never run; the filters; a refresh that keeps the
 * filter, an open diff and the reader's place; a phone-sized window without sideways scrolling.
 * The screenshots stay in a directory of their own (its path is printed). Without a browser on
 * the machine the file skips with one line saying so (`.ci/run` installs Debian's `chromium`).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SEED_IDS, defaultSeed, type RunningEmulator } from '../../src/emulator/index.js';
import { alertYaml, dashboardYaml, documents, liveTarget, updateDashboardOutOfBand } from '../helpers/e2e.js';
import { startDaemon, waitUntil, type RunningDaemon } from '../helpers/daemon.js';
import { createWorkspace, startTestEmulator, type Workspace } from '../helpers/workspace.js';

const BROWSERS = [process.env['STACKSYNC_CHROMIUM'], '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(
  (path): path is string => Boolean(path),
);
const BROWSER = BROWSERS.find((path) => existsSync(path));
if (!BROWSER)
  console.warn(
    `status page browser test skipped: no Chromium at ${BROWSERS.join(' or ')} (apt-get install chromium, as .ci/run does)`,
  );
// In CI a skipped browser test is a test that does not exist: .ci/run installs Chromium, so its absence there fails.
it.runIf(!BROWSER && process.env['CI'] === 'true')('has a browser in CI', () => {
  expect.fail(`no Chromium at ${BROWSERS.join(' or ')}: .ci/run installs Debian's chromium`);
});

/** Generous: two cores shared with other test files, a browser and a daemon. */
const WAIT_MS = 45_000;
const REPOSITORY = 'https://git.example.test/acme/manifests/blob/{revision}/';
/** What someone renames the dashboard to, behind stacksync's back: the page shows it in the diff. */
const HOSTILE_NAME = '<script>window.__pwned = 1</script>';
const HOSTILE_TILE = '<img src=x onerror=window.__pwned=2>';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const ordersPipe = `apiVersion: stacksync/v1
kind: Pipe
metadata: { name: orders, target: local }
spec:
  pipeId: ${DEFAULT_SEED_IDS.pipes.kafka}
`;

describe.skipIf(!BROWSER)('the status page in a browser', { timeout: 120_000 }, () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  let daemon: RunningDaemon;
  let browser: Browser;
  let shots: string;

  beforeAll(async () => {
    const seed = defaultSeed();
    for (const pipe of seed.organizations?.[0]?.services?.[0]?.pipes ?? [])
      if (pipe.id === DEFAULT_SEED_IDS.pipes.kafka) pipe.state = 'Failed';
    emulator = await startTestEmulator({ seed });
    workspace = await createWorkspace(emulator.url, { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    await workspace.write(
      'config/stacksync.yaml',
      `${await readFile(workspace.configPath, 'utf8')}daemon:\n  repositoryUrl: ${JSON.stringify(REPOSITORY)}\n`,
    );
    // Applied once, so the daemon knows these as its own; then one is edited behind its back.
    await workspace.write(
      'manifests/local.yaml',
      documents([
        ordersPipe,
        dashboardYaml({ key: 'api', target: 'local', tiles: ['p99', 'errors'] }),
        alertYaml({ key: 'api-slow', target: 'local', dashboard: 'api', tile: 'p99' }),
      ]),
    );
    await workspace.write(
      'manifests/web.yaml',
      dashboardYaml({ key: 'web', target: 'local-selfhosted', name: 'Web', tiles: ['p99', 'errors'] }),
    );
    const applied = await workspace.run(['apply']);
    expect(applied.code, applied.stderr).toBe(0);
    const web = (await liveTarget(emulator.url, 'local-selfhosted')).dashboards.find(
      (dashboard) => dashboard.name === 'Web',
    );
    if (!web) throw new Error('the web dashboard was not created');
    await updateDashboardOutOfBand(emulator.url, 'local-selfhosted', web.id, {
      name: HOSTILE_NAME,
      tags: web.tags,
      tiles: web.tiles.map((tile) => (tile.name === 'p99' ? { ...tile, w: 6 } : tile)),
    });
    // An alert on a tile the dashboard does not have: an error whose message names the tile.
    await workspace.write(
      'manifests/broken.yaml',
      alertYaml({ key: 'broken', target: 'local-selfhosted', dashboard: 'web', tile: JSON.stringify(HOSTILE_TILE) }),
    );
    daemon = await startDaemon(workspace, ['--dry-run']);
    await waitUntil(async () => (await daemon.get('/readyz')).status === 200, WAIT_MS);
    browser = await chromium.launch({ executablePath: BROWSER, args: ['--no-sandbox'] });
    shots = await mkdtemp(join(tmpdir(), 'stacksync-status-page-'));
    console.log(`status page screenshots: ${shots}`);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
    await workspace?.dispose();
    await emulator?.close();
  });

  /** A page on the daemon that records what the browser refused (CSP) and any script error. */
  async function open(
    path = '/',
    viewport = { width: 1280, height: 900 },
  ): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage({ viewport });
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().includes('favicon')) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${daemon.url}${path}`);
    return { page, problems };
  }

  const row = (page: Page, key: string) => page.locator(`#resources tr[data-key="${key}"]`);

  it('shows each resource with its status, manifest line, error and drift', async () => {
    const { page, problems } = await open();
    await row(page, 'local-selfhosted/Dashboard/web').waitFor({ timeout: WAIT_MS });
    expect(await row(page, 'local/Dashboard/api').innerText()).toMatch(/in sync/);
    expect(await row(page, 'local/Pipe/orders').innerText()).toMatch(/degraded[\s\S]*live state Failed/);
    const web = await row(page, 'local-selfhosted/Dashboard/web').innerText();
    expect(web).toMatch(/drifted/);
    expect(web).toContain('edited outside stacksync');
    expect(web).toContain('manifests/web.yaml:1');
    const broken = await row(page, 'local-selfhosted/Alert/broken').innerText();
    expect(broken).toMatch(/error/);
    expect(broken).toContain(`no tile named ${HOSTILE_TILE};`);
    // The manifest links to its line in the repository.
    const line = /manifests\/local\.yaml:(\d+)/.exec(await row(page, 'local/Dashboard/api').innerText())?.[1];
    expect(line).toBeDefined();
    expect(await row(page, 'local/Dashboard/api').locator('a').getAttribute('href')).toBe(
      `https://git.example.test/acme/manifests/blob/HEAD/manifests/local.yaml#L${line}`,
    );
    // Per target: the last sync and its facts.
    const target = await page.locator('[data-target-card="local-selfhosted"]').innerText();
    expect(target).toMatch(/last sync\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC, failed/);
    expect(target).toMatch(/rate-budget wait/);
    expect(problems).toEqual([]);
    await page.screenshot({ path: join(shots, 'status-page.png'), fullPage: true });
    // Kept as the test's artifact: a PNG that outlives the run.
    expect((await readFile(join(shots, 'status-page.png'))).subarray(0, 8)).toEqual(PNG_SIGNATURE);
    await page.close();
  });

  it('shows the field diff of a drifted resource', async () => {
    const { page } = await open();
    const web = row(page, 'local-selfhosted/Dashboard/web');
    await web.locator('summary').click({ timeout: WAIT_MS });
    const diff = await web.locator('table.diff').innerText();
    expect(diff).toMatch(/tiles\[p99\]\.w\s+6\s+12/);
    expect(await web.locator('summary').innerText()).toBe('2 fields differ');
    await page.close();
  });

  it('shows names and messages from the API as text, never running them', async () => {
    const { page, problems } = await open();
    const web = row(page, 'local-selfhosted/Dashboard/web');
    await web.locator('summary').click({ timeout: WAIT_MS });
    expect(await web.locator('table.diff').innerText()).toMatch(
      /name\s+"<script>window.__pwned = 1<\/script>"\s+"Web"/,
    );
    expect(await page.evaluate('typeof window.__pwned')).toBe('undefined');
    expect(await page.locator('#live script, #live img').count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('filters by status, kind and target, and keeps the filter in the address', async () => {
    const { page } = await open();
    // The script ran under the page's Content-Security-Policy: it hides the no-script button.
    await page.locator('#filter-button').waitFor({ state: 'hidden', timeout: WAIT_MS });
    const visible = () =>
      page
        .locator('#resources tbody tr[data-key]:visible')
        .evaluateAll((rows) => rows.map((each) => each.getAttribute('data-key')));
    await page.selectOption('select[name="status"]', 'error');
    expect(await visible()).toEqual(['local-selfhosted/Alert/broken']);
    expect(new URL(page.url()).search).toBe('?status=error');
    await page.selectOption('select[name="status"]', '');
    await page.selectOption('select[name="kind"]', 'Dashboard');
    expect(await visible()).toEqual(['local/Dashboard/api', 'local-selfhosted/Dashboard/web']);
    await page.selectOption('select[name="target"]', 'local');
    expect(await visible()).toEqual(['local/Dashboard/api']);
    expect(await page.locator('[data-target-card="local-selfhosted"]').isHidden()).toBe(true);
    expect(await page.locator('#shown').innerText()).toMatch(/^1 of \d+ resources shown$/);
    // The address keeps it: a reload, or a link to it, shows the same.
    await page.reload();
    expect(await visible()).toEqual(['local/Dashboard/api']);
    expect(await page.locator('select[name="kind"]').inputValue()).toBe('Dashboard');
    await page.close();
  });

  it('refreshes in place, keeping the filter, an open diff and the place the reader is at', async () => {
    const { page } = await open('/', { width: 390, height: 700 });
    await page.evaluate('window.__sameDocument = true');
    const web = row(page, 'local-selfhosted/Dashboard/web');
    await web.locator('summary').click({ timeout: WAIT_MS });
    // The reader is at the web row, the api row above it cut by the top of the window.
    await web.evaluate((element) => element.scrollIntoView({ block: 'start' }));
    await page.evaluate('window.scrollBy(0, -40)');
    const before = await web.evaluate((element) => element.getBoundingClientRect().top);
    // A manifest change above it: the api dashboard gets a field diff, so its row grows.
    await workspace.write(
      'manifests/local.yaml',
      documents([
        ordersPipe,
        dashboardYaml({ key: 'api', target: 'local', tiles: [{ name: 'p99', w: 18 }, 'errors'] }),
        alertYaml({ key: 'api-slow', target: 'local', dashboard: 'api', tile: 'p99' }),
      ]),
    );
    await row(page, 'local/Dashboard/api').locator('.badge.drifted').waitFor({ timeout: WAIT_MS });
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    expect(await web.locator('details').getAttribute('open')).not.toBeNull();
    expect(
      Math.abs((await web.evaluate((element) => element.getBoundingClientRect().top)) - before),
    ).toBeLessThanOrEqual(2);
    // With a filter on, a refresh keeps it.
    await page.selectOption('select[name="status"]', 'drifted');
    const summary = await page.locator('#summary').innerText();
    await page.locator('#summary').filter({ hasNotText: summary }).waitFor({ timeout: WAIT_MS });
    expect(await page.locator('select[name="status"]').inputValue()).toBe('drifted');
    expect(await page.locator('#resources tbody tr[data-key]:visible').count()).toBe(2);
    await page.close();
  });

  it('fits a phone: no sideways scrolling, every row readable', async () => {
    const { page } = await open('/', { width: 390, height: 844 });
    await row(page, 'local-selfhosted/Dashboard/web').waitFor({ timeout: WAIT_MS });
    expect(await page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth')).toBe(
      true,
    );
    expect(await page.locator('#resources > thead').isHidden()).toBe(true);
    expect(await row(page, 'local-selfhosted/Alert/broken').innerText()).toContain(`no tile named ${HOSTILE_TILE};`);
    await page.screenshot({ path: join(shots, 'status-page-phone.png'), fullPage: true });
    await page.close();
  });

  // Last: it stops the daemon.
  it('says so when the daemon stops answering, and keeps showing what it said before', async () => {
    const { page } = await open();
    await row(page, 'local-selfhosted/Alert/broken').waitFor({ timeout: WAIT_MS });
    await daemon.stop();
    await page.locator('#stale').waitFor({ state: 'visible', timeout: WAIT_MS });
    expect(await page.locator('#stale').innerText()).toMatch(
      /^The daemon did not answer at .*; this is what it said before\. Trying again\.$/,
    );
    expect(await row(page, 'local-selfhosted/Alert/broken').isVisible()).toBe(true);
    await page.close();
  });
});
