/**
 * Manifests the services' documents say a create refuses, refused by `validate` and `plan` at
 * their file and line through the built CLI, with nothing written (issue 32): an s3 pipe without
 * `url`, a log Source without `defaultTableSelectExpression`, a kafka pipe with
 * `scaling.concurrency`; a dashboard tile with an aggregation the documents lack, a dashboard filter
 * variable and an alert's list of channels on the managed service, whose document has neither.
 * Before, each passed both and failed at apply as `E_API_VALIDATION` after the target's other
 * writes went through.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CURRENT_IDS } from '../../src/emulator/index.js';
import { describeRun } from '../helpers/e2e.js';
import { emulatorStats, resetEmulatorStats, sharedEmulator, type CliResult } from '../helpers/workspace.js';
import { fixtureSeed } from '../emulator/pipe-fixtures.js';

const shared = sharedEmulator({ profile: 'current', seed: fixtureSeed(), pipeTransitionMs: 0 });

const DESTINATION = `  destination:
    database: default
    table: events
    managedTable: true
    columns:
      - { name: id, type: String }
`;

/** Each manifest alone in its file, with the line and column its error is reported at (`plan` names the target first). */
const REFUSED = [
  {
    name: 'an s3 pipe without url',
    file: 'manifests/s3.yaml',
    text: `apiVersion: stacksync/v1
kind: Pipe
metadata: { name: events-s3-new, target: local }
spec:
  name: events-s3-new
  source:
    objectStorage:
      type: s3
      format: JSONEachRow
${DESTINATION}`,
    error:
      /^\s*(\[local\] )?manifests\/s3\.yaml:8:7: E_MANIFEST_INVALID: spec\.source\.objectStorage\.url: is required for s3$/m,
  },
  {
    name: 'a log Source without defaultTableSelectExpression',
    file: 'manifests/source.yaml',
    text: `apiVersion: stacksync/v1
kind: Source
metadata: { name: new-logs, target: local }
spec:
  name: New logs
  kind: log
  connectionId: "${DEFAULT_CURRENT_IDS.service.connection}"
  from: { databaseName: otel, tableName: new_logs }
  timestampValueExpression: Timestamp
`,
    error:
      /^\s*(\[local\] )?manifests\/source\.yaml:4:1: E_MANIFEST_INVALID: spec\.defaultTableSelectExpression: is required when kind is log$/m,
  },
  {
    name: 'a kafka pipe with scaling.concurrency',
    file: 'manifests/kafka.yaml',
    text: `apiVersion: stacksync/v1
kind: Pipe
metadata: { name: clicks-new, target: local }
spec:
  name: clicks-new
  source:
    kafka:
      type: kafka
      format: JSONEachRow
      brokers: broker-1:9092
      topics: clicks
${DESTINATION}  scaling: { replicas: 2, concurrency: 4 }
`,
    error:
      /^\s*(\[local\] )?manifests\/kafka\.yaml:18:40: E_MANIFEST_INVALID: spec\.scaling\.concurrency: is only for objectStorage pipes$/m,
  },
  {
    name: 'a dashboard tile aggregating by an aggregation the documents lack',
    file: 'manifests/dashboard.yaml',
    text: `apiVersion: stacksync/v1
kind: Dashboard
metadata: { name: api, target: local }
spec:
  name: API
  tiles:
    - name: latency
      x: 0
      y: 0
      w: 6
      h: 4
      config:
        displayType: line
        sourceId: "${DEFAULT_CURRENT_IDS.service.connection}"
        select:
          - { aggFn: increase, valueExpression: Duration }
`,
    error:
      /^\s*(\[local\] )?manifests\/dashboard\.yaml:16:22: E_MANIFEST_INVALID: spec\.tiles\[0\]\.config\.select\[0\]\.aggFn: tile latency: config\.select\[0\]\.aggFn: must be one of avg, count, count_distinct, last_value, max, min, quantile, sum, any, none$/m,
  },
  {
    name: 'a dashboard filter with a variable, on the managed service',
    file: 'manifests/filters.yaml',
    text: `apiVersion: stacksync/v1
kind: Dashboard
metadata: { name: filtered, target: local }
spec:
  name: Filtered
  filters:
    - name: service
      sourceId: "${DEFAULT_CURRENT_IDS.service.connection}"
      expression: ServiceName
      variableName: service
`,
    error:
      /^\s*(\[local\] )?manifests\/filters\.yaml:10:21: E_MANIFEST_INVALID: spec\.filters\[0\]\.variableName: the managed service's API does not offer variableName on a dashboard filter; leave it out for this target$/m,
  },
  {
    name: 'an alert with a list of channels, on the managed service',
    file: 'manifests/alert.yaml',
    text: `apiVersion: stacksync/v1
kind: Alert
metadata: { name: errors, target: local }
spec:
  name: Errors
  threshold: 10
  thresholdType: above
  interval: 5m
  source: saved_search
  savedSearchId: "${DEFAULT_CURRENT_IDS.service.connection}"
  channels:
    - { type: webhook, webhookId: "${DEFAULT_CURRENT_IDS.service.connection}" }
`,
    error:
      /^\s*(\[local\] )?manifests\/alert\.yaml:12:5: E_MANIFEST_INVALID: spec\.channels: the managed service's API does not offer a list of channels on an alert; give its one channel as channel$/m,
  },
  {
    name: 'a kafka pipe with tombstoneMode, which the managed document lacks',
    file: 'manifests/tombstones.yaml',
    text: `apiVersion: stacksync/v1
kind: Pipe
metadata: { name: clicks-tombstones, target: local }
spec:
  name: clicks-tombstones
  source:
    kafka:
      type: kafka
      format: JSONEachRow
      brokers: broker-1:9092
      topics: clicks
      tombstoneMode: soft_delete
${DESTINATION}`,
    error:
      /^\s*(\[local\] )?manifests\/tombstones\.yaml:12:22: E_MANIFEST_INVALID: spec\.source\.kafka\.tombstoneMode: the managed service's API does not offer tombstoneMode \(its newest API description lacks it\); leave it out for a target with api profile current$/m,
  },
  {
    name: 'a mysql pipe of the planetscalevitess flavour, which the managed document lacks',
    file: 'manifests/vitess.yaml',
    text: `apiVersion: stacksync/v1
kind: Pipe
metadata: { name: orders-vitess, target: local }
spec:
  name: orders-vitess
  source:
    mysql:
      type: planetscalevitess
      host: db.example.com
      port: 3306
      settings: { replicationMode: cdc }
      tableMappings:
        - { sourceSchemaName: shop, sourceTable: orders, targetTable: orders }
  destination: { database: default }
`,
    error:
      /^\s*(\[local\] )?manifests\/vitess\.yaml:8:13: E_MANIFEST_INVALID: spec\.source\.mysql\.type: the managed service's API does not offer "planetscalevitess" \(its newest API description lacks it\); leave it out for a target with api profile current$/m,
  },
  {
    name: 'a log Source with orderByExpression, which the documents lack',
    file: 'manifests/ordered.yaml',
    text: `apiVersion: stacksync/v1
kind: Source
metadata: { name: ordered-logs, target: local }
spec:
  name: Ordered logs
  kind: log
  connectionId: "${DEFAULT_CURRENT_IDS.service.connection}"
  from: { databaseName: otel, tableName: ordered_logs }
  timestampValueExpression: Timestamp
  defaultTableSelectExpression: Timestamp, Body
  orderByExpression: Timestamp
`,
    error:
      /^\s*(\[local\] )?manifests\/ordered\.yaml:11:22: E_MANIFEST_INVALID: spec\.orderByExpression: the managed service's API, for a log source, does not offer orderByExpression \(its newest API description lacks it\); leave it out for a target with api profile current$/m,
  },
];

function expectExit(result: CliResult, code: number, what: string): void {
  expect(result.code, `${what}\n${describeRun(result)}`).toBe(code);
}

describe('what the documents say a create refuses is refused before anything is sent', () => {
  it.each(REFUSED)(
    '$name: validate and plan refuse it at its line, and nothing is written',
    async ({ file, text, error }) => {
      const workspace = await shared.workspace({ apiProfile: 'current' });
      await workspace.write(file, text);
      await resetEmulatorStats(shared.emulator.url);
      const validate = await workspace.run(['validate']);
      expectExit(validate, 1, 'validate');
      expect(validate.stdout + validate.stderr).toMatch(error);
      expect((await emulatorStats(shared.emulator.url)).total, 'requests of validate').toBe(0);
      const plan = await workspace.run(['plan', '--target', 'local']);
      expect(plan.code, `plan\n${describeRun(plan)}`).not.toBe(0);
      expect(plan.stdout + plan.stderr).toMatch(error);
      expect((await emulatorStats(shared.emulator.url)).writes, 'writes of plan').toBe(0);
    },
  );

  it('the same manifests, completed as the documents ask, validate', async () => {
    const workspace = await shared.workspace({ apiProfile: 'current' });
    const [s3, source, kafka] = REFUSED.map((each) => each.text);
    await workspace.write(
      'manifests/s3.yaml',
      (s3 ?? '').replace(
        '      format: JSONEachRow\n',
        '      format: JSONEachRow\n      url: https://bucket.s3.amazonaws.com/events/*.json\n',
      ),
    );
    await workspace.write('manifests/source.yaml', `${source ?? ''}  defaultTableSelectExpression: Timestamp, Body\n`);
    await workspace.write('manifests/kafka.yaml', (kafka ?? '').replace(', concurrency: 4', ''));
    expectExit(await workspace.run(['validate']), 0, 'validate');
  });
});
