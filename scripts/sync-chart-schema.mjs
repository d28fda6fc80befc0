#!/usr/bin/env node
// Copies the config schema's target and sync definitions (schemas/config.json) into the Helm
// chart's values.schema.json, under config.targets.items and config.sync. A chart cannot $ref a
// file outside itself, and Helm must refuse a misspelt value such as config.sync.prun at install,
// so the chart keeps copies; test/helm/schema.test.ts fails when they differ from the original.
//
//   npm run build && node scripts/sync-chart-schema.mjs   (the build writes schemas/config.json; after
//   a change to the config's targets or sync)
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const configUrl = new URL('../schemas/config.json', import.meta.url);
const chartUrl = new URL('../helm/stacksync/values.schema.json', import.meta.url);

if (!existsSync(configUrl)) {
  console.error('schemas/config.json is missing: run `npm run build` first, which writes schemas/');
  process.exit(1);
}
const config = JSON.parse(readFileSync(configUrl, 'utf8'));
const chart = JSON.parse(readFileSync(chartUrl, 'utf8'));
const chartConfig = chart.properties.config.properties;
chartConfig.targets.items = config.properties.targets.items;
chartConfig.sync = config.properties.sync;
writeFileSync(chartUrl, `${JSON.stringify(chart, null, 2)}\n`);
console.log('wrote helm/stacksync/values.schema.json (config.targets.items, config.sync from schemas/config.json)');
