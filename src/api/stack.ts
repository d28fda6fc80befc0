/**
 * What both adapters share: dashboards, alerts and sources carry the same resources and rules on
 * both variants (api-notes), only routes, envelope and paging differ. Subclasses supply those.
 */
import { StacksyncError } from '../errors.js';
import type { AlertWrite, DashboardWrite, DataSource, LiveAlert, LiveDashboard, LivePipe, LiveState, PipePatch, Webhook } from '../model/resources.js';
import type { Variant } from '../model/kinds.js';
import type { ApiProfile } from '../schema/enums.js';
import { readEach, ShapeError, toLiveAlert, toLiveDashboard, type ReadList } from './normalize.js';
import type { Api } from './port.js';
import { fillRoute, idParam, type StackRoutes } from './routes.js';
import type { Exchange, Reply, Transport } from './transport.js';

export abstract class StackAdapter implements Api {
  abstract readonly variant: Variant;

  constructor(
    protected readonly transport: Transport,
    protected readonly routes: StackRoutes,
    /** Placeholder values every route of this target shares (organization and service on managed). */
    private readonly baseParams: Record<string, string>,
    private readonly onClose: () => Promise<void>,
    /** Which spelling writes take (`api.profile` of the target). */
    protected readonly profile: ApiProfile,
  ) {}

  /** The payload inside the variant's success envelope. */
  protected abstract unwrap(body: unknown): unknown;
  /** Its member name, the root of paths in protocol errors. */
  protected abstract readonly payloadMember: string;

  abstract readLiveState(): Promise<LiveState>;
  abstract listPipes(): Promise<LivePipe[]>;
  abstract updatePipe(id: string, patch: PipePatch): Promise<LivePipe>;
  abstract listAlerts(): Promise<LiveAlert[]>;
  abstract listSources(): Promise<DataSource[]>;
  abstract listWebhooks(): Promise<Webhook[]>;

  async listDashboards(): Promise<LiveDashboard[]> {
    return (await this.readDashboards()).items;
  }

  /** Every dashboard that reads, and the ones that do not, set aside. */
  protected async readDashboards(): Promise<ReadList<LiveDashboard>> {
    return this.call({ method: 'GET', ...this.at(this.routes.dashboards) }, (data, path) => readEach('Dashboard', data, path, toLiveDashboard));
  }

  async createDashboard(body: DashboardWrite): Promise<LiveDashboard> {
    // The service assigns tile ids on create; ids sent along would be ignored, so none are sent.
    const tiles = body.tiles.map(({ id: _ignored, ...tile }) => tile);
    return this.call({ method: 'POST', ...this.at(this.routes.dashboards), body: { ...body, tiles } }, toLiveDashboard);
  }

  async updateDashboard(id: string, body: DashboardWrite): Promise<LiveDashboard> {
    return this.call({ method: 'PUT', ...this.at(this.routes.dashboard, id), body }, toLiveDashboard);
  }

  async deleteDashboard(id: string): Promise<void> {
    await this.transport.send({ method: 'DELETE', ...this.at(this.routes.dashboard, id) });
  }

  async createAlert(body: AlertWrite): Promise<LiveAlert> {
    return this.call({ method: 'POST', ...this.at(this.routes.alerts), body: spelled(body, this.profile) }, toLiveAlert);
  }

  async updateAlert(id: string, body: AlertWrite): Promise<LiveAlert> {
    return this.call({ method: 'PUT', ...this.at(this.routes.alert, id), body: spelled(body, this.profile) }, toLiveAlert);
  }

  async deleteAlert(id: string): Promise<void> {
    await this.transport.send({ method: 'DELETE', ...this.at(this.routes.alert, id) });
  }

  async close(): Promise<void> {
    await this.onClose();
  }

  /** Route template and concrete path of a collection, or of one resource when `id` is given. */
  protected at(route: string, id?: string, query = ''): Pick<Exchange, 'route' | 'path' | 'resourceId'> {
    const params = id === undefined ? this.baseParams : { ...this.baseParams, [idParam(route)]: id };
    return { route, path: fillRoute(route, params) + query, ...(id === undefined ? {} : { resourceId: id }) };
  }

  /** Sends, unwraps and reads the answer; a wrong shape becomes E_API_PROTOCOL. */
  protected async call<T>(exchange: Exchange, read: (data: unknown, path: string) => T): Promise<T> {
    const reply = await this.transport.send(exchange);
    return this.read(exchange, reply, (body) => read(this.unwrap(body), this.payloadMember));
  }

  protected read<T>(exchange: Exchange, reply: Reply, read: (body: unknown) => T): T {
    try {
      return read(reply.body);
    } catch (error) {
      if (!(error instanceof ShapeError)) throw error;
      const subject = `${exchange.method} ${exchange.route}`;
      return protocolError(subject, exchange, reply.status, error);
    }
  }
}

/** How each profile spells a saved-search alert's `source` (the model says `search`). */
const SAVED_SEARCH_SOURCE: Record<ApiProfile, string> = { seed: 'search', current: 'saved_search' };

/** The body in the target's spelling: only the saved-search source differs between profiles. */
export function spelled(body: AlertWrite, profile: ApiProfile): AlertWrite {
  const isSearch = body.source === 'search' || body.source === 'saved_search';
  return isSearch ? { ...body, source: SAVED_SEARCH_SOURCE[profile] } : body;
}

/** The items of these lists that did not read, merged into a live state's `unreadable`. */
export function unreadableIn(...lists: ReadList<unknown>[]): LiveState['unreadable'] {
  return lists.flatMap((list) => list.unreadable);
}

function protocolError(subject: string, exchange: Exchange, status: number, error: ShapeError): never {
  throw new StacksyncError('E_API_PROTOCOL', `${subject}: unexpected answer: ${error.message}`, {
    subject,
    status,
    details: { method: exchange.method, route: exchange.route, path: error.path, problem: error.problem },
  });
}
