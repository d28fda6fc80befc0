/**
 * The manifest of a Connection: its spec, the members of the real create body
 * (`wire.ts` beside it) with other kinds' ids also taken by name and credentials as
 * secret references, in the envelope.
 */
import { Type } from 'typebox';
import { described, object, optional } from '../../schema/build.js';
import { secretRefSchema } from '../../schema/config.js';
import { CurrentConnectionCreate } from './wire.js';
import { ignoreDifferencesSchema } from '../../schema/manifest-parts.js';
import { documentSchema } from '../../schema/manifest.js';
import { required } from '../../schema/manifest-stack.js';

/** The Connection kind's name. */
export const CONNECTION = 'Connection';

const {
  password: _password,
  name: _name,
  host: _host,
  username: _username,
  ...connectionOptions
} = CurrentConnectionCreate.properties;

export const connectionSpecSchema = object({
  name: described(required, 'Connection name in the API; what live connections are matched by.'),
  host: described(
    required,
    'The database endpoint (ClickHouse HTTP, or a Prometheus-compatible API with isPrometheusEndpoint).',
  ),
  username: described(Type.String(), 'User the connection queries as.'),
  ...optional({
    password: described(
      secretRefSchema,
      'Write-only: sent once per new value, compared by an HMAC kept in the state file. Left out, the live password is kept.',
    ),
    ...connectionOptions,
    ignoreDifferences: ignoreDifferencesSchema,
  }),
});

/** What the kind is, as its published schema says. */
export const CONNECTION_DESCRIPTION =
  'A database connection sources query through (self-hosted targets; a managed service makes its own, which manifests name).';

/** The whole manifest document: the envelope with this spec. */
export const connectionDocumentSchema = documentSchema(CONNECTION, connectionSpecSchema, CONNECTION_DESCRIPTION);
