/**
 * The backend a config names (docs/ownership.md, "Where the state lives"): `state: PATH` and
 * `{ backend: file }` are the state file; `{ backend: postgres }` the database its URL names.
 */
import { resolveSecret, type SecretIo } from '../config/secrets.js';
import type { StateSettings } from '../model/config.js';
import type { StateBackend } from '../state/backend.js';
import { openFileBackend } from '../state/file-backend.js';
import { openPostgresBackend } from '../state/postgres.js';

export function openStateBackend(settings: StateSettings, io: Partial<SecretIo> = {}): StateBackend {
  if (settings.backend === 'file') return openFileBackend(settings.path);
  return openPostgresBackend({ url: resolveSecret(settings.url, io), name: settings.name });
}
