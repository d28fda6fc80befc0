/**
 * The managed adapter: HTTP Basic, `/v1/organizations/{org}/services/{svc}/…`, and the
 * `{status, requestId, result}` envelope. Lists are not paginated, so a full read is three calls.
 */
import type { DataSource, LiveAlert, LivePipe, LiveState, PipePatch } from '../model/resources.js';
import { listOf, toDataSource, toLiveAlert, toLivePipe, unwrapManaged } from './normalize.js';
import { MANAGED_ROUTES } from './routes.js';
import { StackAdapter } from './stack.js';
import type { Transport } from './transport.js';

export class ManagedAdapter extends StackAdapter {
  readonly variant = 'managed' as const;
  protected readonly payloadMember = 'result';

  constructor(transport: Transport, ids: { organizationId: string; serviceId: string }, onClose: () => Promise<void>) {
    super(transport, MANAGED_ROUTES, { organizationId: ids.organizationId, serviceId: ids.serviceId }, onClose);
  }

  protected unwrap(body: unknown): unknown {
    return unwrapManaged(body);
  }

  async readLiveState(): Promise<LiveState> {
    const [pipes, dashboards, alerts] = await Promise.all([this.listPipes(), this.listDashboards(), this.listAlerts()]);
    return { pipes, dashboards, alerts };
  }

  async listPipes(): Promise<LivePipe[]> {
    return this.call({ method: 'GET', ...this.at(MANAGED_ROUTES.pipes) }, (data, path) => listOf(data, path, toLivePipe));
  }

  async updatePipe(id: string, patch: PipePatch): Promise<LivePipe> {
    const exchange = { method: 'PATCH' as const, ...this.at(MANAGED_ROUTES.pipe, id), body: patch, notRepeatable: changesMappings(patch) };
    return this.call(exchange, toLivePipe);
  }

  async listAlerts(): Promise<LiveAlert[]> {
    return this.call({ method: 'GET', ...this.at(MANAGED_ROUTES.alerts) }, (data, path) => listOf(data, path, toLiveAlert));
  }

  async listSources(): Promise<DataSource[]> {
    return this.call({ method: 'GET', ...this.at(MANAGED_ROUTES.sources) }, (data, path) => listOf(data, path, toDataSource));
  }
}

/** Adding or removing table mappings twice fails (api-notes), so such a PATCH is not blindly repeatable. */
function changesMappings(patch: PipePatch): boolean {
  const postgres = patch.source?.['postgres'];
  if (postgres === null || typeof postgres !== 'object') return false;
  return 'tableMappingsToAdd' in postgres || 'tableMappingsToRemove' in postgres;
}
