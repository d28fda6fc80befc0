/**
 * Differences on purpose between stacksync and the services' documents (issue 32;
 * docs/api-client.md#the-contract-suite): one row per difference, with its reason. A finding that
 * no row explains fails the suite, and so does a row that explains nothing any more (drop it).
 * Findings are lines: `missing …` (no such operation), `query …` / `path-param …` (a parameter
 * not declared), `request …` (a body the request schema refuses), `answer …` /
 * `answer-undeclared …` (the emulator's `current` answers), `lenient …` (a body the documents
 * refuse that the emulator took), `served …` (a route the emulator serves that no document has).
 *
 * The documents' known artefacts are not rows: `openapi.ts` reads them as their generators meant
 * them (overlapping `oneOf` as `anyOf`, a `null` type beside an enum, numeric-string enums), and
 * an undeclared 404 for an unknown id never reaches the check (the walk asks only for what is).
 */
import type { Difference } from './traffic.js';

/** A managed path of the document, as a pattern (`/clickpipes` → `…/services/{serviceId}/clickpipes`). */
const managed = (suffix: string): string =>
  String.raw`/v1/organizations/\{organizationId\}/services/\{serviceId\}` +
  suffix.replace(/[{}]/g, (brace) => `\\${brace}`);

export const TRAFFIC_DIFFERENCES: readonly Difference[] = [
  {
    finding: new RegExp(`^query GET ${managed('/clickstack/(webhooks|saved-searches)')} (limit|offset)$`),
    reason:
      'a README artefact: the managed lists say in their prose that they are capped at limit (default and maximum 1000) and paged with limit/offset, but declare no query parameter; stacksync sends them to read past 1,000 and bounds the read (issue 32), and the emulator does not honour them',
    profiles: ['current'],
  },
  {
    finding: new RegExp(
      `^request (POST|PUT) (/api/v2/dashboards|${managed('/clickstack/dashboards')})(/\\{(id|clickStackDashboardId)\\})? /tiles/\\*/series/\\*`,
    ),
    reason:
      "the seed profile speaks the spec's earlier dashboard API, whose series name their data source (`dataSource`) where today's name a `sourceId`; a target with `api: { profile: current }` sends today's tiles, held to the documents on the current profile",
    profiles: ['seed'],
  },
];

/** Routes the emulator's current profile serves that the documents lack (`served METHOD template`). */
export const ROUTE_DIFFERENCES: readonly Difference[] = [];
