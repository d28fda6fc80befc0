/**
 * `stacksync status` against whatever listens at `--listen`, broken or hostile (the built CLI,
 * a server of our own on loopback): a document with null members or of the wrong shape, one that
 * never ends, one trickled a byte at a time, one that is no JSON, one that never comes. Each ends
 * with exit 1 and one clear line on stderr: no stack trace, no E_INTERNAL, no hang, and the
 * body read no further than `--max-size`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace, type CliResult, type Workspace } from '../helpers/workspace.js';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

let workspace: Workspace;
const servers: Server[] = [];

beforeAll(async () => {
  // The config is never read: every run names --listen.
  workspace = await createWorkspace('http://127.0.0.1:1');
});
afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await workspace?.dispose();
});

/** A server on loopback answering every request with `handler`; its `host:port`. */
async function serve(handler: Handler): Promise<{ listen: string; sent: () => number }> {
  let sent = 0;
  const server = createServer((request, response) => {
    const write = response.write.bind(response) as (chunk: string | Buffer) => boolean;
    response.write = ((chunk: string | Buffer, ...rest: unknown[]) => {
      sent += Buffer.byteLength(chunk);
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof response.write;
    handler(request, response);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { listen: `127.0.0.1:${(server.address() as AddressInfo).port}`, sent: () => sent };
}

const json =
  (body: unknown): Handler =>
  (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };

function expectOneClearLine(result: CliResult, pattern: RegExp): void {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/^stacksync: E_DAEMON_UNREACHABLE: [^\n]*\n$/);
  expect(result.stderr).toMatch(pattern);
  expect(result.stderr).not.toMatch(/E_INTERNAL|\n\s+at /);
}

/** With --output json the last word is one JSON record (the logs are JSON), saying the same. */
function expectOneRecord(result: CliResult, pattern: RegExp): void {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  const record = JSON.parse(result.stderr) as { code: string; msg: string };
  expect(record.code).toBe('E_DAEMON_UNREACHABLE');
  expect(record.msg).toMatch(pattern);
  expect(record.msg).not.toMatch(/\n\s+at /);
}

const target = (resources: unknown[]): Record<string, unknown> => ({
  syncing: false,
  lastSyncAt: '2026-11-28T10:00:00Z',
  lastResult: 'success',
  resources,
});

describe('stacksync status against a broken or hostile daemon', { timeout: 60_000 }, () => {
  it('says which member is wrong when the document has null members or members of another type', async () => {
    const cases: [unknown, RegExp][] = [
      [
        {
          version: 1,
          generatedAt: '2026-11-28T10:00:00Z',
          ready: true,
          targets: { prod: target([{ kind: 'Pipe', name: null, status: 'in_sync' }]) },
        },
        /targets\["prod"\]\.resources\[0\]\.name is null, not a string/,
      ],
      [
        { version: 1, generatedAt: '2026-11-28T10:00:00Z', ready: true, targets: null },
        /: targets is null, not an object/,
      ],
      [
        { version: 1, generatedAt: '2026-11-28T10:00:00Z', ready: true, targets: { prod: null } },
        /targets\["prod"\] is null, not an object/,
      ],
      [
        {
          version: 1,
          generatedAt: '2026-11-28T10:00:00Z',
          ready: true,
          targets: { prod: { ...target([]), resources: null } },
        },
        /targets\["prod"\]\.resources is null, not a list/,
      ],
      [
        {
          version: 1,
          generatedAt: '2026-11-28T10:00:00Z',
          ready: true,
          targets: { prod: { ...target([]), lastError: 42 } },
        },
        /targets\["prod"\]\.lastError is a number, not a string/,
      ],
      [{ version: 1, generatedAt: null, ready: true, targets: {} }, /: generatedAt is null, not a string/],
      [
        {
          version: 1,
          generatedAt: '2026-11-28T10:00:00Z',
          ready: true,
          targets: { prod: target([{ kind: 'Dashboard', name: 'a', status: 'drifted', diff: [null] }]) },
        },
        /resources\[0\]\.diff\[0\] is null, not an object/,
      ],
      [[1, 2, 3], /the document is an array, not an object/],
    ];
    for (const [document, pattern] of cases) {
      const { listen } = await serve(json(document));
      expectOneClearLine(await workspace.run(['status', '--listen', listen]), pattern);
      expectOneRecord(await workspace.run(['status', '--listen', listen, '--output', 'json']), pattern);
    }
  });

  it('shows control characters in names, errors and files as escapes, never as what a terminal obeys', async () => {
    // Retitles the terminal, writes over the line, rubs a character out, and clears the screen by a C1 CSI.
    const hostile = 'A\u001b]0;owned\u0007B\rC\bD\u009b2JE';
    const shown = 'A\\x1b]0;owned\\x07B\\rC\\x08D\\x9b2JE';
    const document = {
      version: 1,
      generatedAt: '2026-11-28T10:00:00Z',
      ready: true,
      targets: {
        [`prod${hostile}`]: {
          ...target([
            {
              kind: 'Alert',
              name: `x${hostile}`,
              status: 'error',
              error: `refused: ${hostile}`,
              code: 'E_API_VALIDATION',
              file: `manifests/${hostile}.yaml`,
              line: 3,
            },
          ]),
          lastResult: 'failure',
          lastError: `sync failed: ${hostile}`,
        },
      },
    };
    const { listen } = await serve(json(document));
    const result = await workspace.run(['status', '--listen', listen]);
    expect(result.code).toBe(1);
    expect(result.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(result.stdout).toContain(`Target prod${shown}:`);
    expect(result.stdout).toContain(`error: sync failed: ${shown}`);
    expect(result.stdout).toMatch(
      new RegExp(
        `Alert +x${shown.replace(/[\\[\]]/g, '\\$&')} +error +manifests/${shown.replace(/[\\[\]]/g, '\\$&')}\\.yaml:3 +refused: `,
      ),
    );
    const asJson = await workspace.run(['status', '--listen', listen, '--output', 'json']);
    expect(asJson.stdout).not.toMatch(/[\u007f-\u009f]/);
    expect(JSON.parse(asJson.stdout)).toEqual(document);
  });

  it('says so when the answer is not JSON', async () => {
    const { listen } = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"version": 1, "targets": {');
    });
    expectOneClearLine(
      await workspace.run(['status', '--listen', listen]),
      /sent no usable stacksync status document: it is not JSON/,
    );
  });

  it('stops reading an endless body at --max-size', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const endless = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const pump = (): void => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', pump);
      };
      pump();
    });
    const result = await workspace.run(['status', '--listen', endless.listen, '--max-size', '1MiB']);
    expectOneClearLine(result, /sent more than 1 MiB \(--max-size\)/);
    // The server kept writing into socket buffers after the CLI stopped reading; never without bound.
    expect(endless.sent()).toBeLessThan(64 * 1024 * 1024);
  });

  it('refuses a body announced longer than --max-size without reading it', async () => {
    const { listen } = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) });
      response.write('{');
    });
    expectOneClearLine(
      await workspace.run(['status', '--listen', listen, '--max-size', '512KiB']),
      /announced 10485760 bytes, more than 512 KiB \(--max-size\)/,
    );
  });

  it('gives up on a body trickled a byte at a time after --timeout, and on an answer that never comes', async () => {
    const trickled = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => (response.destroyed ? clearInterval(timer) : response.write(' ')), 100);
    });
    expectOneClearLine(
      await workspace.run(['status', '--listen', trickled.listen, '--timeout', '2s']),
      /did not answer in full within 2s \(--timeout\)/,
    );
    const silent = await serve(() => undefined);
    expectOneClearLine(
      await workspace.run(['status', '--listen', silent.listen, '--timeout', '1']),
      /did not answer in full within 1s \(--timeout\)/,
    );
  });

  it('names both bounds and their defaults in --help, and refuses a bound that is none', async () => {
    const help = await workspace.run(['status', '--help']);
    expect(help.stdout).toMatch(/--timeout <duration>[\s\S]*\(default: 10s\)/);
    expect(help.stdout).toMatch(/--max-size <size>[\s\S]*\(default: 64MiB\)/);
    const bad = await workspace.run(['status', '--listen', '127.0.0.1:1', '--max-size', 'lots']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--max-size.*must be a size like 64MiB/);
  });
});
