import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** The package version, read once from package.json beside dist/ or src/. */
export function packageVersion(): string {
  cached ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
  return cached;
}
