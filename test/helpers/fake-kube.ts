/**
 * A fake Kubernetes API server on loopback, for the kubernetes state backend's tests, driven by
 * the real `@kubernetes/client-node` (a kubeconfig naming its URL and a bearer token). It serves
 * Secrets (`/api/v1`) and Leases (`/apis/coordination.k8s.io/v1`) in the namespaces it was given,
 * and enforces what the client and the backend rely on, as the API server does:
 *
 * - a bearer token, else 401; an unknown namespace is 404 NotFound;
 * - create: 201, or 409 AlreadyExists; get of a missing object: 404 NotFound, a `Status` object;
 * - replace (PUT) and merge patch with `metadata.resourceVersion`: 409 Conflict when it is not
 *   the current one (without it, the write is unconditional); replace of a missing object: 404;
 * - every write gives the object a new `resourceVersion` (one counter for the server, as etcd's
 *   revision); delete: 200 with a `Status`; list by label selector (`k=v`, `k!=v`, `k`, `!k`);
 * - a Secret's data is base64 and at most 1 MiB decoded (422 Invalid past it); a Lease's
 *   `acquireTime`/`renewTime` are MicroTime (RFC 3339 with exactly six fractional digits, else
 *   400 as the server's decoder answers) and `leaseDurationSeconds` is positive (422 else);
 * - given `rules` (a Role's), what they do not grant is 403 Forbidden, each request's verb named
 *   as the API server's authorizer names it (get, list, watch, create, update, patch, delete,
 *   deletecollection); every verb a request needed is kept in `verbs`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace: string;
    resourceVersion: string;
    uid: string;
    creationTimestamp: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [member: string]: unknown;
}

export interface FakeKube {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  readonly token: string;
  /** Every request, as `METHOD path` (for tests that count calls). */
  readonly requests: string[];
  /** Every `verb resource` the requests needed, as the authorizer names them (e.g. `update leases`). */
  readonly verbs: Set<string>;
  /** The stored object, or undefined. */
  get(resource: 'secrets' | 'leases', namespace: string, name: string): KubeObject | undefined;
  /** Every stored object of a resource in a namespace. */
  list(resource: 'secrets' | 'leases', namespace: string): KubeObject[];
  /** Makes the next `count` requests whose `METHOD path` matches answer `status` (a Status object). */
  failNext(match: RegExp, status: number, count?: number): void;
  /** Writes a kubeconfig naming this server and token (context `fake`, and `other` naming no server) to `path`. */
  writeKubeconfig(path: string, options?: { namespace?: string }): Promise<string>;
  stop(): Promise<void>;
}

const SECRET_LIMIT = 1024 * 1024;
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

interface Kind {
  kind: string;
  apiVersion: string;
  group: string;
  validate(body: Record<string, unknown>): { status: number; reason: string; message: string } | undefined;
}

const KINDS: Record<'secrets' | 'leases', Kind> = {
  secrets: { kind: 'Secret', apiVersion: 'v1', group: '', validate: validateSecret },
  leases: {
    kind: 'Lease',
    apiVersion: 'coordination.k8s.io/v1',
    group: 'coordination.k8s.io',
    validate: validateLease,
  },
};

/** One rule of a Role, as `rbac.authorization.k8s.io/v1` writes it. */
export interface RbacRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/** The verb the API server's authorizer checks for a request on a resource (and object name, when it names one). */
function verbOf(method: string, named: boolean, watch: boolean): string {
  if (method === 'GET') return named ? 'get' : watch ? 'watch' : 'list';
  if (method === 'POST') return 'create';
  if (method === 'PUT') return 'update';
  if (method === 'PATCH') return 'patch';
  if (method === 'DELETE') return named ? 'delete' : 'deletecollection';
  return method.toLowerCase();
}

function grants(rules: readonly RbacRule[], group: string, resource: string, verb: string): boolean {
  const has = (list: readonly string[], value: string) => list.includes('*') || list.includes(value);
  return rules.some((rule) => has(rule.apiGroups, group) && has(rule.resources, resource) && has(rule.verbs, verb));
}

export async function startFakeKube(
  options: { namespaces?: string[]; token?: string; rules?: readonly RbacRule[] } = {},
): Promise<FakeKube> {
  const namespaces = new Set(options.namespaces ?? ['default']);
  const token = options.token ?? `fake-token-${randomUUID()}`;
  const store = new Map<string, KubeObject>();
  const requests: string[] = [];
  const verbs = new Set<string>();
  const faults: { match: RegExp; status: number; count: number }[] = [];
  let revision = 1000;
  const key = (resource: string, namespace: string, name: string) => `${resource}/${namespace}/${name}`;

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const method = request.method ?? 'GET';
    requests.push(`${method} ${url.pathname}`);
    const body = await readBody(request);
    const send = (status: number, value: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(value));
    };
    const fail = (status: number, reason: string, message: string, details?: Record<string, unknown>) =>
      send(status, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message,
        reason,
        ...(details ? { details } : {}),
        code: status,
      });
    if (request.headers.authorization !== `Bearer ${token}`) return fail(401, 'Unauthorized', 'Unauthorized');
    const fault = faults.find((each) => each.match.test(`${method} ${url.pathname}`));
    if (fault) {
      fault.count -= 1;
      if (fault.count <= 0) faults.splice(faults.indexOf(fault), 1);
      return fail(fault.status, 'InternalError', `injected failure ${fault.status}`);
    }
    const route =
      /^\/(?:api\/v1|apis\/coordination\.k8s\.io\/v1)\/namespaces\/([^/]+)\/(secrets|leases)(?:\/([^/]+))?$/.exec(
        url.pathname,
      );
    const resource = route?.[2] as 'secrets' | 'leases' | undefined;
    if (!route || !resource || (resource === 'secrets') !== url.pathname.startsWith('/api/v1/'))
      return fail(404, 'NotFound', 'the server could not find the requested resource');
    const kind = KINDS[resource];
    const namespace = decodeURIComponent(route[1] as string);
    const name = route[3] === undefined ? undefined : decodeURIComponent(route[3]);
    const details = (forName: string) => ({ name: forName, group: kind.group, kind: resource });
    const notFound = (forName: string) => fail(404, 'NotFound', `${resource} "${forName}" not found`, details(forName));
    const verb = verbOf(method, name !== undefined, url.searchParams.get('watch') === 'true');
    verbs.add(`${verb} ${resource}`);
    if (options.rules && !grants(options.rules, kind.group, resource, verb)) {
      return fail(
        403,
        'Forbidden',
        `${resource}${name === undefined ? '' : ` "${name}"`} is forbidden: User "system:serviceaccount:${namespace}:fake" cannot ${verb} resource "${resource}" in API group "${kind.group}" in the namespace "${namespace}"`,
        { ...(name === undefined ? {} : { name }), group: kind.group, kind: resource },
      );
    }
    if (!namespaces.has(namespace))
      return fail(404, 'NotFound', `namespaces "${namespace}" not found`, { name: namespace, kind: 'namespaces' });

    if (name === undefined) {
      if (method === 'GET') {
        const selector = parseSelector(url.searchParams.get('labelSelector') ?? '');
        const items = [...store.entries()]
          .filter(
            ([id, object]) => id.startsWith(`${resource}/${namespace}/`) && selector(object.metadata.labels ?? {}),
          )
          .map(([, object]) => object);
        return send(200, {
          kind: `${kind.kind}List`,
          apiVersion: kind.apiVersion,
          metadata: { resourceVersion: String(revision) },
          items,
        });
      }
      if (method !== 'POST') return fail(405, 'MethodNotAllowed', `${method} is not allowed here`);
      const parsed = parseJson(body);
      if (!parsed) return fail(400, 'BadRequest', 'the body is not a JSON object');
      const meta = (parsed['metadata'] ?? {}) as Record<string, unknown>;
      const newName = String(meta['name'] ?? '');
      if (!DNS_SUBDOMAIN.test(newName) || newName.length > 253)
        return fail(
          422,
          'Invalid',
          `${kind.kind} "${newName}" is invalid: metadata.name: Invalid value`,
          details(newName),
        );
      if (meta['resourceVersion'] !== undefined && meta['resourceVersion'] !== '')
        return fail(
          422,
          'Invalid',
          `${kind.kind} "${newName}" is invalid: metadata.resourceVersion: Invalid value: must be empty on create`,
          details(newName),
        );
      const invalid = kind.validate(parsed);
      if (invalid)
        return fail(
          invalid.status,
          invalid.reason,
          `${kind.kind} "${newName}" is invalid: ${invalid.message}`,
          details(newName),
        );
      if (store.has(key(resource, namespace, newName)))
        return fail(409, 'AlreadyExists', `${resource} "${newName}" already exists`, details(newName));
      revision += 1;
      const object = stored(kind, parsed, {
        name: newName,
        namespace,
        resourceVersion: String(revision),
        uid: randomUUID(),
        creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      });
      store.set(key(resource, namespace, newName), object);
      return send(201, object);
    }

    const current = store.get(key(resource, namespace, name));
    if (method === 'GET') return current ? send(200, current) : notFound(name);
    if (method === 'DELETE') {
      if (!current) return notFound(name);
      const preconditions = (parseJson(body)?.['preconditions'] ?? {}) as Record<string, unknown>;
      if (
        preconditions['resourceVersion'] !== undefined &&
        preconditions['resourceVersion'] !== current.metadata.resourceVersion
      ) {
        return fail(
          409,
          'Conflict',
          `Operation cannot be fulfilled on ${resource} "${name}": the ResourceVersion in the precondition does not match`,
          details(name),
        );
      }
      store.delete(key(resource, namespace, name));
      revision += 1;
      return send(200, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Success',
        details: { ...details(name), uid: current.metadata.uid },
      });
    }
    if (method !== 'PUT' && method !== 'PATCH') return fail(405, 'MethodNotAllowed', `${method} is not allowed here`);
    if (!current) return notFound(name);
    const parsed = parseJson(body);
    if (!parsed) return fail(400, 'BadRequest', 'the body is not a JSON object');
    const next = method === 'PUT' ? parsed : mergePatch(current, parsed);
    const meta = (next['metadata'] ?? {}) as Record<string, unknown>;
    if (meta['name'] !== undefined && meta['name'] !== name)
      return fail(
        400,
        'BadRequest',
        `the name of the object (${String(meta['name'])}) does not match the name on the URL (${name})`,
      );
    const asked =
      method === 'PUT'
        ? meta['resourceVersion']
        : (parsed['metadata'] as Record<string, unknown> | undefined)?.['resourceVersion'];
    if (asked !== undefined && asked !== '' && asked !== current.metadata.resourceVersion) {
      return fail(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${resource} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        details(name),
      );
    }
    const invalid = kind.validate(next);
    if (invalid)
      return fail(
        invalid.status,
        invalid.reason,
        `${kind.kind} "${name}" is invalid: ${invalid.message}`,
        details(name),
      );
    revision += 1;
    const object = stored(kind, next, { ...current.metadata, resourceVersion: String(revision) });
    store.set(key(resource, namespace, name), object);
    return send(200, object);
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'InternalError',
          message: String(error),
          code: 500,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    token,
    requests,
    verbs,
    get: (resource, namespace, name) => store.get(key(resource, namespace, name)),
    list: (resource, namespace) =>
      [...store.entries()].filter(([id]) => id.startsWith(`${resource}/${namespace}/`)).map(([, object]) => object),
    failNext(match, status, count = 1) {
      faults.push({ match, status, count });
    },
    async writeKubeconfig(path, settings = {}) {
      const text = [
        'apiVersion: v1',
        'kind: Config',
        'current-context: fake',
        'clusters:',
        '- name: fake',
        '  cluster:',
        `    server: ${url}`,
        // The client refuses plain HTTP unless TLS checks are off; the fake speaks HTTP on loopback.
        '    insecure-skip-tls-verify: true',
        'users:',
        '- name: fake',
        '  user:',
        `    token: ${token}`,
        'contexts:',
        '- name: fake',
        '  context:',
        '    cluster: fake',
        '    user: fake',
        `    namespace: ${settings.namespace ?? 'default'}`,
        '- name: other',
        '  context:',
        '    cluster: nowhere',
        '    user: fake',
        '',
      ].join('\n');
      await writeFile(path, text, { mode: 0o600 });
      return path;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function stored(kind: Kind, body: Record<string, unknown>, metadata: KubeObject['metadata']): KubeObject {
  const given = (body['metadata'] ?? {}) as Record<string, unknown>;
  const labels = given['labels'] as Record<string, string> | undefined;
  const annotations = given['annotations'] as Record<string, string> | undefined;
  const { metadata: _metadata, apiVersion: _apiVersion, kind: _kind, ...rest } = body;
  return {
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    metadata: {
      ...metadata,
      ...(labels && Object.keys(labels).length > 0 ? { labels } : {}),
      ...(annotations && Object.keys(annotations).length > 0 ? { annotations } : {}),
    },
    ...rest,
  };
}

function validateSecret(
  body: Record<string, unknown>,
): { status: number; reason: string; message: string } | undefined {
  const data = (body['data'] ?? {}) as Record<string, unknown>;
  let total = 0;
  for (const [name, value] of Object.entries(data)) {
    if (typeof value !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0)
      return { status: 400, reason: 'BadRequest', message: `data[${name}]: illegal base64 data` };
    total += Buffer.from(value, 'base64').length;
  }
  if (total > SECRET_LIMIT)
    return { status: 422, reason: 'Invalid', message: `data: Too long: must have at most ${SECRET_LIMIT} bytes` };
  return undefined;
}

function validateLease(body: Record<string, unknown>): { status: number; reason: string; message: string } | undefined {
  const spec = (body['spec'] ?? {}) as Record<string, unknown>;
  for (const member of ['acquireTime', 'renewTime']) {
    const value = spec[member];
    if (value !== undefined && value !== null && (typeof value !== 'string' || !MICRO_TIME.test(value))) {
      return {
        status: 400,
        reason: 'BadRequest',
        message: `spec.${member}: parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05.000000Z07:00": cannot parse`,
      };
    }
  }
  const duration = spec['leaseDurationSeconds'];
  if (duration !== undefined && duration !== null && (!Number.isInteger(duration) || (duration as number) <= 0)) {
    return {
      status: 422,
      reason: 'Invalid',
      message: 'spec.leaseDurationSeconds: Invalid value: must be greater than 0',
    };
  }
  const transitions = spec['leaseTransitions'];
  if (
    transitions !== undefined &&
    transitions !== null &&
    (!Number.isInteger(transitions) || (transitions as number) < 0)
  ) {
    return {
      status: 422,
      reason: 'Invalid',
      message: 'spec.leaseTransitions: Invalid value: must be greater than or equal to 0',
    };
  }
  return undefined;
}

/** A label selector of equality terms: `k=v`, `k==v`, `k!=v`, `k`, `!k`, joined by commas. */
function parseSelector(text: string): (labels: Record<string, string>) => boolean {
  const terms = text
    .split(',')
    .map((term) => term.trim())
    .filter((term) => term !== '')
    .map((term): ((labels: Record<string, string>) => boolean) => {
      const unequal = /^([^!=]+)!=(.*)$/.exec(term);
      if (unequal) return (labels) => labels[unequal[1] as string] !== unequal[2];
      const equal = /^([^!=]+)==?(.*)$/.exec(term);
      if (equal) return (labels) => labels[equal[1] as string] === equal[2];
      if (term.startsWith('!')) return (labels) => !(term.slice(1) in labels);
      return (labels) => term in labels;
    });
  return (labels) => terms.every((term) => term(labels));
}

/** RFC 7386 merge patch. */
function mergePatch(target: unknown, patch: unknown): Record<string, unknown> {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch as Record<string, unknown>;
  const result: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [member, value] of Object.entries(patch)) {
    if (value === null) delete result[member];
    else result[member] = mergePatch(result[member], value);
  }
  return result;
}

function parseJson(text: string): Record<string, unknown> | undefined {
  if (text === '') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
