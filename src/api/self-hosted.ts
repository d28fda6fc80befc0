/**
 * The self-hosted adapter: Bearer token, `/api/v2/…`, and the `{data}` envelope. It has no pipes.
 * Alert lists are paged (`limit` ≤ 1000, `offset`): a client that does not page misses alerts, so
 * the first page tells the total and the rest are fetched together.
 */
import { StacksyncError } from '../errors.js';
import { ALERT_PAGE_LIMIT_MAX } from '../schema/enums.js';
import type { DataSource, LiveAlert, LivePipe, LiveState, UnreadableResource, Webhook } from '../model/resources.js';
import type { ApiProfile } from '../schema/enums.js';
import { listOf, readEach, ShapeError, toDataSource, toLiveAlert, toWebhook, unwrapData, type ReadList } from './normalize.js';
import { SELF_HOSTED_ROUTES } from './routes.js';
import { StackAdapter, unreadableIn } from './stack.js';
import type { Exchange, Transport } from './transport.js';

/** A bound on pages, so a server that misreports its total cannot keep us reading forever. */
const MAX_ALERT_PAGES = 10_000;

interface AlertPage {
  alerts: LiveAlert[];
  /** Items of the page that did not read; they count toward the page's length. */
  unreadable: UnreadableResource[];
  /** From `meta.total` or `X-Total-Count`; undefined when the server sent neither. */
  total?: number;
}

export class SelfHostedAdapter extends StackAdapter {
  readonly variant = 'self-hosted' as const;
  protected readonly payloadMember = 'data';

  constructor(transport: Transport, onClose: () => Promise<void>, profile: ApiProfile) {
    super(transport, SELF_HOSTED_ROUTES, {}, onClose, profile);
  }

  protected unwrap(body: unknown): unknown {
    return unwrapData(body);
  }

  async readLiveState(): Promise<LiveState> {
    const [dashboards, alerts] = await Promise.all([this.readDashboards(), this.readAlerts()]);
    return { pipes: [], dashboards: dashboards.items, alerts: alerts.items, unreadable: unreadableIn(dashboards, alerts) };
  }

  async listPipes(): Promise<LivePipe[]> {
    return [];
  }

  /** Pipes exist only on managed targets; nothing is sent. */
  async updatePipe(id: string): Promise<LivePipe> {
    throw notOffered('PATCH pipe', `self-hosted targets have no pipes (pipe ${id}); Pipe manifests need a managed target`);
  }

  /**
   * The seed documents no self-hosted sources list (seed 4.2 has it on managed only); current
   * servers answer `/api/v2/sources`. Under the seed profile nothing is sent.
   */
  async listSources(): Promise<DataSource[]> {
    if (this.profile === 'seed') throw notOffered('GET sources', 'the self-hosted API of the seed offers no data sources list (set api.profile: current)');
    return this.call({ method: 'GET', ...this.at(SELF_HOSTED_ROUTES.sources) }, (data, path) => listOf(data, path, toDataSource));
  }

  /** Current servers only; the list answers in one page of up to 1,000, ample for webhooks. */
  async listWebhooks(): Promise<Webhook[]> {
    if (this.profile === 'seed') throw notOffered('GET webhooks', 'the self-hosted API of the seed offers no webhooks list (set api.profile: current)');
    return this.call({ method: 'GET', ...this.at(SELF_HOSTED_ROUTES.webhooks, undefined, `?limit=${ALERT_PAGE_LIMIT_MAX}`) }, (data, path) => listOf(data, path, toWebhook));
  }

  async listAlerts(): Promise<LiveAlert[]> {
    return (await this.readAlerts()).items;
  }

  /** Every alert: one call per page of 1,000; after the first, the remaining pages in parallel. */
  private async readAlerts(): Promise<ReadList<LiveAlert>> {
    const first = await this.alertPage(0);
    const step = first.alerts.length + first.unreadable.length;
    if (step === 0) return { items: [], unreadable: [] };
    if (first.total === undefined) return this.pageOnUntilShort(first, step);
    const offsets: number[] = [];
    for (let offset = step; offset < first.total && offsets.length < MAX_ALERT_PAGES; offset += step) offsets.push(offset);
    const pages = await Promise.all(offsets.map((offset) => this.alertPage(offset)));
    return merged([first, ...pages]);
  }

  /** Without a total, read on until a page comes back short. */
  private async pageOnUntilShort(first: AlertPage, step: number): Promise<ReadList<LiveAlert>> {
    const pages = [first];
    const length = (page: AlertPage | undefined): number => (page ? page.alerts.length + page.unreadable.length : 0);
    for (let offset = step; pages.length < MAX_ALERT_PAGES && length(pages.at(-1)) >= step; offset += step) {
      pages.push(await this.alertPage(offset));
    }
    return merged(pages);
  }

  private async alertPage(offset: number): Promise<AlertPage> {
    const query = `?limit=${ALERT_PAGE_LIMIT_MAX}&offset=${offset}`;
    const exchange: Exchange = { method: 'GET', ...this.at(SELF_HOSTED_ROUTES.alerts, undefined, query) };
    const reply = await this.transport.send(exchange);
    return this.read(exchange, reply, (body) => {
      const { items: alerts, unreadable } = readEach('Alert', unwrapData(body), 'data', toLiveAlert);
      const total = totalOf(body) ?? headerTotal(reply.headers['x-total-count']);
      return total === undefined ? { alerts, unreadable } : { alerts, unreadable, total };
    });
  }
}

function notOffered(subject: string, message: string): StacksyncError {
  return new StacksyncError('E_API_NOT_FOUND', message, { subject, details: { variant: 'self-hosted' } });
}

function totalOf(body: unknown): number | undefined {
  const meta = (body as { meta?: unknown }).meta;
  if (meta === undefined || meta === null) return undefined;
  const total = (meta as { total?: unknown }).total;
  if (total === undefined) return undefined;
  if (typeof total !== 'number' || !Number.isInteger(total) || total < 0) throw new ShapeError('meta.total', 'is not a count');
  return total;
}

function headerTotal(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return undefined;
  const total = Number(text);
  return Number.isInteger(total) && total >= 0 ? total : undefined;
}

/** Pages read while alerts change can overlap; an alert counts once. */
function merged(pages: AlertPage[]): ReadList<LiveAlert> {
  const byId = new Map<string, LiveAlert>();
  const unreadable = new Map<string, UnreadableResource>();
  for (const page of pages) {
    for (const alert of page.alerts) if (!byId.has(alert.id)) byId.set(alert.id, alert);
    for (const item of page.unreadable) if (!unreadable.has(item.id)) unreadable.set(item.id, item);
  }
  return { items: [...byId.values()], unreadable: [...unreadable.values()] };
}
