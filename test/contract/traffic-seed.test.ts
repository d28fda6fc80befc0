/**
 * The contract suite on the `seed` profile (issue 32; docs/api-client.md#the-contract-suite): the
 * conformance walk of every kind on both variants (`test/conformance/walk.ts`), through a
 * recording proxy; then every request is matched to its operation in the services' documents
 * (the operation exists, its parameters are declared, its body validates, or the table of
 * differences says why not). The seed profile's answers are the spec's, not today's services':
 * only `current` answers are held to the documents (`traffic-current.test.ts`).
 */
import { writeFile } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { checkFixtures, walkEveryKind } from '../conformance/walk.js';
import { TRAFFIC_DIFFERENCES } from './differences.js';
import { contractOrSkip } from './openapi.js';
import { findingsOf, recorder, unexplained } from './traffic.js';

const contract = contractOrSkip();
const traffic = recorder();

checkFixtures();
describe('the conformance walk, recorded', () => walkEveryKind('seed', traffic.front));

describe.skipIf(!contract)('the recorded traffic, against the services’ documents', () => {
  afterAll(async () => {
    const file = process.env['STACKSYNC_CONTRACT_RECORD'];
    if (file) await writeFile(file, JSON.stringify(traffic.exchanges, null, 1));
  });

  it('every request is as the documents say, or a difference on purpose', () => {
    if (!contract) return;
    expect(traffic.exchanges.length).toBeGreaterThan(50);
    const findings = findingsOf(contract, traffic.exchanges, 'seed');
    expect(
      unexplained(
        findings,
        TRAFFIC_DIFFERENCES.filter((row) => !row.finding.source.startsWith('^lenient')),
        'seed',
      ),
    ).toEqual({ findings: [], rows: [] });
  });
});
