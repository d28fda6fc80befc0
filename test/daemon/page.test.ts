/**
 * The status page's HTML (daemon/page/render.ts) from plain documents: what it shows, that every
 * value from the API or a manifest is text, that the filter of the address is applied without any
 * script, that kinds come from the data, and that the Content-Security-Policy allows exactly the
 * page's own inline style and script. The browser test (test/e2e/status-page.test.ts) shows it working.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PAGE_CSP } from '../../src/daemon/page/assets.js';
import { escapeHtml, filterOf, renderStatusPage } from '../../src/daemon/page/render.js';
import { statusPageReply } from '../../src/daemon/page/serve.js';
import type { StatusDocument, TargetStatus } from '../../src/daemon/status.js';
import type { Kind } from '../../src/model/kinds.js';

const AT = '2026-11-26T10:00:00.000Z';

function target(resources: TargetStatus['resources'], extra: Partial<TargetStatus> = {}): TargetStatus {
  return {
    syncing: false,
    lastSyncAt: AT,
    lastResult: 'success',
    lastSuccessAt: AT,
    lastSyncSeconds: 1.25,
    lastSyncWaitSeconds: 0.5,
    rateLimitWaitSeconds: 12,
    resources,
    ...extra,
  };
}

const HOSTILE = '<script>alert("x")</script>';

function sample(): StatusDocument {
  return {
    version: 1,
    generatedAt: AT,
    ready: true,
    targets: {
      prod: target(
        [
          {
            kind: 'Pipe',
            name: 'orders',
            status: 'in_sync',
            state: 'Failed',
            health: 'degraded',
            file: '/repo/manifests/pipes.yaml',
            line: 3,
            path: 'manifests/pipes.yaml',
            url: 'https://git.example/blob/abc/manifests/pipes.yaml#L3',
          },
          {
            kind: 'Dashboard',
            name: 'web',
            status: 'drifted',
            cause: 'live',
            driftSince: AT,
            diff: [
              { path: 'tiles[p99].w', before: 6, after: 12 },
              { path: 'name', before: HOSTILE, after: 'Web' },
            ],
            diffOmitted: 3,
            path: 'manifests/web.yaml',
            line: 1,
          },
          {
            kind: 'Alert',
            name: 'broken',
            status: 'error',
            error: `no tile named ${HOSTILE}`,
            code: 'E_REF_UNRESOLVED',
            path: 'manifests/broken.yaml',
            line: 10,
          },
          {
            kind: 'Alert',
            name: 'late',
            status: 'drifted',
            cause: 'git',
            waitUntil: '2026-11-26T10:05:00.000Z',
            path: 'manifests/late.yaml',
            line: 1,
          },
        ],
        { revision: '0123456789abcdef0123456789abcdef01234567' },
      ),
      // A kind the code does not have yet: the page shows what the document holds.
      lab: target([{ kind: 'Webhook' as unknown as Kind, name: 'oncall', status: 'orphan' }], {
        lastResult: 'failure',
        lastError: `target lab: ${HOSTILE}`,
        lastErrorAt: AT,
        suspended: true,
      }),
    },
  };
}

/** The text a person sees of some HTML: tags dropped, entities decoded (enough for these checks). */
function textOf(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#(\d+);/g, (_match, code: string) => String.fromCharCode(Number(code)))
    .replace(/\s+/g, ' ');
}

describe('the status page', () => {
  const html = renderStatusPage(sample());

  it('shows every resource with its status, manifest and what is wrong', () => {
    const text = textOf(html);
    expect(text).toContain('prod Pipe orders in sync degraded manifests/pipes.yaml:3 live state Failed');
    expect(text).toContain(
      'prod Dashboard web drifted manifests/web.yaml:1 edited outside stacksync since 2026-11-26 10:00:00 UTC 5 fields differ',
    );
    expect(text).toContain('tiles[p99].w 6 12');
    expect(text).toContain('… and 3 more fields');
    expect(text).toContain(
      `prod Alert broken error manifests/broken.yaml:10 no tile named ${HOSTILE} (E_REF_UNRESOLVED)`,
    );
    expect(html).toContain(
      '<a href="https://git.example/blob/abc/manifests/pipes.yaml#L3" rel="noreferrer"><code>manifests/pipes.yaml:3</code></a>',
    );
    expect(text).toContain(
      'prod Alert late drifted manifests/late.yaml:1 not created yet waits until 2026-11-26 10:05:00 UTC: an earlier write of it may still land',
    );
  });

  it('shows per target the last sync, revision, counts, the rate-budget wait and the error', () => {
    const text = textOf(html);
    expect(text).toContain('last sync 2026-11-26 10:00:00 UTC, succeeded in 1.3 s');
    expect(text).toContain('revision 0123456789abcdef0123456789abcdef01234567');
    expect(text).toContain('resources 1 in sync, 2 drifted, 1 error, 1 degraded');
    expect(text).toContain('rate-budget wait 0.5 s in the last sync, 12 s since start');
    expect(text).toMatch(/lab last sync failed suspended last sync .* error target lab: <script>/);
  });

  it('escapes every value: nothing from a document becomes markup', () => {
    expect(html).not.toContain(HOSTILE);
    expect(html.match(/<script\b/g)).toHaveLength(1);
    expect(escapeHtml(`<a href="x" onclick='y'>&`)).toBe('&#60;a href=&#34;x&#34; onclick=&#39;y&#39;&#62;&#38;');
  });

  it('lists the kinds, targets and statuses of the document in its filters, whatever the kinds are', () => {
    const options = (name: string) =>
      [
        ...(new RegExp(`<select name="${name}">([\\s\\S]*?)</select>`).exec(html)?.[1] ?? '').matchAll(
          /<option value="([^"]*)"/g,
        ),
      ].map((match) => match[1]);
    expect(options('target')).toEqual(['', 'prod', 'lab']);
    expect(options('kind')).toEqual(['', 'Pipe', 'Dashboard', 'Alert', 'Webhook']);
    expect(options('status')).toEqual(['', 'in_sync', 'drifted', 'error', 'orphan', 'suspended', 'degraded']);
    expect(html).toContain('<option value="degraded">degraded (1)</option>');
  });

  it("applies the address's filter on the server, so it works without script", () => {
    const filtered = renderStatusPage(sample(), filterOf(new URLSearchParams('status=degraded')));
    const hidden = [...filtered.matchAll(/<tr data-key="([^"]+)"[^>]*?( hidden)?>/g)].map((match) => [
      match[1],
      match[2] === ' hidden',
    ]);
    expect(hidden).toEqual([
      ['prod/Pipe/orders', false],
      ['prod/Dashboard/web', true],
      ['prod/Alert/broken', true],
      ['prod/Alert/late', true],
      ['lab/Webhook/oncall', true],
    ]);
    expect(filtered).toContain('<option value="degraded" selected>');
    expect(filtered).toContain('1 of 5 resources shown');
    const byTarget = renderStatusPage(sample(), { target: 'lab' });
    expect(byTarget).toContain('<article class="target" data-target-card="prod" hidden>');
  });

  it('says so when nothing is reported yet, or nothing matches', () => {
    const empty: StatusDocument = {
      version: 1,
      generatedAt: AT,
      ready: false,
      targets: { prod: { syncing: true, resources: [] } },
    };
    const text = textOf(renderStatusPage(empty));
    expect(text).toContain('waiting for the first sync of every target');
    expect(text).toContain('the first sync is running');
    expect(text).toContain('No resources reported yet.');
    expect(renderStatusPage(sample(), { kind: 'Nothing' })).toContain(
      '<tr id="no-match"><td class="empty" colspan="6">No resource matches the filter.</td></tr>',
    );
  });

  it('says, under run --leader-elect, whether this daemon leads or stands by, and who leads', () => {
    const leader = { host: 'pod-a', pid: 7, command: 'run --leader-elect', since: AT };
    expect(textOf(renderStatusPage({ ...sample(), role: 'leader', leader }))).toContain(
      'leader; the last sync of 1 of 2 targets failed',
    );
    const standby = textOf(renderStatusPage({ ...sample(), role: 'standby', leader: { ...leader, host: HOSTILE } }));
    expect(standby).toContain(`standby, not reconciling; the leader is pid 7 on host ${HOSTILE}`);
    expect(textOf(renderStatusPage({ ...sample(), role: 'standby' }))).toContain(
      'standby, not reconciling; no leader is known',
    );
    // Without the flag, no role is claimed.
    expect(textOf(renderStatusPage(sample()))).not.toMatch(/leader|standby/);
  });
});

describe('the status page answer', () => {
  it('carries a Content-Security-Policy that allows exactly its inline style and script', () => {
    const reply = statusPageReply(sample(), new URL('http://localhost/'));
    expect(reply.type).toBe('text/html; charset=utf-8');
    const csp = reply.headers['content-security-policy'] ?? '';
    expect(csp).toBe(PAGE_CSP);
    const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
    const script = /<script>([\s\S]*?)<\/script>/.exec(reply.body)?.[1] ?? '';
    const style = /<style>([\s\S]*?)<\/style>/.exec(reply.body)?.[1] ?? '';
    expect(csp).toContain(`script-src ${hash(script)};`);
    expect(csp).toContain(`style-src ${hash(style)};`);
    expect(csp).toMatch(/^default-src 'none';/);
    expect(csp).toContain("frame-ancestors 'none'");
    // No asset from anywhere else: no src attribute, no stylesheet link, no external URL but manifest links.
    expect(reply.body).not.toMatch(/\ssrc=|rel="stylesheet"|@import/);
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
  });
});
