/**
 * The backend a config names (docs/ownership.md, "Where the state lives"): `state: PATH` and
 * `{ backend: file }` are the state file; `{ backend: postgres }` the database its URL names. The
 * PostgreSQL driver loads only when a config names it, so every other command starts as fast and
 * as small as before.
 */
import { resolveSecret, type SecretIo } from '../config/secrets.js';
import type { StateSettings } from '../model/config.js';
import type { StateBackend } from '../state/backend.js';
import { openFileBackend } from '../state/file-backend.js';

export async function openStateBackend(settings: StateSettings, io: Partial<SecretIo> = {}): Promise<StateBackend> {
  if (settings.backend === 'file') return openFileBackend(settings.path);
  const { openPostgresBackend } = await import('../state/postgres.js');
  return openPostgresBackend({ url: resolveSecret(settings.url, io), name: settings.name });
}
