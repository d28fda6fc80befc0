/**
 * The tenants' path globs (docs/reference/config.md#tenants): `*` and `?` within a directory, `**`
 * across any number, a directory taking everything under it, and nothing else matching.
 */
import { describe, expect, it } from 'vitest';
import { tenantMatcher, tenantPathProblem } from '../../src/config/tenants.js';
import type { Tenant } from '../../src/model/config.js';

const tenant = (name: string, ...paths: string[]): Tenant => ({ name, paths, targets: ['prod'], kinds: ['Dashboard'] });

const CASES: [glob: string, path: string, matches: boolean][] = [
  ['teams/payments/', 'teams/payments/board.yaml', true],
  ['teams/payments/', 'teams/payments/deep/er/board.yaml', true],
  ['teams/payments', 'teams/payments/board.yaml', true],
  ['teams/payments', 'teams/payments-old/board.yaml', false],
  ['teams/payments/**', 'teams/payments/a/b.yaml', true],
  ['teams/*/alerts.yaml', 'teams/search/alerts.yaml', true],
  ['teams/*/alerts.yaml', 'teams/search/deep/alerts.yaml', false],
  ['teams/**/alerts.yaml', 'teams/alerts.yaml', true],
  ['teams/**/alerts.yaml', 'teams/a/b/alerts.yaml', true],
  ['teams/**/alerts.yaml', 'teams/a/b/alerts.yml', false],
  ['team?/x.yaml', 'teams/x.yaml', true],
  ['team?/x.yaml', 'team/x.yaml', false],
  ['./shared/', 'shared/x.yaml', true],
  ['a.b/', 'axb/x.yaml', false],
  ['*.yaml', 'top.yaml', true],
  ['*.yaml', 'dir/top.yaml', false],
];

describe('tenant paths', () => {
  it.each(CASES)('%s against %s: %s', (glob, path, matches) => {
    expect(tenantMatcher([tenant('t', glob)]).tenantsOf(path).length).toBe(matches ? 1 : 0);
  });

  it('tells every tenant whose paths take a file, in config order', () => {
    const matcher = tenantMatcher([
      tenant('payments', 'teams/payments/'),
      tenant('all', 'teams/**'),
      tenant('search', 'teams/search/'),
    ]);
    expect(matcher.tenantsOf('teams/payments/a.yaml').map((each) => each.name)).toEqual(['payments', 'all']);
    expect(matcher.tenantsOf('teams\\search\\a.yaml').map((each) => each.name)).toEqual(['all', 'search']);
    expect(matcher.tenantsOf('other/a.yaml')).toEqual([]);
  });

  it('refuses paths that could never name a file of the manifests directory', () => {
    expect(tenantPathProblem('/etc/teams')).toMatch(/relative/);
    expect(tenantPathProblem('C:/teams')).toMatch(/relative/);
    expect(tenantPathProblem('teams/../other')).toMatch(/inside/);
    expect(tenantPathProblem('teams\\payments')).toMatch(/not \\/);
    expect(tenantPathProblem('teams/payments/')).toBeUndefined();
  });
});
