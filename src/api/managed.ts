/**
 * The managed adapter: HTTP Basic, `/v1/organizations/{org}/services/{svc}/…`, and the
 * `{status, requestId, result}` envelope. Lists are not paginated, so a full read is three calls.
 */
import type { DataSource, LiveAlert, LivePipe, LiveState, PipePatch, Webhook } from '../model/resources.js';
import type { ApiProfile } from '../schema/enums.js';
import { listOf, readEach, toDataSource, toLiveAlert, toLivePipe, toWebhook, unwrapManaged, type ReadList } from './normalize.js';
import { MANAGED_ROUTES } from './routes.js';
import { StackAdapter, unreadableIn } from './stack.js';
import type { Transport } from './transport.js';

export class ManagedAdapter extends StackAdapter {
  readonly variant = 'managed' as const;
  protected readonly payloadMember = 'result';

  constructor(transport: Transport, ids: { organizationId: string; serviceId: string }, onClose: () => Promise<void>, profile: ApiProfile) {
    super(transport, MANAGED_ROUTES, { organizationId: ids.organizationId, serviceId: ids.serviceId }, onClose, profile);
  }

  protected unwrap(body: unknown): unknown {
    return unwrapManaged(body);
  }

  async readLiveState(): Promise<LiveState> {
    const [pipes, dashboards, alerts] = await Promise.all([this.readPipes(), this.readDashboards(), this.readAlerts()]);
    return { pipes: pipes.items, dashboards: dashboards.items, alerts: alerts.items, unreadable: unreadableIn(pipes, dashboards, alerts) };
  }

  async listPipes(): Promise<LivePipe[]> {
    return (await this.readPipes()).items;
  }

  private async readPipes(): Promise<ReadList<LivePipe>> {
    return this.call({ method: 'GET', ...this.at(MANAGED_ROUTES.pipes) }, (data, path) => readEach('Pipe', data, path, toLivePipe));
  }

  async updatePipe(id: string, patch: PipePatch): Promise<LivePipe> {
    const exchange = { method: 'PATCH' as const, ...this.at(MANAGED_ROUTES.pipe, id), body: patch, notRepeatable: changesMappings(patch) };
    return this.call(exchange, toLivePipe);
  }

  async listAlerts(): Promise<LiveAlert[]> {
    return (await this.readAlerts()).items;
  }

  private async readAlerts(): Promise<ReadList<LiveAlert>> {
    return this.call({ method: 'GET', ...this.at(MANAGED_ROUTES.alerts) }, (data, path) => readEach('Alert', data, path, toLiveAlert));
  }

  async listSources(): Promise<DataSource[]> {
    return this.call({ method: 'GET', ...this.at(MANAGED_ROUTES.sources) }, (data, path) => listOf(data, path, toDataSource));
  }

  /** Current servers only (the seed has no webhooks route). */
  async listWebhooks(): Promise<Webhook[]> {
    return this.call({ method: 'GET', ...this.at(MANAGED_ROUTES.webhooks) }, (data, path) => listOf(data, path, toWebhook));
  }
}

/** Adding or removing table mappings twice fails (api-notes), so such a PATCH is not blindly repeatable. */
function changesMappings(patch: PipePatch): boolean {
  const postgres = patch.source?.['postgres'];
  if (postgres === null || typeof postgres !== 'object') return false;
  return 'tableMappingsToAdd' in postgres || 'tableMappingsToRemove' in postgres;
}
