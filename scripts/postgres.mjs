// A real PostgreSQL server for tests and the benchmark: Debian's `postgresql` binaries, a cluster
// made with `initdb` in a temporary directory and started with `pg_ctl` on a free loopback port
// (about 1.5 s). `initdb` refuses to run as root, so as root the directory is given to the
// `postgres` user and every command runs through `runuser`. `.ci/run` installs the package where
// it is missing; without it `startPostgres` throws, saying so (a state store test that skips is a
// test that does not exist). test/helpers/postgres.ts re-exports it for the tests.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** The directory of `initdb` and `pg_ctl`: the newest Debian cluster version installed. */
export function postgresBinaries() {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function startPostgres() {
  const bin = postgresBinaries();
  if (bin === undefined) throw new Error('PostgreSQL is not installed (apt-get install postgresql, as .ci/run does)');
  const asRoot = process.getuid?.() === 0;
  const dir = await mkdtemp(join(tmpdir(), 'stacksync-pg-'));
  if (asRoot) {
    const { stdout } = await exec('id', ['-u', 'postgres']);
    const { stdout: gid } = await exec('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const run = (command, args) =>
    asRoot ? exec('runuser', ['-u', 'postgres', '--', join(bin, command), ...args]) : exec(join(bin, command), args);
  const data = join(dir, 'data');
  await run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--locale=C']);
  let port = 0;
  for (let attempt = 1; ; attempt += 1) {
    port = await freePort();
    try {
      await run('pg_ctl', [
        '-D',
        data,
        '-l',
        join(dir, 'log'),
        '-o',
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`,
        '-w',
        '-t',
        '60',
        'start',
      ]);
      break;
    } catch (error) {
      // Another process took the port between the probe and the start: try another.
      if (attempt >= 3) throw error;
    }
  }
  const base = `postgres://postgres@127.0.0.1:${port}`;
  return {
    url: `${base}/postgres`,
    port,
    async createDatabase(name) {
      await run('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', name]);
      return `${base}/${name}`;
    },
    async stop() {
      await run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
