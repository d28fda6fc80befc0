/**
 * What a current server takes of a tile's `config`, checked offline, at the member's line (issue
 * 32): each member a manifest writes, against the schema of the config's form — its `displayType`,
 * and `configType: sql` for a raw SQL chart — as both services' documents give it
 * (docs/manifests/dashboard.md#config-on-a-current-target). Members a manifest leaves out of a
 * config are kept from the live tile (an update lays the config over it), so none is required
 * here; a new tile's whole config is asked of the service's `dashboards/validate` by `plan`.
 * A table's `onClick` is the exception: one of three link-outs told apart by its `type`, written
 * whole, with the members its type requires (`on-click.ts`).
 */
import type { TSchema } from 'typebox';
import { CURRENT_BUILDER_CONFIGS, CURRENT_SQL_CONFIGS } from './wire.js';
import { ON_CLICK_SCHEMA, chosenAlternatives } from './on-click.js';
import { compileSchema, toIssues } from '../../schema/validate.js';
import { recordOr } from '../../support/json.js';
import type { JsonSchema } from '../../schema/build.js';
import type { Pointer } from '../../yaml/positions.js';

const SOURCE_NAME = {
  type: 'string',
  minLength: 1,
  description: 'Name of a data source of the target, sent as its id (sourceId).',
};

/** A config form's schema as a manifest may write it: no member required, the source also by name, a table's link-out as the documents give it. */
function asWritten(schema: TSchema): JsonSchema {
  const { required: _required, ...rest } = recordOr(JSON.parse(JSON.stringify(schema))) ?? {};
  const properties = { ...recordOr(rest['properties']) };
  if (Object.hasOwn(properties, 'sourceId')) properties['source'] = SOURCE_NAME;
  if (Object.hasOwn(properties, 'onClick')) properties['onClick'] = ON_CLICK_SCHEMA;
  return { ...rest, properties };
}

const FORMS: Record<'builder' | 'sql', Record<string, TSchema>> = {
  builder: CURRENT_BUILDER_CONFIGS,
  sql: CURRENT_SQL_CONFIGS,
};

/** Every form of config a current target takes, as a manifest may write it, by `builder:<displayType>` / `sql:<displayType>`. */
export function currentConfigSchemas(): Record<string, JsonSchema> {
  return Object.fromEntries(
    Object.entries(FORMS).flatMap(([form, schemas]) =>
      Object.entries(schemas).map(([displayType, schema]) => [`${form}:${displayType}`, asWritten(schema)]),
    ),
  );
}

/** Why a current server refuses this tile config, at the member it is about (relative to the config), or nothing. */
export function currentConfigProblem(
  config: Record<string, unknown>,
): { problem: string; pointer: Pointer } | undefined {
  const { displayType, configType } = config;
  if (configType !== undefined && configType !== 'sql') {
    return {
      problem: `configType ${JSON.stringify(configType)}: a current server's API takes only sql here (left out: a builder chart)`,
      pointer: ['configType'],
    };
  }
  // Without a displayType the live tile's is kept, and with it the form its members belong to.
  if (displayType === undefined) return undefined;
  const form = configType === 'sql' ? 'sql' : 'builder';
  const forms = FORMS[form];
  const chosen = typeof displayType === 'string' && Object.hasOwn(forms, displayType) ? forms[displayType] : undefined;
  if (chosen === undefined) {
    return {
      problem: `displayType must be one of ${Object.keys(forms).join(', ')}${form === 'sql' ? ' for a raw SQL chart' : ''}`,
      pointer: ['displayType'],
    };
  }
  // Alternatives (a link-out's type, its target's mode) chosen by the config's own values, so an error names the member its choice lacks.
  const { schema, choices } = chosenAlternatives(asWritten(chosen), config);
  const validate = compileSchema(['current-config', form, displayType, ...choices].join(':'), schema);
  if (validate(config)) return undefined;
  const [issue] = toIssues(validate.errors ?? []);
  // A refusal names at least one issue; none would be a validator that refuses without saying why.
  if (issue === undefined) return { problem: 'does not match its form', pointer: [] };
  return { problem: `${issue.path ? `${issue.path}: ` : ''}${issue.message}`, pointer: issue.pointer };
}
