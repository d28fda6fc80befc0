/**
 * A table tile's `onClick` (its drill-down, "link-out"), as both services' documents give it
 * (docs/manifests/dashboard.md#drill-down-onclick): one of three link-outs told apart by `type`
 * (`search`, `dashboard`, `external`), a search or dashboard link-out naming its target by id or
 * by a name template (told apart by `mode`). Each alternative requires what the documents
 * require; lengths are HyperDX's (the managed document sets none, so they are no looser there).
 *
 * The schema is written as `anyOf` alternatives, each holding its discriminator as a `const`, so
 * it reads as the documents' `oneOf`; {@link chosenAlternatives} picks the one a value's
 * discriminator names before it is checked, so an error names the member that alternative lacks
 * rather than every alternative's complaint.
 */
import { OBJECT_ID_PATTERN } from '../../schema/api-current.js';
import { CURRENT_WHERE_LANGUAGES } from './wire.js';
import type { JsonSchema } from '../../schema/build.js';
import { isArrayOf, isRecord, recordOr } from '../../support/json.js';

type Schema = Record<string, unknown>;

const template = (description: string): Schema => ({ type: 'string', minLength: 1, description });

const TARGET: Schema = {
  description:
    'What the link-out opens: by id (mode: id), or by a name rendered from the clicked row (mode: template).',
  anyOf: [
    {
      type: 'object',
      required: ['mode', 'id'],
      properties: {
        mode: { const: 'id' },
        id: {
          type: 'string',
          pattern: OBJECT_ID_PATTERN,
          description: 'Live id of the source (type search) or dashboard (type dashboard); it must exist.',
        },
      },
    },
    {
      type: 'object',
      required: ['mode', 'template'],
      properties: {
        mode: { const: 'template' },
        template: template('Name template rendered against the clicked row, e.g. {{ServiceName}}.'),
      },
    },
  ],
};

const FILTER: Schema = {
  type: 'object',
  required: ['kind', 'expression', 'template'],
  properties: {
    kind: { const: 'expressionTemplate' },
    expression: template('The column or expression to filter the destination by.'),
    template: template('Value template rendered against the clicked row.'),
  },
};

const inApp = (type: 'search' | 'dashboard'): Schema => ({
  type: 'object',
  required: ['type', 'target'],
  properties: {
    type: { const: type },
    target: TARGET,
    whereTemplate: { type: 'string', description: 'WHERE clause template applied to the destination.' },
    whereLanguage: { enum: [...CURRENT_WHERE_LANGUAGES] },
    filters: { type: 'array', items: FILTER },
  },
});

/** `onClick` as a manifest may write it. */
export const ON_CLICK_SCHEMA: JsonSchema = {
  description:
    "A table's drill-down: type search or dashboard (with target), or external (with urlTemplate). Written whole; sent as written.",
  anyOf: [
    inApp('search'),
    inApp('dashboard'),
    {
      type: 'object',
      required: ['type', 'urlTemplate'],
      properties: {
        type: { const: 'external' },
        urlTemplate: template('Absolute http(s) URL template rendered against the clicked row.'),
      },
    },
  ],
};

/** The member every alternative holds as a `const` (`type`, `mode`), if there is one. */
function discriminatorOf(alternatives: readonly Schema[]): string | undefined {
  const [first, ...rest] = alternatives.map((alternative) =>
    Object.entries(recordOr(alternative['properties']) ?? {})
      .filter(([, member]) => isRecord(member) && Object.hasOwn(member, 'const'))
      .map(([name]) => name),
  );
  return first?.find((name) => rest.every((names) => names.includes(name)));
}

/**
 * `schema` with each discriminated `anyOf` replaced by the alternative `value` names, and the
 * choices made (`onClick-type-search`), which name the result. A value that names none is held to
 * the discriminator alone: its absence or its value is the error.
 */
export function chosenAlternatives(schema: JsonSchema, value: unknown): { schema: JsonSchema; choices: string[] } {
  const choices: string[] = [];
  const walk = (node: Schema, at: unknown, path: string[]): Schema => {
    const alternatives = node['anyOf'];
    if (isArrayOf(alternatives, isRecord)) {
      const by = discriminatorOf(alternatives);
      if (by !== undefined) {
        const { anyOf: _anyOf, ...rest } = node;
        const constOf = (alternative: Schema): unknown =>
          recordOr(recordOr(alternative['properties'])?.[by])?.['const'];
        const picked = isRecord(at) ? alternatives.find((alternative) => constOf(alternative) === at[by]) : undefined;
        choices.push([...path, by, picked === undefined ? 'none' : String(constOf(picked))].join('-'));
        if (picked === undefined)
          return { ...rest, type: 'object', required: [by], properties: { [by]: { enum: alternatives.map(constOf) } } };
        return walk({ ...rest, ...picked }, at, path);
      }
    }
    const properties = recordOr(node['properties']);
    if (properties === undefined || !isRecord(at)) return node;
    return {
      ...node,
      properties: Object.fromEntries(
        Object.entries(properties).map(([name, member]) => [
          name,
          isRecord(member) && Object.hasOwn(at, name) ? walk(member, at[name], [...path, name]) : member,
        ]),
      ),
    };
  };
  return { schema: walk(schema, value, []), choices };
}
