/**
 * The backend a config names (docs/ownership.md, "Where the state lives"): `state: PATH` and
 * `{ backend: file }` are the state file; `{ backend: postgres }` the database its URL names;
 * `{ backend: kubernetes }` Secrets and a Lease in a namespace; `{ backend: s3 }` an object in a
 * bucket. Each client library loads only when a config names its backend, so every other command
 * starts as fast and as small as before.
 */
import { resolveSecret, type SecretIo } from '../config/secrets.js';
import type { StateSettings } from '../model/config.js';
import type { StateBackend } from '../state/backend.js';
import { openFileBackend } from '../state/file-backend.js';

export async function openStateBackend(settings: StateSettings, io: Partial<SecretIo> = {}): Promise<StateBackend> {
  if (settings.backend === 'file') return openFileBackend(settings.path);
  if (settings.backend === 'kubernetes') {
    const { openKubernetesBackend } = await import('../state/kubernetes.js');
    const { namespace, name, kubeconfig, context } = settings;
    return openKubernetesBackend({
      namespace,
      name,
      ...(kubeconfig !== undefined ? { kubeconfig } : {}),
      ...(context !== undefined ? { context } : {}),
      ...(io.env ? { env: io.env } : {}),
    });
  }
  if (settings.backend === 's3') {
    const { openS3Backend } = await import('../state/s3.js');
    const { bucket, key, region, endpoint, forcePathStyle } = settings;
    return openS3Backend({ bucket, key, region, forcePathStyle, ...(endpoint !== undefined ? { endpoint } : {}) });
  }
  const { openPostgresBackend } = await import('../state/postgres.js');
  return openPostgresBackend({ url: resolveSecret(settings.url, io), name: settings.name });
}
