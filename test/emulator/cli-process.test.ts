// The built CLI as a real process: `node dist/cli.js emulator` (needs `npm run build`, which `npm test` does first).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { basic, call, SERVICE_PATH } from './helpers.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'stacksync-emulator-process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('stacksync emulator (process)', () => {
  it('starts on --port 0, serves, logs requests to stderr without secrets, and exits 0 on SIGTERM after saving --data', async () => {
    const data = join(dir, 'state.json');
    const child = spawn(process.execPath, [CLI, 'emulator', '--port', '0', '--log-level', 'debug', '--data', data], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no banner; stderr: ${stderr}`)), 10_000);
      child.stdout.on('data', () => {
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    });
    const created = await call(url, 'POST', `${SERVICE_PATH}/stack/dashboards`, {
      auth: basic(),
      body: { name: 'from-process' },
    });
    expect(created.status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);

    expect(JSON.parse(readFileSync(data, 'utf8')).state.organizations[0].services[0].dashboards[0].name).toBe(
      'from-process',
    );
    const requestLines = stderr.split('\n').filter((line) => line.includes('"msg":"request"'));
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0]).toContain(
      '"route":"/v1/organizations/{organizationId}/services/{serviceId}/stack/dashboards"',
    );
    expect(stderr).not.toContain(basic().slice(6));
    expect(stderr.toLowerCase()).not.toContain('authorization');
  });

  it('exits 1 with E_EMULATOR_DATA for a corrupt data file', async () => {
    const data = join(dir, 'corrupt.json');
    writeFileSync(data, 'not json');
    const child = spawn(process.execPath, [CLI, 'emulator', '--port', '0', '--data', data], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    // Off a terminal the emulator logs JSON, and its last word is a JSON record too.
    expect(JSON.parse(stderr.trim().split('\n').at(-1) ?? '{}')).toMatchObject({
      level: 50,
      code: 'E_EMULATOR_DATA',
      msg: expect.stringContaining('emulator data file'),
    });
    const human = spawn(process.execPath, [CLI, 'emulator', '--port', '0', '--data', data, '--log-format', 'human'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let humanStderr = '';
    human.stderr.on('data', (chunk: Buffer) => (humanStderr += chunk.toString()));
    expect(await new Promise<number | null>((resolve) => human.once('exit', resolve))).toBe(1);
    expect(humanStderr).toContain('stacksync: E_EMULATOR_DATA: emulator data file');
    expect(readFileSync(data, 'utf8')).toBe('not json');
  });
});
