/**
 * The manifest of a Source: its spec, the members of the real create body
 * (`wire.ts` beside it) with other kinds' ids also taken by name and credentials as
 * secret references, in the envelope.
 */
import { Type, type TSchema } from 'typebox';
import { described, object, oneOf, optional } from '../../schema/build.js';
import { CURRENT_SOURCE_WRITES, type CurrentSourceKind } from './wire.js';
import { CURRENT_SOURCE_KINDS } from '../../schema/api-current.js';
import { ignoreDifferencesSchema } from '../../schema/manifest-parts.js';
import { documentSchema } from '../../schema/manifest.js';
import { nameOf, objectId, oneOfPair, required, SOURCE_REQUIRED_MEMBERS } from '../../schema/manifest-stack.js';

/** The Source kind's name. */
export const SOURCE = 'Source';

/**
 * Every member of every kind's source body, each optional, the looser type where kinds differ;
 * each kind's rules (below) say which it requires and which it takes.
 */
function sourceMembers(): Record<string, TSchema> {
  const members: Record<string, TSchema> = {};
  const ordered = [CURRENT_SOURCE_WRITES.metric, ...Object.values(CURRENT_SOURCE_WRITES)];
  for (const schema of ordered) {
    for (const [member, property] of Object.entries(schema.properties)) {
      if (member in members || ['name', 'kind', 'connection'].includes(member)) continue;
      members[member] = Type.Optional(property);
    }
  }
  return members;
}

/**
 * Per kind: the members its create requires, and no member of another kind's body (the managed
 * gateway refuses a member it does not know; each is an error at its line, "when kind is log").
 */
function sourceKindRules(members: Record<string, TSchema>): Record<string, unknown>[] {
  const kinds = Object.keys(SOURCE_REQUIRED_MEMBERS).filter((kind): kind is CurrentSourceKind =>
    Object.hasOwn(CURRENT_SOURCE_WRITES, kind),
  );
  return kinds.map((kind) => {
    const own = new Set(Object.keys(CURRENT_SOURCE_WRITES[kind].properties));
    const foreign = Object.keys(members).filter((member) => !own.has(member));
    return {
      if: { properties: { kind: { const: kind } }, required: ['kind'] },
      then: {
        required: [...SOURCE_REQUIRED_MEMBERS[kind]],
        properties: Object.fromEntries(foreign.map((member) => [member, false])),
      },
    };
  });
}

const SOURCE_MEMBERS = sourceMembers();

export const sourceSpecSchema = object(
  {
    name: described(required, 'Source name in the API; what live sources are matched by.'),
    kind: oneOf(CURRENT_SOURCE_KINDS, {
      description:
        'log, trace, metric, session or promql: which members the source needs (log: from, ' +
        'defaultTableSelectExpression, timestampValueExpression; see docs/manifests/source.md).',
    }),
    ...optional({
      connection: nameOf('Connection', 'connection'),
      connectionId: described(objectId, 'Id of the connection (instead of connection).'),
    }),
    ...SOURCE_MEMBERS,
    ignoreDifferences: Type.Optional(ignoreDifferencesSchema),
  },
  {
    description:
      'A source: where a kind of data lives and how to read it; each kind names the members its create requires.',
    ...oneOfPair('connection', 'connectionId'),
    allOf: sourceKindRules(SOURCE_MEMBERS),
  },
);

/** What the kind is, as its published schema says. */
export const SOURCE_DESCRIPTION = 'A source of observability data (logs, traces, metrics, sessions) on a connection.';

/** The whole manifest document: the envelope with this spec. */
export const sourceDocumentSchema = documentSchema(SOURCE, sourceSpecSchema, SOURCE_DESCRIPTION);
