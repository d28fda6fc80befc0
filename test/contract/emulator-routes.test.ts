/**
 * The contract suite on the emulator's own routes (issue 32; docs/emulator.md#the-services-documents):
 * under the `current` profile every route it serves is an operation of the services' documents
 * (our neutral names mapped), or a difference on purpose of the table; and a request for an
 * operation the documents lack is a 404 (or, on a path it serves for other methods, a 405).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CURRENT_IDS, DEFAULT_SEED_IDS } from '../../src/emulator/index.js';
import { managedRoutes } from '../../src/emulator/routes-managed.js';
import { selfHostedRoutes } from '../../src/emulator/routes-selfhosted.js';
import { sharedEmulator } from '../helpers/workspace.js';
import { ROUTE_DIFFERENCES } from './differences.js';
import { contractOrSkip } from './openapi.js';
import { unexplained } from './traffic.js';

const contract = contractOrSkip();

describe.skipIf(!contract)('the current profile’s routes, against the services’ documents', () => {
  const shared = sharedEmulator({ profile: 'current' });

  it('every route it serves is an operation of the documents, or a difference on purpose', () => {
    if (!contract) return;
    const findings = [...managedRoutes('current'), ...selfHostedRoutes('current')]
      .map((route) => ({ route, lookup: contract.find(route.method, route.template.replace(/\{\w+\}/g, 'x')) }))
      .filter(({ lookup }) => !lookup.found)
      .map(({ route }) => `served ${route.method} ${route.template}`)
      .sort();
    expect(unexplained(findings, ROUTE_DIFFERENCES, 'current')).toEqual({ findings: [], rows: [] });
  });

  it('answers 404 or 405 for every operation of the full documents it does not serve, under our path names', async () => {
    if (!contract) return;
    const ids = DEFAULT_SEED_IDS;
    const managedAuth = `Basic ${Buffer.from(`${ids.keyId}:${ids.keySecret}`).toString('base64')}`;
    const served = [...managedRoutes('current'), ...selfHostedRoutes('current')].map(
      (route) => `${route.method} ${route.template}`,
    );
    const fill = (template: string): string =>
      template
        .replace('{organizationId}', ids.organizationId)
        .replace('{serviceId}', ids.serviceId)
        .replace(/\{\w+\}/g, DEFAULT_CURRENT_IDS.service.webhook)
        // Back to our neutral names, as the emulator serves them by default.
        .replace('/clickstack/', '/stack/')
        .replace('/clickpipes', '/pipes');
    const statuses: string[] = [];
    let asked = 0;
    for (const [service, entries] of Object.entries(contract.index)) {
      for (const entry of entries) {
        const [method = '', template = ''] = entry.split(' ');
        const ours = fill(template);
        if (service === 'clickhouse-cloud' && !template.includes('/services/{serviceId}/')) continue;
        if (served.some((each) => each.startsWith(`${method} `) && matches(each.slice(method.length + 1), ours)))
          continue;
        asked++;
        const response = await fetch(`${shared.emulator.url}${ours}`, {
          method,
          headers: {
            authorization: service === 'hyperdx' ? 'Bearer emulator-token' : managedAuth,
            'content-type': 'application/json',
          },
          ...(method === 'GET' || method === 'DELETE' ? {} : { body: '{}' }),
        });
        await response.arrayBuffer();
        if (response.status !== 404 && response.status !== 405) statuses.push(`${entry}: ${response.status}`);
      }
    }
    expect(asked, 'operations asked for').toBeGreaterThan(40);
    expect(statuses).toEqual([]);
  });
});

/** Whether a served route template matches a path. */
function matches(template: string, path: string): boolean {
  const pattern = template.split('/');
  const segments = path.split('/');
  return (
    pattern.length === segments.length &&
    pattern.every((part, index) => (part.startsWith('{') ? segments[index] !== '' : part === segments[index]))
  );
}
