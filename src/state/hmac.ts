/**
 * The key under which write-only values (credentials, access keys) are compared: the state file
 * keeps HMAC-SHA256(key, value), never the value. The key is generated once, kept beside the
 * state file with mode 0600, and refused when anyone else could read it.
 */
import { createHmac, randomBytes as nodeRandomBytes } from 'node:crypto';
import { basename, dirname, extname, join } from 'node:path';
import { StacksyncError } from '../errors.js';
import { errnoCode, nodeFs, removeQuietly, syncDirectory, writeDurably, type StateFs } from '../support/fs.js';
import { STATE_DIR_MODE } from './store.js';

/** Bytes of key material. */
export const HMAC_KEY_BYTES = 32;
export const KEY_FILE_MODE = 0o600;

/** Hashes one resolved secret value; hex HMAC-SHA256. */
export type SecretHasher = (value: string) => string;

export interface HmacKeyOptions {
  fs?: StateFs;
  /** Source of key material; injected by tests. */
  randomBytes?: (size: number) => Buffer;
  /** Whether to refuse a key file readable by group or others; default true except on Windows, which has no such modes. */
  checkMode?: boolean;
}

/** `.stacksync/state.json` → `.stacksync/state.key`; a path without extension gets `.key` appended. */
export function keyPathFor(statePath: string): string {
  const name = basename(statePath);
  const stem = extname(name) ? name.slice(0, -extname(name).length) : name;
  return join(dirname(statePath), `${stem}.key`);
}

/** A hasher under a key made for it and never kept: what `validate` and export's check use, which compute hashes but store none. */
export function throwawaySecretHasher(): SecretHasher {
  return createSecretHasher(nodeRandomBytes(HMAC_KEY_BYTES));
}

export function createSecretHasher(key: Buffer): SecretHasher {
  if (key.length !== HMAC_KEY_BYTES) throw new StacksyncError('E_INTERNAL', `HMAC key must be ${HMAC_KEY_BYTES} bytes`);
  const copy = Buffer.from(key);
  return (value) => createHmac('sha256', copy).update(value, 'utf8').digest('hex');
}

/**
 * Reads the key at `path`, creating it on first use. Creation writes a temp file and hard-links
 * it into place, which fails if the file exists: two processes starting together both end up
 * with the one key that won, and nobody ever reads a half-written key.
 */
export async function loadOrCreateHmacKey(path: string, options: HmacKeyOptions = {}): Promise<Buffer> {
  const fs = options.fs ?? nodeFs;
  const existing = await readKey(fs, path, options);
  if (existing) return existing;
  const key = (options.randomBytes ?? nodeRandomBytes)(HMAC_KEY_BYTES);
  await createKeyFile(fs, path, key);
  const stored = await readKey(fs, path, options);
  if (!stored) throw keyError(path, 'disappeared right after it was created');
  return stored;
}

async function readKey(fs: StateFs, path: string, options: HmacKeyOptions): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = await fs.readFile(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw keyError(path, `cannot be read (${errnoCode(error) ?? String(error)})`, error);
  }
  if (options.checkMode ?? process.platform !== 'win32') await checkMode(fs, path);
  const hex = text.trim();
  if (!/^[0-9a-f]*$/i.test(hex) || hex.length !== HMAC_KEY_BYTES * 2) {
    throw keyError(path, `must hold ${HMAC_KEY_BYTES} bytes as ${HMAC_KEY_BYTES * 2} hex digits; it does not`);
  }
  return Buffer.from(hex, 'hex');
}

async function checkMode(fs: StateFs, path: string): Promise<void> {
  const { mode } = await fs.stat(path);
  if ((mode & 0o077) === 0) return;
  throw keyError(
    path,
    `is readable or writable by others (mode ${(mode & 0o777).toString(8).padStart(4, '0')}); run chmod 600 on it`,
  );
}

async function createKeyFile(fs: StateFs, path: string, key: Buffer): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${nodeRandomBytes(4).toString('hex')}.tmp`);
  try {
    await fs.mkdir(dir, { recursive: true, mode: STATE_DIR_MODE });
    await writeDurably(fs, temp, `${key.toString('hex')}\n`, 'wx', KEY_FILE_MODE);
    await fs.link(temp, path);
  } catch (error) {
    // Another process created the key first: use theirs.
    if (errnoCode(error) !== 'EEXIST') {
      throw new StacksyncError(
        'E_STATE_WRITE',
        `state key file ${path} could not be created (${errnoCode(error) ?? String(error)})`,
        { subject: path, cause: error },
      );
    }
  } finally {
    await removeQuietly(fs, temp);
  }
  await syncDirectory(fs, dir);
}

function keyError(path: string, what: string, cause?: unknown): StacksyncError {
  // The message names the file, never its content.
  return new StacksyncError('E_STATE_CORRUPT', `state key file ${path} ${what}`, { subject: path, cause });
}
