/**
 * The managed adapter: HTTP Basic, `/v1/organizations/{org}/services/{svc}/…`, and the
 * `{status, requestId, result}` envelope. Lists answer whole, or page by page without a total
 * (read until a short page); a full read is a call per kind, and one per page.
 */
import type { ApiProfile } from '../schema/enums.js';
import { unwrapManaged } from './envelope.js';
import { BaseAdapter, type ServerSpelling } from './base-adapter.js';
import type { Transport } from './transport.js';

export class ManagedAdapter extends BaseAdapter {
  readonly variant = 'managed' as const;
  protected readonly payloadMember = 'result';

  constructor(
    transport: Transport,
    ids: { organizationId: string; serviceId: string },
    onClose: () => Promise<void>,
    profile: ApiProfile,
    server: ServerSpelling = {},
  ) {
    super(transport, { organizationId: ids.organizationId, serviceId: ids.serviceId }, onClose, profile, server);
  }

  protected unwrap(body: unknown): unknown {
    return unwrapManaged(body);
  }

  protected unwrapCheck(body: unknown): unknown {
    return unwrapManaged(body);
  }
}
