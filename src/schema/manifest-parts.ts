/** What every kind's manifest schema shares: the key pattern and the ignore rules. */
import { Type } from 'typebox';

/** `metadata.name`: lowercase letters, digits and '-', starting and ending with a letter or digit. */
export const NAME_PATTERN = '^[a-z0-9]([a-z0-9-]*[a-z0-9])?$';
export const NAME_MAX_LENGTH = 128;

/**
 * A field path as the plan prints it: members joined by '.', list items by `[key]`
 * (`tiles[p99].w`, `threshold`, `source.kafka.topic`).
 */
export const FIELD_PATH_PATTERN =
  '^[A-Za-z_][A-Za-z0-9_]*(\\[[^\\]]+\\])*(\\.[A-Za-z_][A-Za-z0-9_]*(\\[[^\\]]+\\])*)*$';

export const nameSchema = Type.String({ pattern: NAME_PATTERN, maxLength: NAME_MAX_LENGTH });

/** `spec.ignoreDifferences`: field paths whose live values are kept, never diffed or written. */
export const ignoreDifferencesSchema = Type.Array(Type.String({ pattern: FIELD_PATH_PATTERN }), {
  uniqueItems: true,
  description:
    'Field paths, as the plan prints them (tiles[p99].w, threshold), whose live values are kept: never diffed, never written.',
});
