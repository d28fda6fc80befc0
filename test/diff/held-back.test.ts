/**
 * What holds back a target's writes when the plan finds a manifest problem (src/diff/held-back.ts,
 * docs/apply.md#one-rule-for-what-holds-back-writes): a problem of a plain manifest holds back the
 * target (or its tenant); a problem of one `metadata.forEach` item holds back only that item,
 * whichever stage finds it (docs/many-services.md).
 */
import { describe, expect, it } from 'vitest';
import { plannedProblemHoldsBack, plannedTenantsHeldBack } from '../../src/diff/index.js';
import type { Change } from '../../src/model/plan.js';

function errorChange(extra: Partial<Change>): Change {
  return {
    target: 'prod',
    kind: 'Alert',
    name: 'errors',
    action: 'error',
    code: 'E_REF_UNRESOLVED',
    error: 'names no live webhook',
    diff: [],
    operations: [],
    dependsOn: [],
    warnings: [],
    ...extra,
  };
}

const CASES: { name: string; change: Change; target: boolean; tenants: string[] }[] = [
  { name: 'a plain manifest names what does not exist', change: errorChange({}), target: true, tenants: [] },
  {
    name: 'one forEach item names what does not exist',
    change: errorChange({ item: 'service=checkout, severity=page' }),
    target: false,
    tenants: [],
  },
  {
    name: "a tenant's plain manifest",
    change: errorChange({ tenant: 'payments' }),
    target: false,
    tenants: ['payments'],
  },
  {
    name: "one forEach item of a tenant's template",
    change: errorChange({ tenant: 'payments', item: 'service=checkout' }),
    target: false,
    tenants: [],
  },
  {
    name: 'a live resource problem (not a manifest one)',
    change: errorChange({ code: 'E_CONFLICT' }),
    target: false,
    tenants: [],
  },
];

describe('what a problem found while planning holds back', () => {
  it.each(CASES)('$name', ({ change, target, tenants }) => {
    expect(plannedProblemHoldsBack([change])).toBe(target);
    expect([...plannedTenantsHeldBack([change])]).toEqual(tenants);
  });
});
