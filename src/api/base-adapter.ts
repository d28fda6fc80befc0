/**
 * What both adapters share: every kind is read and written the same way on both variants, from
 * its descriptor's routes, reader and write hooks; only the envelope, the base parameters of the
 * routes and the lists' spelling differ, which the subclasses supply.
 */
import { StacksyncError, isStacksyncError } from '../errors.js';
import type { Kind, Variant } from '../model/kinds.js';
import type { ActionVerb, WriteBody } from '../model/plan.js';
import type { LiveBase, UnreadableResource } from '../model/resources.js';
import type { ApiProfile } from '../schema/enums.js';
import { ALERT_PAGE_LIMIT_MAX } from '../kinds/alert/wire.js';
import {
  accessOf,
  deferredKinds,
  descriptorOf,
  DESCRIPTORS,
  liveStateOf,
  readerOf,
  withList,
  withUnread,
  type AnyKindDescriptor,
  type KindRoutes,
  type LiveLists,
  type LiveOfKind,
  type LiveState,
} from '../kinds/index.js';
import { asString, listOf, object, readEach, requiredString, ShapeError, type ReadList } from '../kinds/shared/read.js';
import type { Api, ServerCheck } from './port.js';
import { fillRoute, idParam } from './routes.js';
import { MANAGED_SERVICE } from '../kinds/shared/routes.js';
import { DEFAULT_SETTINGS_PREFIX } from '../schema/pipe-sources.js';
import type { TargetApi } from '../model/config.js';
import type { Exchange, Reply, Transport } from './transport.js';
import { isRecord } from '../support/json.js';

/** How a target's server spells what the seed writes neutrally. */
export type ServerSpelling = Pick<TargetApi, 'paths' | 'settingsPrefix'>;

interface Page<T> extends ReadList<T> {
  /** From `meta.total` or `X-Total-Count`; undefined when the server sent neither. */
  total?: number;
}

export abstract class BaseAdapter implements Api {
  abstract readonly variant: Variant;

  constructor(
    protected readonly transport: Transport,
    /** Placeholder values every route of this target shares (organization and service on managed). */
    private readonly baseParams: Record<string, string>,
    private readonly onClose: () => Promise<void>,
    /** Which spelling writes take (`api.profile` of the target). */
    protected readonly profile: ApiProfile,
    /** How the target's server names path segments and the settings prefix, where not as the seed (`api.paths`, `api.settingsPrefix`). */
    private readonly server: ServerSpelling = {},
  ) {}

  /** The payload inside the variant's success envelope. */
  protected abstract unwrap(body: unknown): unknown;
  /** Its member name, the root of paths in protocol errors. */
  protected abstract readonly payloadMember: string;
  /** The answer of a check route (`dashboards/validate`), which some variants send without their envelope. */
  protected abstract unwrapCheck(body: unknown): unknown;

  /**
   * Every kind this target offers, one list each, read together; a kind read only when asked
   * (`deferredKinds`) only when `also` names it, the others said unread (`LiveState.unread`).
   */
  async readLiveState(also: readonly Kind[] = []): Promise<LiveState> {
    const unread = deferredKinds(this.variant, this.profile).filter((kind) => !also.includes(kind));
    const live = await this.readKinds(
      DESCRIPTORS.map((descriptor) => descriptor.kind).filter((kind) => !unread.includes(kind)),
    );
    return withUnread(live, unread);
  }

  async readKinds(kinds: readonly Kind[]): Promise<LiveState> {
    const read = kinds.filter((kind) => this.routesOf(descriptorOf(kind)) !== undefined);
    const lists = await Promise.all(read.map(async (kind) => ({ kind, list: await this.readList(kind) })));
    return liveStateOf(
      lists.reduce<LiveLists>((each, { kind, list }) => withList(each, kind, list.items), {}),
      lists.flatMap(({ list }) => list.unreadable),
    );
  }

  async list<K extends Kind>(kind: K): Promise<LiveOfKind<K>[]> {
    if (this.routesOf(descriptorOf(kind)) === undefined) return [];
    return (await this.readList(kind)).items;
  }

  async validate(kind: Kind, body: WriteBody): Promise<ServerCheck | undefined> {
    const descriptor = descriptorOf(kind);
    const route = this.routesOf(descriptor)?.validate?.[this.profile];
    if (route === undefined || accessOf(kind, this.variant, this.profile) !== 'write') return undefined;
    const exchange: Exchange = {
      method: 'POST',
      ...this.at(route),
      body: this.spelled(descriptor, descriptor.writes?.createBody?.(body) ?? body),
    };
    const reply = await this.transport.send(exchange);
    return this.read(exchange, reply, (answer) => toServerCheck(this.unwrapCheck(answer)));
  }

  async create<K extends Kind>(kind: K, body: WriteBody): Promise<LiveOfKind<K>> {
    const descriptor = descriptorOf(kind);
    const routes = this.offered(descriptor, 'POST');
    if (routes.singleton)
      throw notOffered(`POST ${kind}`, `a ${kind} is one per service: it is never created, only changed`, this.variant);
    const sent = this.spelled(descriptor, descriptor.writes?.createBody?.(body) ?? body);
    return this.call({ method: 'POST', ...this.at(routes.collection), body: sent }, this.serverReaderOf(kind));
  }

  async update<K extends Kind>(kind: K, id: string, body: WriteBody): Promise<LiveOfKind<K>> {
    const descriptor = descriptorOf(kind);
    const routes = this.offered(descriptor, 'update', id);
    const notRepeatable = descriptor.writes?.notRepeatable?.(body) === true;
    // The one object of a singleton is at its collection's route, without an id.
    const at = routes.singleton ? { ...this.at(routes.collection), resourceId: id } : this.at(routes.item, id);
    const exchange: Exchange = {
      method: routes.update,
      ...at,
      body: this.spelled(descriptor, body),
      ...(notRepeatable ? { notRepeatable } : {}),
    };
    return this.call(exchange, this.serverReaderOf(kind));
  }

  async remove(kind: Kind, id: string): Promise<void> {
    const routes = this.offered(descriptorOf(kind), 'DELETE', id);
    if (routes.singleton)
      throw notOffered(`DELETE ${kind}`, `a ${kind} is one per service: it is never deleted`, this.variant);
    await this.transport.send({ method: 'DELETE', ...this.at(routes.item, id) });
  }

  async act<K extends Kind>(
    kind: K,
    verb: ActionVerb,
    id: string,
    body: WriteBody,
  ): Promise<LiveOfKind<K> | undefined> {
    const descriptor = descriptorOf(kind);
    const routes = this.offered(descriptor, verb, id);
    const action = routes.actions?.[verb];
    if (!action) throw notOffered(`${verb} ${kind}`, `${kind} has no ${verb} action`, this.variant);
    const exchange: Exchange = {
      method: action.method,
      ...this.at(action.route, id, '', idParam(routes.item)),
      body: this.spelled(descriptor, body),
    };
    const reply = await this.transport.send(exchange);
    // The answer is only confirmation: one that does not read as the kind's object is no failure.
    try {
      return this.serverReaderOf(kind)(this.unwrap(reply.body), this.payloadMember);
    } catch (error) {
      if (error instanceof ShapeError) return undefined;
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.onClose();
  }

  /** The kind's routes on this variant, when it offers the kind at all under this profile. */
  private routesOf(descriptor: AnyKindDescriptor): KindRoutes | undefined {
    return accessOf(descriptor.kind, this.variant, this.profile) === 'none'
      ? undefined
      : descriptor.routes[this.variant];
  }

  /** The kind's routes for a write; a target that cannot write the kind sends nothing and says so. */
  private offered(descriptor: AnyKindDescriptor, what: string, id?: string): KindRoutes {
    const routes = this.routesOf(descriptor);
    if (routes && accessOf(descriptor.kind, this.variant, this.profile) === 'write') return routes;
    const which = id === undefined ? '' : ` (${descriptor.kind} ${id})`;
    const can = routes ? `lists its ${descriptor.collection} but cannot write them` : `has no ${descriptor.collection}`;
    throw notOffered(
      `${what} ${descriptor.kind}`,
      `a ${this.variant} target with api profile ${this.profile} ${can}${which}`,
      this.variant,
    );
  }

  private spelled(descriptor: AnyKindDescriptor, body: WriteBody): WriteBody {
    const spelled = descriptor.writes?.spell?.(body, this.profile) ?? body;
    const prefix = this.server.settingsPrefix;
    const respell = descriptor.writes?.respell;
    return prefix !== undefined && prefix !== DEFAULT_SETTINGS_PREFIX && respell
      ? (respell(spelled, DEFAULT_SETTINGS_PREFIX, prefix) as WriteBody)
      : spelled;
  }

  /** A kind's reader, of its own live type, taking what the server spells with its own settings prefix back to the seed's. */
  private serverReaderOf<K extends Kind>(kind: K): (item: unknown, path: string) => LiveOfKind<K> {
    const read = readerOf(kind).read;
    const prefix = this.server.settingsPrefix;
    const respell = descriptorOf(kind).writes?.respell;
    if (prefix === undefined || prefix === DEFAULT_SETTINGS_PREFIX || !respell) return read;
    return (item, path) => read(respell(item, prefix, DEFAULT_SETTINGS_PREFIX), path);
  }

  /** The route template with the server's own path segments (`…/clickpipes`), where it names them otherwise. */
  private segmented(route: string): string {
    const paths = this.server.paths;
    if (!paths || !route.startsWith(`${MANAGED_SERVICE}/`)) return route;
    const rest = route.slice(MANAGED_SERVICE.length + 1);
    if (paths.pipes !== undefined && rest.startsWith('pipes'))
      return `${MANAGED_SERVICE}/${paths.pipes}${rest.slice('pipes'.length)}`;
    if (paths.stack !== undefined && rest.startsWith('stack/'))
      return `${MANAGED_SERVICE}/${paths.stack}${rest.slice('stack'.length)}`;
    return route;
  }

  /** Every live object of a kind that reads, and the ones that do not, set aside. */
  protected readList<K extends Kind>(kind: K): Promise<ReadList<LiveOfKind<K>>> {
    const routes = this.routesOf(descriptorOf(kind)) as KindRoutes;
    const reader = this.serverReaderOf(kind);
    const read = (data: unknown, path: string): ReadList<LiveOfKind<K>> => readEach(kind, data, path, reader);
    if (routes.singleton) return this.readSingleton(kind, routes.collection, routes.singleton.id, reader);
    if (routes.paged) return this.readPages(kind, routes.collection, reader);
    return this.call({ method: 'GET', ...this.at(routes.collection) }, read);
  }

  /**
   * The one object of a singleton route, as a list of one; none while the service answers 404
   * (it has none yet). An answer that does not read is that object unreadable, not a failed read.
   */
  private async readSingleton<T>(
    kind: Kind,
    route: string,
    id: string,
    read: (item: unknown, path: string) => T,
  ): Promise<ReadList<T>> {
    const exchange: Exchange = { method: 'GET', ...this.at(route) };
    let reply: Reply;
    try {
      reply = await this.transport.send(exchange);
    } catch (error) {
      if (isStacksyncError(error, 'E_API_NOT_FOUND')) return { items: [], unreadable: [] };
      throw error;
    }
    const payload = this.read(exchange, reply, (body) => this.unwrap(body));
    try {
      return { items: [read(payload, this.payloadMember)], unreadable: [] };
    } catch (error) {
      if (!(error instanceof ShapeError)) throw error;
      return { items: [], unreadable: [{ kind, id, problem: error.message }] };
    }
  }

  /**
   * Every page of a paged list, one after another, `limit` at a time. The managed lists page with
   * `limit`/`offset` in their prose only (docs/api-client.md, "Paged lists"), so nothing the server
   * does with them is trusted to end the read: a page shorter than asked ends it, so does one
   * that brings nothing new (a server that ignores `offset`), and no read makes more than
   * ⌈n ÷ limit⌉ + 1 calls for the n objects it has seen, whatever the server answers. A total
   * (`meta.total`, `X-Total-Count`) only spares the last, empty call.
   */
  private async readPages<T extends LiveBase>(
    kind: Kind,
    route: string,
    read: (item: unknown, path: string) => T,
  ): Promise<ReadList<T>> {
    const limit = ALERT_PAGE_LIMIT_MAX;
    const items = new Map<string, T>();
    const unreadable = new Map<string, UnreadableResource>();
    let offset = 0;
    for (let calls = 1; ; calls += 1) {
      const page = await this.page(kind, route, offset, read);
      const before = items.size + unreadable.size;
      for (const item of page.items) if (!items.has(item.id)) items.set(item.id, item);
      for (const item of page.unreadable) if (!unreadable.has(item.id)) unreadable.set(item.id, item);
      const seen = items.size + unreadable.size;
      const length = page.items.length + page.unreadable.length;
      const done =
        length < limit ||
        seen === before ||
        (page.total !== undefined && seen >= page.total) ||
        calls >= Math.ceil(seen / limit) + 1;
      if (done) return { items: [...items.values()], unreadable: [...unreadable.values()] };
      offset += length;
    }
  }

  private async page<T>(
    kind: Kind,
    route: string,
    offset: number,
    read: (item: unknown, path: string) => T,
  ): Promise<Page<T>> {
    const exchange: Exchange = {
      method: 'GET',
      ...this.at(route, undefined, `?limit=${ALERT_PAGE_LIMIT_MAX}&offset=${offset}`),
    };
    const reply = await this.transport.send(exchange);
    return this.read(exchange, reply, (body) => {
      const list = readEach(kind, this.unwrap(body), this.payloadMember, read);
      const total = totalOf(body) ?? headerTotal(reply.headers['x-total-count']);
      return total === undefined ? list : { ...list, total };
    });
  }

  /** Route template and concrete path of a collection, or of one resource when `id` is given. */
  protected at(
    route: string,
    id?: string,
    query = '',
    idName?: string,
  ): Pick<Exchange, 'route' | 'path' | 'resourceId'> {
    const params = id === undefined ? this.baseParams : { ...this.baseParams, [idName ?? idParam(route)]: id };
    return {
      route,
      path: fillRoute(this.segmented(route), params) + query,
      ...(id === undefined ? {} : { resourceId: id }),
    };
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

/** A request this target cannot take: nothing is sent. */
export function notOffered(subject: string, message: string, variant: Variant): StacksyncError {
  return new StacksyncError('E_API_NOT_FOUND', message, { subject, details: { variant } });
}

/** A check route's answer: whether the body would be taken, and the problems it names. */
function toServerCheck(value: unknown): ServerCheck {
  const raw = object(value, '');
  const valid = raw['valid'];
  if (typeof valid !== 'boolean') throw new ShapeError('valid', 'is not a boolean');
  const errors =
    raw['errors'] === undefined || raw['errors'] === null
      ? []
      : listOf(raw['errors'], 'errors', (item, path) => {
          const problem = object(item, path);
          const at = problem['path'];
          return {
            path: at === undefined || at === null ? '' : asString(at, `${path}.path`),
            message: requiredString(problem, 'message', path),
          };
        });
  return { valid, errors };
}

function totalOf(body: unknown): number | undefined {
  // Managed pages answer the bare list: no meta, no total.
  if (!isRecord(body)) return undefined;
  const meta = body['meta'];
  if (meta === undefined || meta === null) return undefined;
  const total = (meta as { total?: unknown }).total;
  if (total === undefined) return undefined;
  if (typeof total !== 'number' || !Number.isInteger(total) || total < 0)
    throw new ShapeError('meta.total', 'is not a count');
  return total;
}

function headerTotal(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return undefined;
  const total = Number(text);
  return Number.isInteger(total) && total >= 0 ? total : undefined;
}

function protocolError(subject: string, exchange: Exchange, status: number, error: ShapeError): never {
  throw new StacksyncError('E_API_PROTOCOL', `${subject}: unexpected answer: ${error.message}`, {
    subject,
    status,
    details: { method: exchange.method, route: exchange.route, path: error.path, problem: error.problem },
  });
}
