/**
 * Secret references → values, at the moment a client or a plan needs them. The only module that
 * reads `process.env` (as a default that callers and tests override). Errors name the env var or
 * file, never a value. Every value a reference resolves to is registered with the run's secrets
 * (support/redaction.ts), so every output masks it, whichever request a server quotes.
 */
import { closeSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { StacksyncError } from '../errors.js';
import type { Credentials, SecretRef, Target, TargetConnection } from '../model/config.js';
import { runSecrets } from '../support/redaction.js';

export interface SecretIo {
  env: Readonly<Record<string, string | undefined>>;
  /** Reads a secret file as text. */
  readFile: (path: string) => string;
}

/** Largest secret file read; a token or key is far smaller, a device file is refused. */
export const MAX_SECRET_FILE_BYTES = 64 * 1024;

/** The process environment and file system; the default at the outermost call. */
export function defaultSecretIo(): SecretIo {
  return { env: process.env, readFile: readSecretFile };
}

function withDefaults(io: Partial<SecretIo>): SecretIo {
  return { env: io.env ?? process.env, readFile: io.readFile ?? readSecretFile };
}

export function isPlainSecret(ref: SecretRef): ref is string {
  return typeof ref === 'string';
}

/** `env var NAME`, `file PATH` or `a plain string`: what a reference names, never its value. */
export function describeSecretRef(ref: SecretRef): string {
  if (typeof ref === 'string') return 'a plain string';
  return 'fromEnv' in ref ? `env var ${ref.fromEnv}` : `file ${ref.fromFile}`;
}

/**
 * The value a reference names. `fromFile` drops one trailing newline (files written by `echo` or
 * mounted from a Kubernetes secret often end with one). Throws `E_SECRET_MISSING`.
 */
export function resolveSecret(ref: SecretRef, io: Partial<SecretIo> = {}): string {
  // A plain string is written in the clear already (and warned about): masking a plain
  // `username: orders` would mask every `orders` of every output.
  if (typeof ref === 'string') return ref;
  const value = readSecret(ref, io);
  runSecrets.register([value]);
  return value;
}

function readSecret(ref: Exclude<SecretRef, string>, io: Partial<SecretIo>): string {
  const { env, readFile } = withDefaults(io);
  if ('fromEnv' in ref) return nonEmpty(env[ref.fromEnv], ref);
  return nonEmpty(readRef(ref.fromFile, readFile).replace(/\r?\n$/, ''), ref);
}

function readRef(path: string, readFile: SecretIo['readFile']): string {
  try {
    return readFile(path);
  } catch (error) {
    if (error instanceof StacksyncError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new StacksyncError('E_SECRET_MISSING', `file ${path} cannot be read (${code})`, {
      details: { file: path, reason: code },
    });
  }
}

function nonEmpty(value: string | undefined, ref: { fromEnv: string } | { fromFile: string }): string {
  const details = 'fromEnv' in ref ? { env: ref.fromEnv } : { file: ref.fromFile };
  if (value === undefined)
    throw new StacksyncError('E_SECRET_MISSING', `${describeSecretRef(ref)} is not set`, { details });
  if (value === '') throw new StacksyncError('E_SECRET_MISSING', `${describeSecretRef(ref)} is empty`, { details });
  return value;
}

/**
 * The directory a relative `fromFile` of `file` (the config file or a manifest) is resolved
 * against: the directory the file is in, as the file system resolves it. So `..` means the same
 * directory whether the file was reached through a git-sync link (as `apply -m /git/current`
 * does) or through the checkout the link points at (as the daemon reads it): one rule in every
 * command. When the directory cannot be resolved, its path as given.
 */
export function secretBaseDir(file: string): string {
  const dir = dirname(resolve(file));
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/** A relative `fromFile` made absolute against `baseDir` (see {@link secretBaseDir}), so it works from any cwd. */
export function anchorSecret(ref: SecretRef, baseDir: string): SecretRef {
  if (typeof ref === 'object' && 'fromFile' in ref && !isAbsolute(ref.fromFile))
    return { fromFile: resolve(baseDir, ref.fromFile) };
  return typeof ref === 'object' ? { ...ref } : ref;
}

/**
 * Reads a secret file, refusing what is not a small regular file (a FIFO or device would hang).
 * The size is checked on what is read, not on `stat`: files under /proc and /sys report size 0
 * whatever they hold, so at most one byte past the limit is ever read.
 */
export function readSecretFile(path: string): string {
  const stats = statSync(path);
  if (!stats.isFile())
    throw new StacksyncError('E_SECRET_MISSING', `file ${path} is not a regular file`, { details: { file: path } });
  if (stats.size > MAX_SECRET_FILE_BYTES) throw tooLarge(path);
  const bytes = readAtMost(path, MAX_SECRET_FILE_BYTES + 1);
  if (bytes.length > MAX_SECRET_FILE_BYTES) throw tooLarge(path);
  return bytes.toString('utf8');
}

function tooLarge(path: string): StacksyncError {
  return new StacksyncError(
    'E_SECRET_MISSING',
    `file ${path} is larger than ${MAX_SECRET_FILE_BYTES} bytes; is it really a secret?`,
    { details: { file: path } },
  );
}

/** The first `limit` bytes of a file (fewer when it is shorter). */
function readAtMost(path: string, limit: number): Buffer {
  const buffer = Buffer.alloc(limit);
  const fd = openSync(path, 'r');
  try {
    let filled = 0;
    while (filled < limit) {
      const read = readSync(fd, buffer, filled, limit - filled, null);
      if (read === 0) break;
      filled += read;
    }
    return buffer.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/** A target's credentials, resolved. Throws `E_SECRET_MISSING` naming the target. */
export function resolveCredentials(target: Target, io: Partial<SecretIo> = {}): Credentials {
  try {
    if (target.variant === 'managed') {
      const credentials = {
        variant: 'managed' as const,
        keyId: resolveSecret(target.auth.keyId, io),
        keySecret: resolveSecret(target.auth.keySecret, io),
      };
      // The pair is what the Basic header encodes: its base64 holds neither part's.
      runSecrets.register([`${credentials.keyId}:${credentials.keySecret}`]);
      return credentials;
    }
    return { variant: 'self-hosted', token: resolveSecret(target.auth.token, io) };
  } catch (error) {
    if (!(error instanceof StacksyncError)) throw error;
    throw new StacksyncError(error.code, `target ${target.name}: ${error.message}`, {
      subject: `target ${target.name}`,
      details: error.details ?? {},
    });
  }
}

/**
 * A target's secret `vars` (those read from the environment or a file) that can be read now,
 * with their names: they go into request bodies and so into live resources through `${NAME}`,
 * so a client must know them to mask a server's echo of them, and export to write them back as
 * references. One that cannot be read is left out (loading the manifests says why).
 */
export function secretVars(target: Target, io: Partial<SecretIo> = {}): { name: string; value: string }[] {
  const found: { name: string; value: string }[] = [];
  for (const [name, ref] of Object.entries(target.vars ?? {})) {
    if (typeof ref === 'string') continue;
    try {
      found.push({ name, value: resolveSecret(ref, io) });
    } catch (error) {
      if (!(error instanceof StacksyncError)) throw error;
    }
  }
  return found;
}

/** The values of {@link secretVars}. */
export function secretVarValues(target: Target, io: Partial<SecretIo> = {}): string[] {
  return secretVars(target, io).map((secret) => secret.value);
}

/** Everything a client needs for one target. */
export function toConnection(target: Target, io: Partial<SecretIo> = {}): TargetConnection {
  const connection: TargetConnection = {
    name: target.name,
    variant: target.variant,
    baseUrl: target.baseUrl,
    credentials: resolveCredentials(target, io),
    rateLimit: { ...target.rateLimit },
    ...(target.api ? { api: { ...target.api } } : {}),
  };
  if (target.variant === 'managed') {
    connection.organizationId = target.organizationId;
    connection.serviceId = target.serviceId;
  }
  return connection;
}
