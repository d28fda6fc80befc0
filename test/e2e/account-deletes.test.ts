/**
 * Issue 24, two rules of deletes across kinds, through the built CLI on both variants of the
 * emulator's `current` profile. The server refuses (409) to delete a webhook an alert notifies,
 * and deletes the alerts on a saved search with it. So: pruned together, the alert goes first;
 * pruned alone while the alert's manifest stays, the alert is a located error and the delete is
 * held back (never sent, nothing written, exit 1); and a saved search's delete names the alerts
 * the server takes down with it, so none is deleted by surprise.
 */
import { describe, expect, it } from 'vitest';
import { defaultSeed } from '../../src/emulator/index.js';
import {
  describeRun,
  named,
  parseJsonOutput,
  stackOf,
  TARGETS,
  type PlanJson,
  type TargetName,
} from '../helpers/e2e.js';
import {
  emulatorStats,
  resetEmulatorStats,
  sharedEmulator,
  type CliResult,
  type Workspace,
} from '../helpers/workspace.js';

const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 } as const;
const HOOK = { HOOK_URL: 'https://hooks.example.com/notify/deletes' };

const shared = sharedEmulator({ profile: 'current', seed: defaultSeed('current') });

function head(target: TargetName, kind: string, name: string): string {
  return `apiVersion: stacksync/v1\nkind: ${kind}\nmetadata: { name: ${name}, target: ${target} }\nspec:\n`;
}

/** A webhook of ours, with a name unique to the case. */
function webhookYaml(target: TargetName, key: string, name: string): string {
  return `${head(target, 'Webhook', key)}  name: ${name}\n  service: generic\n  url: { fromEnv: HOOK_URL }\n`;
}

/** A saved search of ours, on the seed's log source. */
function savedSearchYaml(target: TargetName, key: string, name: string): string {
  return `${head(target, 'SavedSearch', key)}  name: ${name}\n  source: logs\n  where: "level:error"\n`;
}

/** An alert on a saved search, notifying a webhook, both by name. */
function alertYaml(
  target: TargetName,
  key: string,
  name: string,
  on: { savedSearch: string; webhook: string },
): string {
  return `${head(target, 'Alert', key)}  name: ${name}
  source: saved_search
  savedSearch: ${on.savedSearch}
  threshold: 5
  thresholdType: above
  interval: 5m
  channel: { type: webhook, webhook: ${on.webhook} }
`;
}

/** The changes that do something, as `action Kind/name`, in plan order. */
function acting(plan: PlanJson): string[] {
  return plan.changes
    .filter((change) => change.action !== 'unchanged')
    .map((change) => `${change.action} ${change.kind}/${change.name}`);
}

function changeOf(plan: PlanJson, kind: string, name: string): PlanJson['changes'][number] {
  const change = plan.changes.find((each) => each.kind === kind && each.name === name);
  expect(change, `${kind}/${name} in the plan`).toBeDefined();
  return change as PlanJson['changes'][number];
}

/** The kinds `apply` reports deleted, in the order it deleted them. */
function deletedKinds(result: CliResult): string[] {
  return [...result.stderr.matchAll(/deleted (\w+)\//g)].map((match) => match[1] ?? '');
}

describe.each(TARGETS)('deletes across kinds on %s (current profile)', (target) => {
  const open = async (): Promise<{ workspace: Workspace; run: (args: string[]) => Promise<CliResult> }> => {
    const workspace = await shared.workspace({ apiProfile: 'current', rateLimit: FAST });
    return { workspace, run: (args) => workspace.run([...args, '--target', target], { env: HOOK }) };
  };

  it('a webhook an alert notifies: pruned alone while the alert manifest stays, it is held back with a located error and nothing is written; pruned with the alert, the alert goes first', async () => {
    const { url } = shared.emulator;
    const { workspace, run } = await open();
    const hook = `Pager ${target}`;
    const alertName = `Errors paging ${target}`;
    await workspace.write('manifests/webhook.yaml', webhookYaml(target, 'pager', hook));
    // The alert watches the seed's saved search (by its live name), so only the webhook is ours to delete.
    await workspace.write(
      'manifests/alert.yaml',
      alertYaml(target, 'paging', alertName, { savedSearch: 'errors', webhook: 'pager' }),
    );
    const created = await run(['apply']);
    expect(created.code, describeRun(created)).toBe(0);
    let live = await stackOf(url, target);
    const webhook = named(live.webhooks, hook);
    const alert = named(live.alerts, alertName);
    expect(alert).toMatchObject({ channel: { type: 'webhook', webhookId: webhook.id } });

    // 1. Only the webhook's manifest goes: the alert that still names it is an error at its manifest,
    //    which holds back its target's writes and prune (docs/apply.md#one-rule-for-what-holds-back-writes);
    //    the webhook, left an orphan, says why it waits (the server would refuse it: 409).
    await workspace.remove('manifests/webhook.yaml');
    const plan = await run(['plan', '--prune', '--output', 'json', '--detailed-exitcode']);
    expect(plan.code, describeRun(plan)).toBe(1);
    const planned = parseJsonOutput(plan);
    expect(acting(planned)).toEqual(['error Alert/paging', 'orphan Webhook/pager']);
    expect(changeOf(planned, 'Alert', 'paging')).toMatchObject({
      code: 'E_REF_UNRESOLVED',
      file: 'manifests/alert.yaml',
      line: 1,
      id: alert.id,
    });
    expect(changeOf(planned, 'Alert', 'paging').error).toContain(
      'the manifest of Webhook/pager is gone, and this plan deletes its Webhook (prune)',
    );
    const [held] = changeOf(planned, 'Webhook', 'pager').warnings ?? [];
    expect(held).toContain('not deleted while Alert/paging (manifests/alert.yaml:1) still names it');
    expect(held).toContain('409');
    const text = await run(['plan', '--prune']);
    expect(text.code, describeRun(text)).toBe(1);
    expect(text.stdout).toMatch(/error Alert\/paging .*manifests\/alert\.yaml:1/);
    expect(text.stdout).toContain('not deleted while Alert/paging');

    // 2. Applied (past the prune cap): the webhook's delete is never sent, the alert is left as it was, exit 1.
    await resetEmulatorStats(url);
    const refused = await run(['apply', '--prune', '--force', '--output', 'json']);
    expect(refused.code, describeRun(refused)).toBe(1);
    const results = parseJsonOutput(refused);
    expect(changeOf(results, 'Alert', 'paging')).toMatchObject({ result: 'failed', code: 'E_REF_UNRESOLVED' });
    expect(changeOf(results, 'Webhook', 'pager')).toMatchObject({ action: 'orphan' });
    expect(changeOf(results, 'Webhook', 'pager')).not.toHaveProperty('result');
    expect((await emulatorStats(url)).writes).toBe(0);
    live = await stackOf(url, target);
    expect(named(live.webhooks, hook).id).toBe(webhook.id);
    expect(named(live.alerts, alertName)).toEqual(alert);

    // 3. Both manifests go: the alert's delete comes first, then the webhook's; both are gone, exit 0.
    await workspace.remove('manifests/alert.yaml');
    await workspace.write('manifests/other.yaml', '# nothing here for now\n');
    const both = parseJsonOutput(await run(['plan', '--prune', '--output', 'json']));
    expect(acting(both)).toEqual(['delete Alert/paging', 'delete Webhook/pager']);
    expect(changeOf(both, 'Webhook', 'pager').warnings ?? []).toEqual([]);
    const pruned = await run(['apply', '--prune', '--force']);
    expect(pruned.code, describeRun(pruned)).toBe(0);
    expect(deletedKinds(pruned)).toEqual(['Alert', 'Webhook']);
    live = await stackOf(url, target);
    expect(live.webhooks.map((each) => each.id)).not.toContain(webhook.id);
    expect(live.alerts.map((each) => each.id)).not.toContain(alert.id);
    const clean = await run(['plan', '--prune', '--detailed-exitcode']);
    expect(clean.code, describeRun(clean)).toBe(0);
  }, 180_000);

  it('a saved search an alert watches: pruned alone while the alert manifest stays, it is held back and the alert kept; pruned with the alert, the plan shows both deletes and the alerts the server takes down with it', async () => {
    const { url } = shared.emulator;
    const { workspace, run } = await open();
    const search = `Checkout errors ${target}`;
    const alertName = `Checkout errors above 5 ${target}`;
    await workspace.write('manifests/search.yaml', savedSearchYaml(target, 'checkout-errors', search));
    // The alert notifies the seed's webhook (by its live name), so only the saved search is ours to delete.
    await workspace.write(
      'manifests/alert.yaml',
      alertYaml(target, 'checkout', alertName, { savedSearch: 'checkout-errors', webhook: 'on-call' }),
    );
    const created = await run(['apply']);
    expect(created.code, describeRun(created)).toBe(0);
    let live = await stackOf(url, target);
    const saved = named(live.savedSearches, search);
    const alert = named(live.alerts, alertName);
    expect(alert).toMatchObject({ source: 'saved_search', savedSearchId: saved.id });

    // 1. Only the saved search's manifest goes: deleting it would take the alert a manifest still
    //    wants with it, so the alert is an error at its manifest, which holds back the target's prune.
    await workspace.remove('manifests/search.yaml');
    const plan = await run(['plan', '--prune', '--output', 'json', '--detailed-exitcode']);
    expect(plan.code, describeRun(plan)).toBe(1);
    const planned = parseJsonOutput(plan);
    expect(acting(planned)).toEqual(['error Alert/checkout', 'orphan SavedSearch/checkout-errors']);
    expect(changeOf(planned, 'Alert', 'checkout')).toMatchObject({
      code: 'E_REF_UNRESOLVED',
      file: 'manifests/alert.yaml',
      line: 1,
      id: alert.id,
    });
    expect(changeOf(planned, 'Alert', 'checkout').error).toContain(
      'the manifest of SavedSearch/checkout-errors is gone',
    );
    expect(changeOf(planned, 'SavedSearch', 'checkout-errors').warnings).toEqual([
      expect.stringContaining(
        'not deleted while Alert/checkout (manifests/alert.yaml:1) still watches it: the manifest stays and cannot be applied, and the server would delete the alert with it',
      ),
    ]);
    await resetEmulatorStats(url);
    const refused = await run(['apply', '--prune', '--force', '--output', 'json']);
    expect(refused.code, describeRun(refused)).toBe(1);
    expect(changeOf(parseJsonOutput(refused), 'SavedSearch', 'checkout-errors')).toMatchObject({ action: 'orphan' });
    expect(changeOf(parseJsonOutput(refused), 'SavedSearch', 'checkout-errors')).not.toHaveProperty('result');
    expect((await emulatorStats(url)).writes).toBe(0);
    live = await stackOf(url, target);
    expect(named(live.savedSearches, search)).toEqual(saved);
    expect(named(live.alerts, alertName)).toEqual(alert);

    // 2. Someone else's alert on the same saved search (a workspace of its own, so not ours).
    const { workspace: other, run: runOther } = await open();
    const theirs = `Checkout errors, by hand ${target}`;
    await other.write(
      'manifests/alert.yaml',
      alertYaml(target, 'by-hand', theirs, { savedSearch: search, webhook: 'on-call' }),
    );
    const made = await runOther(['apply']);
    expect(made.code, describeRun(made)).toBe(0);
    const handMade = named((await stackOf(url, target)).alerts, theirs);
    expect(handMade['savedSearchId']).toBe(saved.id);

    // 3. Both manifests go: the plan shows the alert's delete beside the saved search's, and names the
    //    alert the server deletes with it; after apply all three are gone and the next plan is clean.
    await workspace.remove('manifests/alert.yaml');
    await workspace.write('manifests/other.yaml', '# nothing here for now\n');
    const both = await run(['plan', '--prune', '--output', 'json', '--detailed-exitcode']);
    expect(both.code, describeRun(both)).toBe(2);
    const bothPlanned = parseJsonOutput(both);
    expect(acting(bothPlanned)).toEqual(['delete Alert/checkout', 'delete SavedSearch/checkout-errors']);
    expect(changeOf(bothPlanned, 'SavedSearch', 'checkout-errors').warnings).toEqual([
      `the server deletes the alerts on it with it: Alert "${theirs}" (${handMade.id})`,
    ]);
    const bothText = await run(['plan', '--prune']);
    expect(bothText.stdout).toMatch(
      /- delete Alert\/checkout[\s\S]*- delete SavedSearch\/checkout-errors[\s\S]*the server deletes the alerts on it with it/,
    );
    const pruned = await run(['apply', '--prune', '--force']);
    expect(pruned.code, describeRun(pruned)).toBe(0);
    expect(deletedKinds(pruned)).toEqual(['Alert', 'SavedSearch']);
    live = await stackOf(url, target);
    expect(live.savedSearches.map((each) => each.id)).not.toContain(saved.id);
    expect(live.alerts.map((each) => each.id)).not.toContain(alert.id);
    expect(live.alerts.map((each) => each.id)).not.toContain(handMade.id);
    const clean = await run(['plan', '--prune', '--detailed-exitcode']);
    expect(clean.code, describeRun(clean)).toBe(0);
  }, 180_000);
});
