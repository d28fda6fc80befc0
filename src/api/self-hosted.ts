/**
 * The self-hosted adapter: Bearer token, `/api/v2/…`, and the `{data}` envelope. It has no pipes.
 * Alert lists are paged (`limit` ≤ 1000, `offset`): a client that does not page misses alerts, so
 * the first page tells the total and the rest are fetched together.
 */
import { StacksyncError } from '../errors.js';
import { ALERT_PAGE_LIMIT_MAX } from '../schema/enums.js';
import type { DataSource, LiveAlert, LivePipe, LiveState } from '../model/resources.js';
import { listOf, ShapeError, toLiveAlert, unwrapData } from './normalize.js';
import { SELF_HOSTED_ROUTES } from './routes.js';
import { StackAdapter } from './stack.js';
import type { Exchange, Transport } from './transport.js';

/** A bound on pages, so a server that misreports its total cannot keep us reading forever. */
const MAX_ALERT_PAGES = 10_000;

interface AlertPage {
  alerts: LiveAlert[];
  /** From `meta.total` or `X-Total-Count`; undefined when the server sent neither. */
  total?: number;
}

export class SelfHostedAdapter extends StackAdapter {
  readonly variant = 'self-hosted' as const;
  protected readonly payloadMember = 'data';

  constructor(transport: Transport, onClose: () => Promise<void>) {
    super(transport, SELF_HOSTED_ROUTES, {}, onClose);
  }

  protected unwrap(body: unknown): unknown {
    return unwrapData(body);
  }

  async readLiveState(): Promise<LiveState> {
    const [dashboards, alerts] = await Promise.all([this.listDashboards(), this.listAlerts()]);
    return { pipes: [], dashboards, alerts };
  }

  async listPipes(): Promise<LivePipe[]> {
    return [];
  }

  /** Pipes exist only on managed targets; nothing is sent. */
  async updatePipe(id: string): Promise<LivePipe> {
    throw notOffered('PATCH pipe', `self-hosted targets have no pipes (pipe ${id}); Pipe manifests need a managed target`);
  }

  /** The self-hosted API documents no sources list (seed 4.2 has it on managed only); nothing is sent. */
  async listSources(): Promise<DataSource[]> {
    throw notOffered('GET sources', 'the self-hosted API offers no data sources list');
  }

  /** Every alert: one call per page of 1,000; after the first, the remaining pages in parallel. */
  async listAlerts(): Promise<LiveAlert[]> {
    const first = await this.alertPage(0);
    const step = first.alerts.length;
    if (step === 0) return [];
    if (first.total === undefined) return this.pageOnUntilShort(first.alerts, step);
    const offsets: number[] = [];
    for (let offset = step; offset < first.total && offsets.length < MAX_ALERT_PAGES; offset += step) offsets.push(offset);
    const pages = await Promise.all(offsets.map((offset) => this.alertPage(offset)));
    return uniqueById([first.alerts, ...pages.map((page) => page.alerts)]);
  }

  /** Without a total, read on until a page comes back short. */
  private async pageOnUntilShort(firstAlerts: LiveAlert[], step: number): Promise<LiveAlert[]> {
    const pages = [firstAlerts];
    for (let offset = step; pages.length < MAX_ALERT_PAGES && (pages.at(-1)?.length ?? 0) >= step; offset += step) {
      pages.push((await this.alertPage(offset)).alerts);
    }
    return uniqueById(pages);
  }

  private async alertPage(offset: number): Promise<AlertPage> {
    const query = `?limit=${ALERT_PAGE_LIMIT_MAX}&offset=${offset}`;
    const exchange: Exchange = { method: 'GET', ...this.at(SELF_HOSTED_ROUTES.alerts, undefined, query) };
    const reply = await this.transport.send(exchange);
    return this.read(exchange, reply, (body) => {
      const alerts = listOf(unwrapData(body), 'data', toLiveAlert);
      const total = totalOf(body) ?? headerTotal(reply.headers['x-total-count']);
      return total === undefined ? { alerts } : { alerts, total };
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
function uniqueById(pages: LiveAlert[][]): LiveAlert[] {
  const byId = new Map<string, LiveAlert>();
  for (const page of pages) for (const alert of page) if (!byId.has(alert.id)) byId.set(alert.id, alert);
  return [...byId.values()];
}
