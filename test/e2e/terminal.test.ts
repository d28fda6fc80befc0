/**
 * What a person reads in the terminal is true and short (issue 26): every error line carries its
 * stable code, summaries count what happened, waits and retries say so in one line each. Run
 * with the built CLI against an emulator serving today's services (`--profile current`), which
 * refuses the seed-format tiles of the example manifests with a 400.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sharedEmulator } from '../helpers/workspace.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const shared = sharedEmulator({ profile: 'current' });

/** The example's self-hosted dashboard (seed-format tiles, refused by a current server) and the alert on it. */
async function refusedDashboard(): Promise<string> {
  return readFile(join(REPO, 'manifests', 'selfhosted-service-health.yaml'), 'utf8');
}

describe('apply --output text', () => {
  it('puts the stable code on every line about a failure: progress, results', async () => {
    const workspace = await shared.workspace({ apiProfile: 'current' });
    await workspace.write('manifests/health.yaml', await refusedDashboard());
    const result = await workspace.run(['apply', '--target', 'local-selfhosted']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^failed Dashboard\/service-health: E_API_VALIDATION: POST \/api\/v2\/dashboards: HTTP 400/m);
    expect(result.stderr).toMatch(/^skipped Alert\/error-spike: E_DEPENDENCY_FAILED: depends on Dashboard\/service-health, which failed$/m);
    expect(result.stdout).toMatch(/^failed: local-selfhosted\/Dashboard\/service-health: E_API_VALIDATION: POST/m);
    expect(result.stdout).toMatch(/^skipped: local-selfhosted\/Alert\/error-spike: E_DEPENDENCY_FAILED: depends on/m);
  });
});
