/**
 * The conformance harness of the current profile: cases derived from the real services' own
 * sources (the self-hosted server's integration tests, routers and schemas; the managed OpenAPI and
 * the Terraform provider's client), each naming the file it comes from, run over loopback HTTP on
 * both variants (or the one a case is about) against a fresh emulator per case, as the real
 * integration tests clear their database between tests.
 */
import { afterEach, describe, it } from 'vitest';
import {
  defaultSeed,
  type CurrentEmulatorData,
  type RunningEmulator,
  type Seed,
  type SeedStack,
} from '../../src/emulator/index.js';
import { call, IDS, start } from './helpers.js';
import { CURRENT, stackClient, type StackClient, type StackIds, type StackResult } from './current-helpers.js';

type Variant = 'managed' | 'self-hosted';

/** Where cases come from, as the test names cite them. */
const HYPERDX = 'hyperdxio/hyperdx packages/api/src';
export const FROM = {
  webhooksTest: `${HYPERDX}/routers/external-api/__tests__/webhooks.int.test.ts`,
  webhooksRouter: `${HYPERDX}/routers/external-api/v2/webhooks.ts`,
  webhookController: `${HYPERDX}/controllers/webhook.ts`,
  sourcesCrudTest: `${HYPERDX}/routers/external-api/__tests__/sources-crud.int.test.ts`,
  sourcesTest: `${HYPERDX}/routers/external-api/__tests__/sources.int.test.ts`,
  sourcesRouter: `${HYPERDX}/routers/external-api/v2/sources.ts`,
  sourceController: `${HYPERDX}/controllers/sources.ts`,
  connectionsTest: `${HYPERDX}/routers/external-api/__tests__/connections.int.test.ts`,
  connectionsRouter: `${HYPERDX}/routers/external-api/v2/connections.ts`,
  savedSearchesTest: `${HYPERDX}/routers/external-api/__tests__/savedSearches-crud.int.test.ts`,
  savedSearchesRouter: `${HYPERDX}/routers/external-api/v2/savedSearches.ts`,
  dashboardsTest: `${HYPERDX}/routers/external-api/__tests__/dashboards.int.test.ts`,
  dashboardsRouter: `${HYPERDX}/routers/external-api/v2/dashboards.ts`,
  dashboardsUtils: `${HYPERDX}/routers/external-api/v2/utils/dashboards.ts`,
  dashboardsUtilsTest: `${HYPERDX}/routers/external-api/v2/utils/__tests__/dashboards.test.ts`,
  dashboardValidation: 'hyperdxio/hyperdx packages/common-utils/src/dashboardValidation.ts',
  zod: `${HYPERDX}/utils/zod.ts`,
  commonTypes: 'hyperdxio/hyperdx packages/common-utils/src/types.ts',
  v2Index: `${HYPERDX}/routers/external-api/v2/index.ts`,
  openapi: 'hyperdxio/hyperdx packages/api/openapi.json',
  providerTileIds: 'ClickHouse/terraform-provider-clickhouse internal/service/clickstack/dashboard_tile_ids.go',
  providerConnection: 'ClickHouse/terraform-provider-clickhouse internal/service/clickstack/connection_resource.go',
  providerWebhookClient: 'ClickHouse/terraform-provider-clickhouse internal/service/clickstack/client/webhook.go',
  providerDashboardClient: 'ClickHouse/terraform-provider-clickhouse internal/service/clickstack/client/dashboard.go',
  managedOpenApi: 'ClickHouse Cloud OpenAPI 3.1.2, ClickStack operations',
} as const;

/** What a case gets: a client of its variant, the seeded ids, and views of what the emulator stored. */
export interface CaseContext {
  variant: Variant;
  client: StackClient;
  ids: StackIds;
  emulator: RunningEmulator;
  /** The workspace the client reaches, as stored (the dump: secrets as fingerprints). */
  stored(): Promise<CurrentEmulatorData['teams'][number]>;
  /** The fingerprint the emulator keeps for a write-only value. */
  fingerprint(value: string): string;
  /** A client of the other workspace the seed holds (another team, another service of the organization), and its ids. */
  other: StackClient;
  otherIds: OtherIds;
}

export interface Case {
  name: string;
  /** The real source the case is derived from. */
  from: string;
  /** The variant the case is about; both when absent. */
  only?: Variant;
  /** What the case's workspaces hold besides the default seed's sources and connections. */
  seed?: (ids: StackIds) => SeedStack;
  run(t: CaseContext): Promise<void>;
}

/** Ids of the second workspace every conformance seed holds, by the variant that reaches it. */
export const OTHER = {
  team: { id: 'team-2', token: 'other-token' },
  serviceId: '9c1e2b7e-3a4d-4c5b-8e6f-1a2b3c4d5e02',
  'self-hosted': {
    webhook: '66f0000000000000000b0099',
    source: '66f0000000000000000a0099',
    connection: '66f0000000000000000c0099',
    savedSearch: '66f0000000000000000d0099',
  },
  managed: {
    webhook: '66f0000000000000000b0098',
    source: '66f0000000000000000a0098',
    connection: '66f0000000000000000c0098',
    savedSearch: '66f0000000000000000d0098',
  },
} as const;

export type OtherIds = (typeof OTHER)[Variant];

/** The other workspace: a source on its own connection, a webhook and a saved search the case's client must not reach. */
function otherStack(ids: OtherIds): SeedStack {
  return {
    sources: [{ id: ids.source, name: 'logs', kind: 'log', connection: ids.connection }],
    webhooks: [
      {
        id: ids.webhook,
        name: 'Other Team Webhook',
        service: 'slack',
        url: 'https://hooks.slack.com/services/T0/B0/X',
      },
    ],
    savedSearches: [{ id: ids.savedSearch, name: 'Other Team Search', sourceId: ids.source }],
  };
}

/** The default current seed without its webhook and saved search, the case's own stack laid over both workspaces, and the other workspace. */
function seedFor(own: Case['seed']): Seed {
  const seed = defaultSeed('current');
  const service = seed.organizations![0]!.services![0]!;
  const team = seed.teams![0]!;
  for (const [workspace, ids] of [
    [service, stackClientIds('managed')],
    [team, stackClientIds('self-hosted')],
  ] as const) {
    Object.assign(workspace, { webhooks: [], savedSearches: [] }, own?.(ids));
  }
  seed.organizations![0]!.services!.push({ id: OTHER.serviceId, ...otherStack(OTHER.managed) });
  seed.teams!.push({ id: OTHER.team.id, tokens: [OTHER.team.token], ...otherStack(OTHER['self-hosted']) });
  return seed;
}

const stackClientIds = (variant: Variant): StackIds => (variant === 'managed' ? CURRENT.service : CURRENT.team);

/** A client of the other workspace: the other team's token, or the organization's key on the other service. */
function otherClient(emulator: RunningEmulator, variant: Variant): StackClient {
  const own = stackClient(emulator, variant);
  if (variant === 'self-hosted')
    return {
      ...own,
      request: (method, resource, body) => own.request(method, resource, body, `Bearer ${OTHER.team.token}`),
    };
  const prefix = `/v1/organizations/${IDS.organizationId}/services/${OTHER.serviceId}/stack/`;
  return {
    ...own,
    async request(method, resource, body) {
      const raw = await call(emulator.url, method, `${prefix}${resource}`, {
        auth: `Basic ${Buffer.from(`${IDS.keyId}:${IDS.keySecret}`).toString('base64')}`,
        ...(body !== undefined && { body }),
      });
      return { status: raw.status, data: raw.json?.result, error: raw.json?.error, raw };
    },
  };
}

/** Registers the cases on both variants: one fresh emulator per case. */
export function conformance(title: string, cases: readonly Case[]): void {
  describe.each(['self-hosted', 'managed'] as const)(`${title} (%s, current profile)`, (variant) => {
    let emulator: RunningEmulator | undefined;
    afterEach(async () => {
      await emulator?.close();
      emulator = undefined;
    });
    for (const row of cases) {
      const test = row.only && row.only !== variant ? it.skip : it;
      test(caseTitle(row), async () => {
        ({ emulator } = await start({ profile: 'current', seed: seedFor(row.seed) }));
        await row.run(caseContext(emulator, variant));
      });
    }
  });
}

function caseContext(emulator: RunningEmulator, variant: Variant): CaseContext {
  const client = stackClient(emulator, variant);
  return {
    variant,
    client,
    ids: client.ids,
    emulator,
    other: otherClient(emulator, variant),
    otherIds: OTHER[variant],
    stored: async () => {
      const dump = (await call(emulator.url, 'GET', '/_emulator/dump')).json as CurrentEmulatorData;
      return variant === 'managed'
        ? (dump.organizations[0]!.services[0]! as unknown as CurrentEmulatorData['teams'][number])
        : dump.teams[0]!;
    },
    fingerprint: (value) => `sha256:${emulator.credentialHash(JSON.stringify(value))}`,
  };
}

function caseTitle(row: Case): string {
  return `${row.from} › ${row.name}`;
}

/** The message of an error answer as a variant writes it: managed `CODE: detail`, self-hosted the detail. */
export function errorOf(t: CaseContext, response: StackResult): string {
  return t.variant === 'managed'
    ? String(response.error ?? '').replace(/^[A-Z_]+: /, '')
    : String(response.error ?? '');
}

/** The self-hosted server's 400 for its body schema prefixes the issues; managed writes them bare after its code. */
export function bodyIssues(t: CaseContext, detail: string): string {
  return t.variant === 'self-hosted' ? `Body validation failed: ${detail}` : detail;
}
