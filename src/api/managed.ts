/**
 * The managed adapter: HTTP Basic, `/v1/organizations/{org}/services/{svc}/…`, and the
 * `{status, requestId, result}` envelope. Lists are not paginated, so a full read is one call per
 * kind.
 */
import type { DataSource, Webhook } from '../model/resources.js';
import type { ApiProfile } from '../schema/enums.js';
import { listOf } from '../kinds/kit/read.js';
import { toDataSource, toWebhook, unwrapManaged } from './envelope.js';
import { LOOKUP_ROUTES } from './routes.js';
import { StackAdapter, type ServerSpelling } from './stack.js';
import type { Transport } from './transport.js';

export class ManagedAdapter extends StackAdapter {
  readonly variant = 'managed' as const;
  protected readonly payloadMember = 'result';

  constructor(transport: Transport, ids: { organizationId: string; serviceId: string }, onClose: () => Promise<void>, profile: ApiProfile, server: ServerSpelling = {}) {
    super(transport, { organizationId: ids.organizationId, serviceId: ids.serviceId }, onClose, profile, server);
  }

  protected unwrap(body: unknown): unknown {
    return unwrapManaged(body);
  }

  async listSources(): Promise<DataSource[]> {
    return this.call({ method: 'GET', ...this.at(LOOKUP_ROUTES.managed.sources) }, (data, path) => listOf(data, path, toDataSource));
  }

  /** Current servers only (the seed has no webhooks route). */
  async listWebhooks(): Promise<Webhook[]> {
    return this.call({ method: 'GET', ...this.at(LOOKUP_ROUTES.managed.webhooks) }, (data, path) => listOf(data, path, toWebhook));
  }
}
