/**
 * The self-hosted adapter: Bearer token, `/api/v2/…`, and the `{data}` envelope. Which kinds it
 * has (no pipes) and which lists are paged are the kinds' descriptors'.
 */
import type { ApiProfile } from '../schema/enums.js';
import { unwrapData } from './envelope.js';
import { BaseAdapter } from './base-adapter.js';
import type { Transport } from './transport.js';

export class SelfHostedAdapter extends BaseAdapter {
  readonly variant = 'self-hosted' as const;
  protected readonly payloadMember = 'data';

  constructor(transport: Transport, onClose: () => Promise<void>, profile: ApiProfile) {
    super(transport, {}, onClose, profile);
  }

  protected unwrap(body: unknown): unknown {
    return unwrapData(body);
  }

  /** The server's check routes answer bare, outside `{data}` (hyperdx `v2/dashboards.ts`, `POST /validate`). */
  protected unwrapCheck(body: unknown): unknown {
    return body;
  }
}
