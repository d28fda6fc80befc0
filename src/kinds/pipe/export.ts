/**
 * A live pipe as a manifest: the members Update pipe can write, by the manifest schema.
 * Credentials are never returned, so they are offered as `fromEnv` placeholders instead.
 */
import { pipePatchSourceBlockSchemas } from '../../schema/api.js';
import { SPEC_SCHEMAS } from '../../schema/manifest.js';
import type { CredentialPlaceholder, KindExport } from '../descriptor.js';
import { envName } from '../kit/export-names.js';
import { pickBySchema } from '../kit/pick.js';
import { PIPE, type LivePipe } from './model.js';

export const pipeExport: KindExport<LivePipe> = {
  keyPrefix: 'pipe',
  write: (pipe, key) => {
    const { kind, block } = pipe.source;
    const candidate = {
      pipeId: pipe.id,
      name: pipe.name,
      source: { [kind]: block },
      destination: pipe.destination,
      fieldMappings: pipe.fieldMappings,
      settings: pipe.settings,
    };
    const spec = pickBySchema(candidate, SPEC_SCHEMAS[PIPE]) as Record<string, unknown>;
    // The kind block stays even when empty: it says where credentials would go.
    spec['source'] ??= { [kind]: {} };
    const credentials = credentialPlaceholder(kind, key);
    return credentials ? { spec, credentials } : { spec };
  },
};

function credentialPlaceholder(kind: LivePipe['source']['kind'], key: string): CredentialPlaceholder | undefined {
  const members = pipePatchSourceBlockSchemas[kind].properties as Record<string, unknown>;
  const member = 'credentials' in members ? 'credentials' : 'accessKey' in members ? 'accessKey' : undefined;
  if (member === undefined) return undefined;
  const names = member === 'credentials' ? ['username', 'password'] : ['accessKeyId', 'secretKey'];
  const fields = Object.fromEntries(names.map((field) => [field, { fromEnv: envName(key, field) }]));
  return { path: `spec.source.${kind}`, member, fields };
}
