/**
 * Manifests no looser than the services' own documents: for every kind, source family and source
 * kind, on both variants, each member a manifest may write exists in the create (and update)
 * request schema after our neutral names are mapped (`engine_*` → `clickhouse_*`, a name of
 * another resource → its id), with enums and bounds no wider; each member the document's create
 * requires, the manifest requires. What differs on purpose is in one table below, each with its
 * reason; any other difference fails, and so does a row of the table that no longer differs.
 *
 * How it can fail: the last block widens a bound, adds a value to an enum and drops a required
 * member of the real manifest schemas, and each must be reported.
 *
 * Cross-member rules (an s3 pipe's `url`, a kafka pipe's `scaling.concurrency`) live in the
 * documents' prose, not their schemas: `validate` checks them by `src/schema/pipe-rules.ts`, and
 * `test/e2e/refusals.test.ts` shows each refused at its line.
 */
import { describe, expect, it } from 'vitest';
import { secretRefSchema } from '../../src/schema/config.js';
import { pipeScalingBodySchema } from '../../src/kinds/pipe/wire.js';
import { bornPipeSpecSchema, existingPipeSpecSchema } from '../../src/kinds/pipe/schema.js';
import { alertSpecSchema } from '../../src/kinds/alert/schema.js';
import { connectionSpecSchema } from '../../src/kinds/connection/schema.js';
import { dashboardSpecSchema } from '../../src/kinds/dashboard/schema.js';
import { pipeCdcScalingSpecSchema } from '../../src/kinds/pipe-cdc-scaling/schema.js';
import { savedSearchSpecSchema } from '../../src/kinds/saved-search/schema.js';
import { sourceSpecSchema } from '../../src/kinds/source/schema.js';
import { webhookSpecSchema } from '../../src/kinds/webhook/schema.js';
import type { SOURCE_REQUIRED_MEMBERS } from '../../src/schema/manifest-stack.js';
import { alertKind } from '../../src/kinds/alert/descriptor.js';
import type { Lacked } from '../../src/kinds/shared/lacked.js';
import { PIPE_LACKED_ON_CURRENT } from '../../src/schema/pipe-sources.js';
import { SOURCE_LACKED_ON_CURRENT } from '../../src/kinds/source/model.js';
import { inProfileForm, profileRefusal } from '../../src/kinds/dashboard/profile-form.js';
import { DASHBOARD, type DesiredDashboard } from '../../src/kinds/dashboard/model.js';
import { NameRefs } from '../../src/kinds/shared/refs.js';
import { createAjv } from '../../src/schema/validate.js';
import { SERIES_AGG_FNS, SERIES_TYPES, SERIES_TYPES_NEEDING_AGG_FN } from '../../src/kinds/dashboard/wire.js';
import { loadContract } from './openapi.js';
import { currentConfigSchemas } from '../../src/kinds/dashboard/current-config.js';
import { CONFIG_MEMBERS_LACKED, FILTER_MEMBERS_LACKED } from '../../src/kinds/dashboard/model.js';
import { ALERT_MEMBERS_LACKED } from '../../src/kinds/alert/model.js';
import {
  component,
  documentNode,
  loadDocuments,
  looser,
  requestSchema,
  type Context,
  type Schema,
  type Variant,
} from './manifest-schemas.js';

const loaded = loadDocuments();
if ('missing' in loaded) {
  if (process.env['CI'] === 'true') throw new Error(`contract suite: ${loaded.missing}`);
  console.warn(`contract suite skipped: ${loaded.missing}`);
}
const documents = 'documents' in loaded ? loaded.documents : undefined;

const plain = (schema: unknown): Schema => JSON.parse(JSON.stringify(schema)) as Schema;
const undescribed = (schema: unknown): string => JSON.stringify({ ...(schema as Schema), description: undefined });
const SECRET = undescribed(secretRefSchema);
/** A secret reference, wherever a description of its own is laid over it. */
const isSecret = (schema: Schema): boolean => undescribed(schema) === SECRET;

/** Members of stacksync's own, never sent: how a manifest steers stacksync. */
const OWN = new Set(['ignoreDifferences']);

type Renames = Record<string, Record<string, string | undefined>>;

/** Renames with `members` at `path` never sent: `validate` refuses them for the variant (a kind's table of what its API lacks). */
function refused(renames: Renames, path: string, members: readonly string[]): Renames {
  return {
    ...renames,
    [path]: { ...renames[path], ...Object.fromEntries(members.map((member) => [member, undefined])) },
  };
}

function context(
  variant: Variant,
  renames: Renames = {},
  alsoRequired: Record<string, readonly string[]> = {},
): Context {
  const document = (documents as Record<Variant, Schema>)[variant];
  return {
    document,
    isSecret,
    alsoRequired: (path) => alsoRequired[path] ?? [],
    rename: (path, member) => {
      if (path === '' && OWN.has(member)) return undefined;
      if (path === 'settings' && member.startsWith('engine_')) return `clickhouse_${member.slice('engine_'.length)}`;
      const table = renames[path];
      return table && Object.hasOwn(table, member) ? table[member] : member;
    },
  };
}

/** Renames with the lacked members (not values) a kind refuses on the current profile never sent (`src/kinds/shared/lacked.ts`). */
function withoutLacked(renames: Renames, lacked: readonly Lacked[]): Renames {
  return lacked
    .filter((each) => each.values === undefined)
    .reduce((all, { path }) => {
      const at = path.lastIndexOf('.');
      return refused(all, at < 0 ? '' : path.slice(0, at), [path.slice(at + 1)]);
    }, renames);
}

/** The manifest schema without the lacked values a kind refuses on the current profile. */
function withoutLackedValues(schema: Schema, lacked: readonly Lacked[]): Schema {
  for (const { path, values } of lacked) {
    if (values === undefined) continue;
    const node = path.split('.').reduce<Schema>((at, segment) => {
      const member = (at['properties'] as Record<string, Schema>)[segment.replace('[]', '')] as Schema;
      return segment.endsWith('[]') ? (member['items'] as Schema) : member;
    }, schema);
    node['enum'] = (node['enum'] as unknown[]).filter((value) => !values.includes(value));
  }
  return schema;
}

interface Case {
  variant: Variant;
  name: string;
  manifest: Schema;
  documented: () => Schema;
  context: () => Context;
}

/** A Source kind's manifest as `validate` takes it: the members that kind may write, and those it must. */
function sourceOfKind(kind: keyof typeof SOURCE_REQUIRED_MEMBERS): Schema {
  const schema = plain(sourceSpecSchema);
  const rule = (schema['allOf'] as Schema[]).find(
    (each) => ((each['if'] as Schema)['properties'] as Record<string, Schema>)['kind']?.['const'] === kind,
  ) as Schema;
  const then = rule['then'] as { required: string[]; properties: Record<string, false> };
  const properties = Object.fromEntries(
    Object.entries(schema['properties'] as Record<string, Schema>).filter(
      ([member]) => then.properties[member] === undefined,
    ),
  );
  return {
    ...schema,
    properties: { ...properties, kind: { const: kind } },
    required: [...(schema['required'] as string[]), ...then.required],
  };
}

/**
 * A Dashboard manifest as a current server is sent it: names of sources become `sourceId`
 * (`profile-form.ts`), `ownsAllTiles` steers stacksync. A tile's `series` are not sent as written to a
 * current server: they become the `config` they map onto, which the block "series as sent" below
 * checks by converting every form of series with the kind's own conversion. A tile's `config` is
 * what `validate` takes for a current target: each form's members (`current-config.ts`).
 */
function dashboardAsSent(): Schema {
  return plain(dashboardSpecSchema);
}
/** `series` and `config` of a tile are compared on their own, below. */
const DASHBOARD_RENAMES: Renames = {
  '': { ownsAllTiles: undefined },
  'tiles[]': { series: undefined, config: undefined },
  'filters[]': { source: 'sourceId' },
};

/** The document's tile config alternatives, each a single form (nested `oneOf`s flattened, `allOf`s merged). */
function configForms(document: Schema, schema: Schema): Schema[] {
  const node = documentNode(document, schema);
  return Array.isArray(node['anyOf'])
    ? (node['anyOf'] as Schema[]).flatMap((each) => configForms(document, each))
    : [node];
}

/** The document's form of a config (`builder:line`, `sql:line`): the alternative of that display type, with `configType` or without. */
function configForm(variant: Variant, key: string): Schema {
  const [form, displayType] = key.split(':') as [string, string];
  const tileInput = component(documents![variant], variant === 'managed' ? 'ClickStackTileInput' : 'TileInput');
  const config = (documentNode(documents![variant], tileInput)['properties'] as Record<string, Schema>)[
    'config'
  ] as Schema;
  const found = configForms(documents![variant], config).find((each) => {
    const properties = each['properties'] as Record<string, Schema>;
    return (
      ((properties['displayType']?.['enum'] as unknown[] | undefined) ?? []).includes(displayType) &&
      Object.hasOwn(properties, 'configType') === (form === 'sql')
    );
  });
  if (!found) throw new Error(`the ${variant} document has no tile config ${key}`);
  return found;
}
const DASHBOARD_ALSO_REQUIRED: Record<string, readonly string[]> = { 'filters[]': ['source', 'sourceId'] };

/**
 * An Alert manifest as a current server is sent it: its `source` in the words the kind spells for
 * the current profile (`alert.ts`: `search` → `saved_search`); the dashboard, tile, saved search
 * and channels' webhooks named by name become their ids (`alert/diff.ts`).
 */
function alertAsSent(variant: Variant): Schema {
  const schema = plain(alertSpecSchema);
  const properties = schema['properties'] as Record<string, Schema>;
  // Channel types the variant's API lacks: validate refuses them for its targets.
  const channel = properties['channel'] as Schema;
  const type = (channel['properties'] as Record<string, Schema>)['type'] as Schema;
  type['enum'] = (type['enum'] as string[]).filter(
    (each) => !ALERT_MEMBERS_LACKED[variant].channelTypes.includes(each),
  );
  // The schema takes emailRecipients only with type email (its if/then/else).
  if (!(type['enum'] as string[]).includes('email'))
    delete (channel['properties'] as Record<string, Schema>)['emailRecipients'];
  properties['channels'] = { ...(properties['channels'] as Schema), items: channel };
  const source = properties['source'] as Schema;
  const spell = alertKind.writes?.spell;
  if (!spell) throw new Error('the Alert kind spells no source');
  source['enum'] = [
    ...new Set(
      (source['enum'] as string[]).map(
        (word) => spell({ source: word === 'saved_search' ? 'search' : word }, 'current')['source'],
      ),
    ),
  ];
  return schema;
}
const CHANNEL_RENAMES = { webhook: 'webhookId' };
const ALERT_RENAMES: Renames = {
  '': { dashboard: 'dashboardId', tile: 'tileId', savedSearch: 'savedSearchId' },
  channel: CHANNEL_RENAMES,
  'channels[]': CHANNEL_RENAMES,
};
/** A webhook channel names its webhook by name or id (the schema's else branch): one of them is always sent. */
function alertAlsoRequired(variant: Variant): Record<string, readonly string[]> {
  return variant === 'self-hosted' ? { channel: ['webhook', 'webhookId'], 'channels[]': ['webhook', 'webhookId'] } : {};
}

const SOURCE_COMPONENTS: Record<keyof typeof SOURCE_REQUIRED_MEMBERS, string> = {
  log: 'LogSource',
  trace: 'TraceSource',
  metric: 'MetricSource',
  session: 'SessionSource',
  promql: 'PromqlSource',
};

function cases(): Case[] {
  const all: Case[] = [];
  const bornRenames = withoutLacked({ '': { state: undefined } }, PIPE_LACKED_ON_CURRENT);
  all.push({
    variant: 'managed',
    name: 'Pipe (born in Git): create',
    manifest: withoutLackedValues(plain(bornPipeSpecSchema), PIPE_LACKED_ON_CURRENT),
    documented: () => requestSchema(documents!.managed, 'POST', '/clickpipes'),
    context: () => context('managed', bornRenames),
  });
  const existingRenames: Renames = {
    '': { pipeId: undefined },
    'source.postgres': { tableMappings: 'tableMappingsToAdd' },
  };
  all.push({
    variant: 'managed',
    name: 'Pipe (existing): update',
    manifest: plain(existingPipeSpecSchema),
    documented: () => requestSchema(documents!.managed, 'PATCH', '/clickpipes/{clickPipeId}'),
    context: () => context('managed', existingRenames),
  });
  all.push({
    variant: 'managed',
    name: 'Pipe scaling: PATCH scaling',
    manifest: plain(pipeScalingBodySchema),
    documented: () => requestSchema(documents!.managed, 'PATCH', '/clickpipes/{clickPipeId}/scaling'),
    context: () => context('managed'),
  });
  all.push({
    variant: 'managed',
    name: 'PipeCdcScaling: update',
    manifest: plain(pipeCdcScalingSpecSchema),
    documented: () => requestSchema(documents!.managed, 'PATCH', '/clickpipesCdcScaling'),
    context: () => context('managed'),
  });
  for (const variant of ['managed', 'self-hosted'] as const) {
    const prefix = variant === 'managed' ? '/clickstack' : '/api/v2';
    const named = (name: string): Schema =>
      component(documents![variant], variant === 'managed' ? `ClickStack${name}` : name);
    for (const kind of Object.keys(SOURCE_COMPONENTS) as (keyof typeof SOURCE_COMPONENTS)[]) {
      all.push({
        variant,
        name: `Source ${kind}: create`,
        manifest: sourceOfKind(kind),
        documented: () => named(SOURCE_COMPONENTS[kind]),
        context: () =>
          context(
            variant,
            refused({ '': { connectionId: 'connection' } }, '', SOURCE_LACKED_ON_CURRENT[variant][kind] ?? []),
            { '': ['connection', 'connectionId'] },
          ),
      });
    }
    all.push({
      variant,
      name: 'Webhook: create',
      manifest: plain(webhookSpecSchema),
      documented: () => requestSchema(documents![variant], 'POST', `${prefix}/webhooks`),
      context: () => context(variant),
    });
    all.push({
      variant,
      name: 'SavedSearch: create',
      manifest: plain(savedSearchSpecSchema),
      documented: () => requestSchema(documents![variant], 'POST', `${prefix}/saved-searches`),
      context: () => context(variant, { '': { source: 'sourceId' } }, { '': ['source', 'sourceId'] }),
    });
  }
  for (const variant of ['managed', 'self-hosted'] as const) {
    const prefix = variant === 'managed' ? '/clickstack' : '/api/v2';
    for (const [verb, method, path] of [
      ['create', 'POST', `${prefix}/dashboards`],
      [
        'update',
        'PUT',
        variant === 'managed' ? '/clickstack/dashboards/{clickStackDashboardId}' : '/api/v2/dashboards/{id}',
      ],
    ] as const) {
      const renames = refused(DASHBOARD_RENAMES, 'filters[]', FILTER_MEMBERS_LACKED[variant]);
      all.push({
        variant,
        name: `Dashboard: ${verb}`,
        manifest: dashboardAsSent(),
        documented: () => requestSchema(documents![variant], method, path),
        context: () => context(variant, renames, DASHBOARD_ALSO_REQUIRED),
      });
    }
    for (const [verb, method, path] of [
      ['create', 'POST', `${prefix}/alerts`],
      ['update', 'PUT', variant === 'managed' ? '/clickstack/alerts/{clickStackAlertId}' : '/api/v2/alerts/{id}'],
    ] as const) {
      const lacked = ALERT_MEMBERS_LACKED[variant];
      const renames = refused(
        refused(refused(ALERT_RENAMES, '', lacked.alert), 'channel', lacked.channel),
        'channels[]',
        lacked.channel,
      );
      all.push({
        variant,
        name: `Alert: ${verb}`,
        manifest: alertAsSent(variant),
        documented: () => requestSchema(documents![variant], method, path),
        context: () => context(variant, renames, alertAlsoRequired(variant)),
      });
    }
  }
  for (const variant of ['managed', 'self-hosted'] as const) {
    for (const [key, schema] of Object.entries(currentConfigSchemas())) {
      const renames = refused({ '': { source: 'sourceId' } }, '', CONFIG_MEMBERS_LACKED[variant]);
      all.push({
        variant,
        name: `Dashboard tile config ${key}: create`,
        manifest: plain(schema),
        documented: () => configForm(variant, key),
        context: () => context(variant, renames),
      });
    }
  }
  all.push({
    variant: 'self-hosted',
    name: 'Connection: create',
    manifest: plain(connectionSpecSchema),
    documented: () => requestSchema(documents!['self-hosted'], 'POST', '/api/v2/connections'),
    context: () => context('self-hosted'),
  });
  return all;
}

/**
 * Differences on purpose, each with its reason: `variant case: difference` (the difference as the
 * comparison words it). A difference not here fails the suite; a row here that no longer differs
 * fails it too.
 */
const ON_PURPOSE: Record<string, string> = {};

function onPurpose(variants: readonly Variant[], name: string, differences: readonly string[], reason: string): void {
  for (const variant of variants)
    for (const difference of differences) ON_PURPOSE[`${variant} ${name}: ${difference}`] = reason;
}

const BOTH = ['managed', 'self-hosted'] as const;
const BORN = 'Pipe (born in Git): create';

onPurpose(
  ['managed'],
  BORN,
  ["source.pubsub.serviceAccountKey: required by the document's create, optional in the manifest"],
  'Needed with SERVICE_ACCOUNT authentication, the one a target of the current profile takes (workload identity is refused there, src/kinds/pipe/manifests.ts): src/schema/pipe-rules.ts requires it exactly then, at its line.',
);
onPurpose(
  ['managed'],
  'Pipe (existing): update',
  [
    'source.kafka.authentication: any value where the document allows only PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, IAM_ROLE, IAM_USER, MUTUAL_TLS',
  ],
  "A manifest of an existing pipe holds the seed's Update pipe members, whose authentication is any text; the service refuses a wrong one, which the pipe already has.",
);
onPurpose(
  ['managed'],
  'Pipe (existing): update',
  ['source.kafka.disableTls: the document has no such member', 'source.kafka.tlsHost: the document has no such member'],
  "Beyond the seed's Update pipe list: validate warns at their line that they are sent as written and that a server following the seed refuses them.",
);
onPurpose(
  BOTH,
  'Source trace: create',
  ["durationPrecision: required by the document's create, optional in the manifest"],
  'The service fills 3 when it is left out (a default of its schema, which the generated documents render as required); docs/manifests/source.md says so.',
);
onPurpose(
  ['self-hosted'],
  'Source log: create',
  ['materializedViews[].minGranularity: pattern none where the document has ^\\d+(s|m|h|d)$'],
  "The server also takes the SQL interval form (`15 minute`) and answers it short (`15m`), as the emulator's source conformance tests hold.",
);
onPurpose(
  ['self-hosted'],
  'Source trace: create',
  ['materializedViews[].minGranularity: pattern none where the document has ^\\d+(s|m|h|d)$'],
  'As for a log source: the SQL interval form is taken too.',
);
onPurpose(
  BOTH,
  'Webhook: create',
  ["url: required by the document's create, optional in the manifest"],
  "Left out of an existing webhook's manifest, the live URL is kept; a plan that would create one without it is an error (the kind's createProblem).",
);
onPurpose(
  BOTH,
  'SavedSearch: create',
  [
    "filters[].condition: required by the document's create, optional in the manifest",
    'filters[].left: the document has no such member',
    'filters[].operator: the document has no such member',
    'filters[].right: the document has no such member',
    'filters[].type: "lucene" is not among the document\'s sql',
    'filters[].type: "sql_ast" is not among the document\'s sql',
  ],
  "HyperDX's saved-search schema also takes lucene conditions and sql_ast filters (its v2 saved-search router), which the generated documents omit.",
);

const DASHBOARDS = ['Dashboard: create', 'Dashboard: update'];
for (const name of DASHBOARDS) {
  onPurpose(
    BOTH,
    name,
    ["tiles: required by the document's create, optional in the manifest"],
    'Filled by stacksync: a dashboard whose manifest gives no tiles is sent an empty list (docs/manifests/dashboard.md: default none).',
  );
  onPurpose(
    BOTH,
    name,
    ["filters[].type: required by the document's create, optional in the manifest"],
    'Filled by stacksync: always QUERY_EXPRESSION, the one type (docs/manifests/dashboard.md#filters).',
  );
}
onPurpose(
  BOTH,
  'Dashboard: update',
  ["filters[].id: required by the document's create, optional in the manifest"],
  'Filled by stacksync: an update gives every filter the live id of its name, or one made for it (src/kinds/dashboard/diff.ts, docs/manifests/dashboard.md#filters).',
);
if (documents) {
  for (const variant of BOTH) {
    for (const key of Object.keys(currentConfigSchemas())) {
      const required = ((configForm(variant, key)['required'] as string[] | undefined) ?? []).map((member) =>
        member === 'sourceId' ? 'source' : member,
      );
      onPurpose(
        [variant],
        `Dashboard tile config ${key}: create`,
        required.map((member) => `${member}: required by the document's create, optional in the manifest`),
        "A tile's config is laid over its live one, whose members it leaves out are kept (docs/manifests/dashboard.md#config-on-a-current-target); a new tile's whole config is asked of the service's dashboards/validate by plan, before anything is written.",
      );
    }
  }
}

describe.skipIf(documents === undefined)("manifests are no looser than the services' documents", () => {
  const found = new Map<string, string[]>();
  for (const each of documents ? cases() : []) {
    it(`${each.variant}: ${each.name}`, () => {
      const differences = looser(each.manifest, each.documented(), '', each.context()).map(
        (line) => `${each.variant} ${each.name}: ${line}`,
      );
      found.set(`${each.variant} ${each.name}`, differences);
      expect(differences.filter((line) => !Object.hasOwn(ON_PURPOSE, line))).toEqual([]);
    });
  }

  it('every row of the table of differences on purpose still differs', () => {
    const all = new Set([...found.values()].flat());
    expect(Object.keys(ON_PURPOSE).filter((row) => !all.has(row))).toEqual([]);
  });
});

describe.skipIf(documents === undefined)('the comparison fails a manifest looser than the document', () => {
  const born = (): Schema => plain(bornPipeSpecSchema);
  const scaling = (schema: Schema): Schema => (schema['properties'] as Record<string, Schema>)['scaling'] as Schema;
  const kafka = (schema: Schema): Schema =>
    (((schema['properties'] as Record<string, Schema>)['source'] as Schema)['properties'] as Record<string, Schema>)[
      'kafka'
    ] as Schema;
  const compare = (schema: Schema): string[] =>
    looser(
      schema,
      requestSchema(documents!.managed, 'POST', '/clickpipes'),
      '',
      context('managed', { '': { state: undefined } }),
    );
  const baseline = (): Set<string> => new Set(compare(born()));

  it.each([
    {
      name: 'a bound wider than the document (replicas up to 41)',
      mutate: (schema: Schema) =>
        Object.assign((scaling(schema)['properties'] as Record<string, Schema>)['replicas'] as Schema, { maximum: 41 }),
      expected: 'scaling.replicas: maximum 41 where the document has 40',
    },
    {
      name: 'an enum wider than the document (a kafka flavour it lacks)',
      mutate: (schema: Schema) =>
        (((kafka(schema)['properties'] as Record<string, Schema>)['type'] as Schema)['enum'] = [
          'kafka',
          'nosuchkafka',
        ]),
      expected: 'source.kafka.type: "nosuchkafka" is not among the document\'s',
    },
    {
      name: 'a member the document lacks',
      mutate: (schema: Schema) =>
        Object.assign(scaling(schema)['properties'] as Record<string, Schema>, { burst: { type: 'integer' } }),
      expected: 'scaling.burst: the document has no such member',
    },
  ])('$name', ({ mutate, expected }) => {
    const schema = born();
    mutate(schema);
    const before = baseline();
    const added = compare(schema).filter((line) => !before.has(line));
    expect(added.some((line) => line.startsWith(expected))).toBe(true);
  });

  it('a member the document requires that the manifest leaves optional (a log source without defaultTableSelectExpression)', () => {
    const schema = sourceOfKind('log');
    schema['required'] = (schema['required'] as string[]).filter((member) => member !== 'defaultTableSelectExpression');
    const differences = looser(
      schema,
      component(documents!.managed, 'ClickStackLogSource'),
      '',
      context('managed', { '': { connectionId: 'connection' } }, { '': ['connection', 'connectionId'] }),
    );
    expect(differences).toContain(
      "defaultTableSelectExpression: required by the document's create, optional in the manifest",
    );
  });

  it.each(BOTH)(
    '%s: a link-out alternative that leaves a required member optional (an external onClick without urlTemplate, a target without its id)',
    (variant) => {
      const table = plain(currentConfigSchemas()['builder:table']);
      const alternatives = ((table['properties'] as Record<string, Schema>)['onClick'] as Schema)['anyOf'] as Schema[];
      const external = alternatives.find(
        (each) => ((each['properties'] as Record<string, Schema>)['type'] as Schema)['const'] === 'external',
      ) as Schema;
      external['required'] = ['type'];
      const search = alternatives.find(
        (each) => ((each['properties'] as Record<string, Schema>)['type'] as Schema)['const'] === 'search',
      ) as Schema;
      const byId = (
        ((search['properties'] as Record<string, Schema>)['target'] as Schema)['anyOf'] as Schema[]
      )[0] as Schema;
      byId['required'] = ['mode'];
      const differences = looser(
        table,
        configForm(variant, 'builder:table'),
        '',
        context(variant, refused({ '': { source: 'sourceId' } }, '', CONFIG_MEMBERS_LACKED[variant])),
      );
      expect(differences).toContain("onClick.urlTemplate: required by the document's create, optional in the manifest");
      expect(differences).toContain("onClick.target.id: required by the document's create, optional in the manifest");
    },
  );
});

/**
 * A `series` tile is not sent as written to a current target: the kind converts it to the
 * `config` it maps onto (`src/kinds/dashboard/profile-form.ts`, `convert.ts`). So its series are held to
 * the documents as sent: every form a manifest may write — each series type with each
 * aggregation, and each free-text member given a value outside the documents' enums — is either
 * refused by `validate` for a current target (the manifest schema, or the kind's check for the
 * target) or converted into a create body the document's request schema takes.
 *
 * How it can fail: the last case converts a series whose aggregation the conversion lets through
 * unchecked, and the document refuses the body.
 */
describe.skipIf(documents === undefined)('series tiles as sent to a current target', () => {
  const contract = loadContract();
  const spec = createAjv().compile(plain(dashboardSpecSchema));
  const SOURCE_ID = '0123456789abcdef01234567';
  const refs = new NameRefs(() => ({ id: SOURCE_ID }));
  const PATHS: Record<Variant, string> = {
    managed: '/v1/organizations/o/services/s/stack/dashboards',
    'self-hosted': '/api/v2/dashboards',
  };

  /** What becomes of a series: refused by validate (why), or the document's problems with the body sent. */
  function fate(series: Record<string, unknown>, variant: Variant): { refused: string } | { problems: string[] } {
    const tile = { name: 't', x: 0, y: 0, w: 6, h: 4, series: [series] };
    if (!spec({ name: 'd', tiles: [tile] })) return { refused: JSON.stringify(spec.errors?.[0]?.instancePath) };
    const dashboard = { kind: DASHBOARD, name: 'd', tiles: [tile] } as unknown as DesiredDashboard;
    const problem = profileRefusal(dashboard, 'current');
    if (problem) return { refused: problem.problem };
    const spoken = inProfileForm(dashboard, 'current', refs);
    if ('problem' in spoken) return { refused: spoken.problem };
    const lookup = contract!.find('POST', PATHS[variant]);
    if (!lookup.found) throw new Error(`no create of dashboards in the ${variant} document`);
    const body = { name: 'd', tiles: spoken.tiles, ...spoken.members };
    return {
      problems: contract!.validateRequest(lookup.operation, body).map((problem) => `${problem.at}: ${problem.message}`),
    };
  }

  /** Every form of series a manifest may write, with a value outside the documents' enums for each free-text member. */
  function forms(): Record<string, unknown>[] {
    const all: Record<string, unknown>[] = [];
    for (const type of SERIES_TYPES) {
      const base = {
        type,
        source: 'logs',
        field: 'Duration',
        where: '',
        groupBy: ['ServiceName'],
        fields: ['Body'],
        content: 'text',
      };
      const aggFns: (string | undefined)[] = (SERIES_TYPES_NEEDING_AGG_FN as readonly string[]).includes(type)
        ? [...SERIES_AGG_FNS]
        : [undefined];
      for (const aggFn of aggFns)
        all.push({ ...base, ...(aggFn ? { aggFn } : {}), ...(aggFn === 'quantile' ? { level: 0.95 } : {}) });
      const aggFn = aggFns[0] === undefined ? {} : { aggFn: 'avg' };
      for (const [member, value] of Object.entries({
        whereLanguage: 'nosuch',
        metricDataType: 'nosuch',
        displayType: 'nosuch',
        sortOrder: 'nosuch',
        numberFormat: { output: 'nosuch' },
        level: 0.5,
      })) {
        all.push({ ...base, ...aggFn, [member]: value });
      }
    }
    return all;
  }

  it.each(['managed', 'self-hosted'] as const)(
    '%s: every series a current target is sent, the document takes',
    (variant) => {
      const sent = forms().flatMap((series) => {
        const outcome = fate(series, variant);
        return 'problems' in outcome && outcome.problems.length > 0
          ? [`${JSON.stringify(series)}: ${outcome.problems.join('; ')}`]
          : [];
      });
      expect(sent).toEqual([]);
    },
  );

  it('a series the document refuses, converted unchecked, fails the check', () => {
    const lookup = contract!.find('POST', PATHS.managed);
    if (!lookup.found) throw new Error('no create of dashboards in the managed document');
    const body = {
      name: 'd',
      tiles: [
        {
          name: 't',
          x: 0,
          y: 0,
          w: 6,
          h: 4,
          config: { displayType: 'line', sourceId: SOURCE_ID, select: [{ aggFn: 'increase', valueExpression: 'x' }] },
        },
      ],
    };
    expect(contract!.validateRequest(lookup.operation, body)).not.toEqual([]);
    expect(fate({ type: 'time', source: 'logs', aggFn: 'increase', field: 'x' }, 'managed')).toHaveProperty('refused');
  });
});
