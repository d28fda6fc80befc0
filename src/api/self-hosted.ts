/**
 * The self-hosted adapter: Bearer token, `/api/v2/…`, and the `{data}` envelope. Which kinds it
 * has (no pipes) and which lists are paged are the kinds' descriptors'.
 */
import { ALERT_PAGE_LIMIT_MAX, type ApiProfile } from '../schema/enums.js';
import type { DataSource, Webhook } from '../model/resources.js';
import { listOf } from '../kinds/kit/read.js';
import { toDataSource, toWebhook, unwrapData } from './envelope.js';
import { LOOKUP_ROUTES } from './routes.js';
import { notOffered, StackAdapter } from './stack.js';
import type { Transport } from './transport.js';

export class SelfHostedAdapter extends StackAdapter {
  readonly variant = 'self-hosted' as const;
  protected readonly payloadMember = 'data';

  constructor(transport: Transport, onClose: () => Promise<void>, profile: ApiProfile) {
    super(transport, {}, onClose, profile);
  }

  protected unwrap(body: unknown): unknown {
    return unwrapData(body);
  }

  /**
   * The seed documents no self-hosted sources list (seed 4.2 has it on managed only); current
   * servers answer `/api/v2/sources`. Under the seed profile nothing is sent.
   */
  async listSources(): Promise<DataSource[]> {
    if (this.profile === 'seed') throw notOffered('GET sources', 'the self-hosted API of the seed offers no data sources list (set api.profile: current)', this.variant);
    return this.call({ method: 'GET', ...this.at(LOOKUP_ROUTES['self-hosted'].sources) }, (data, path) => listOf(data, path, toDataSource));
  }

  /** Current servers only; the list answers in one page of up to 1,000, ample for webhooks. */
  async listWebhooks(): Promise<Webhook[]> {
    if (this.profile === 'seed') throw notOffered('GET webhooks', 'the self-hosted API of the seed offers no webhooks list (set api.profile: current)', this.variant);
    return this.call({ method: 'GET', ...this.at(LOOKUP_ROUTES['self-hosted'].webhooks, undefined, `?limit=${ALERT_PAGE_LIMIT_MAX}`) }, (data, path) => listOf(data, path, toWebhook));
  }
}
