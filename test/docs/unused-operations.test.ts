/**
 * Issue 32: docs/api-client.md lists every operation of the real services' OpenAPI documents
 * under `…/clickpipes*`, `…/clickstack/*` and HyperDX's six families that no kind uses, each with
 * a reason. This test derives that list from the documents and the client's route table (every
 * kind's routes, on each variant and profile that offers the kind, with our neutral names mapped
 * onto the services') and holds the page's table to it, both ways; and every operation of the
 * route table must be one of the documents' (a managed connection list, which the managed
 * document lacks, fails it). The documents are read from `STACKSYNC_OPENAPI_DIR`, else
 * `../shared/openapi/` beside the repository; without them the test says so and skips, except
 * under `CI=true`, where their absence fails it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { accessOf, DESCRIPTORS, type KindRoutes } from '../../src/kinds/index.js';
import type { Variant } from '../../src/model/kinds.js';
import { API_PROFILES } from '../../src/schema/enums.js';
import { REPO } from '../helpers/workspace.js';

const DIR = process.env['STACKSYNC_OPENAPI_DIR'] ?? resolve(REPO, '..', 'shared', 'openapi');
const FILES = ['clickhouse-cloud.openapi.json', 'hyperdx.openapi.json'];
const present = FILES.every((file) => existsSync(join(DIR, file)));
if (!present)
  console.warn(`unused-operations: the OpenAPI documents are not in ${DIR} (set STACKSYNC_OPENAPI_DIR): skipped`);

const SERVICE = '/v1/organizations/{organizationId}/services/{serviceId}';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
/** The operations this list is about: the managed pipes and ClickStack, and HyperDX's six families. */
const IN_SCOPE = [
  /^\/v1\/organizations\/\{\}\/services\/\{\}\/(clickpipes|clickstack\/)/,
  /^\/api\/v2\/(alerts|connections|dashboards|saved-searches|sources|webhooks)(\/|$)/,
];

/** `METHOD path` with every path parameter written `{}`: the documents and our templates name them differently. */
const key = (method: string, path: string): string => `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`;

/** Our neutral names as the services spell them. */
function served(path: string): string {
  const service = key('', SERVICE).trim();
  const normal = key('', path).trim();
  if (!normal.startsWith(`${service}/`)) return normal;
  return `${service}/${normal
    .slice(service.length + 1)
    .replace(/^pipes/, 'clickpipes')
    .replace(/^stack\//, 'clickstack/')}`;
}

function documentOperations(): string[] {
  return FILES.flatMap((file) => {
    const document = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as {
      paths: Record<string, Record<string, unknown>>;
    };
    return Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => METHODS.includes(method))
        .map((method) => key(method, path)),
    );
  });
}

/** Every operation the client can send: each kind's routes on each variant and profile that offers it. */
function clientOperations(): Set<string> {
  const used = new Set<string>();
  for (const descriptor of DESCRIPTORS) {
    for (const [variant, routes] of Object.entries(descriptor.routes) as [Variant, KindRoutes][]) {
      for (const profile of API_PROFILES) {
        const access = accessOf(descriptor.kind, variant, profile);
        if (access === 'none') continue;
        const add = (method: string, route: string): void => void used.add(`${method} ${served(route)}`);
        add('GET', routes.collection);
        if (access !== 'write') continue;
        add(routes.update, routes.item);
        if (!routes.singleton) {
          add('POST', routes.collection);
          add('DELETE', routes.item);
        }
        for (const action of Object.values(routes.actions ?? {})) add(action.method, action.route);
        const validate = routes.validate?.[profile];
        if (validate !== undefined) add('POST', validate);
      }
    }
  }
  return used;
}

/** The operations the page's table lists, `{svc}` expanded. */
function listedOperations(): string[] {
  const page = readFileSync(join(REPO, 'docs', 'api-client.md'), 'utf8');
  const section = page.slice(page.indexOf('## What the documents offer and stacksync does not'));
  const table = section.slice(0, section.indexOf('\n## ') === -1 ? undefined : section.indexOf('\n## '));
  return [...table.matchAll(/^\| `(GET|POST|PUT|PATCH|DELETE) ([^`]+)` \| (.+) \|$/gm)].map((row) => {
    expect(row[3]?.trim().length, `a reason for ${row[1]} ${row[2]}`).toBeGreaterThan(0);
    return key(row[1] ?? '', (row[2] ?? '').replace('{svc}', SERVICE));
  });
}

describe.skipIf(!present && process.env['CI'] !== 'true')(
  'the operations the documents offer and stacksync does not',
  () => {
    it('finds the documents (under CI=true their absence fails)', () => {
      expect(present, `the OpenAPI documents in ${DIR}`).toBe(true);
    });

    it('every operation the client sends is one the documents have', () => {
      const offered = new Set(documentOperations());
      expect([...clientOperations()].filter((operation) => !offered.has(operation))).toEqual([]);
    });

    it('docs/api-client.md lists exactly the operations in scope that no kind uses, each once, with a reason', () => {
      const used = clientOperations();
      const unused = documentOperations().filter(
        (operation) => IN_SCOPE.some((scope) => scope.test(operation.split(' ')[1] ?? '')) && !used.has(operation),
      );
      const listed = listedOperations();
      expect(new Set(listed).size).toBe(listed.length);
      expect([...listed].sort()).toEqual([...unused].sort());
    });

    it('fails on a route the managed document lacks, as the managed connection list was', () => {
      const offered = new Set(documentOperations());
      expect(offered.has(`GET ${served(`${SERVICE}/stack/connections`)}`)).toBe(false);
      expect(offered.has(`GET ${served(`${SERVICE}/stack/roles`)}`)).toBe(true);
    });
  },
);
