// A stand-in for the `gh api` calls of the example workflow's comment step. Listing comments
// prints FAKE_GH_COMMENT_IDS (the ids the real call's --jq filter would select); a PATCH or POST
// records its method, path and body (the file named by `-F body=@FILE`) in FAKE_GH_LOG as JSON lines.
import { appendFileSync, readFileSync } from 'node:fs';

const args = process.argv.slice(2);
if (args[0] !== 'api') {
  process.stderr.write(`stand-in gh knows only "api", not ${args[0]}\n`);
  process.exit(2);
}
const method = args.includes('--method') ? args[args.indexOf('--method') + 1] : 'GET';
const path = args
  .slice(1)
  .find((arg, index, all) => !arg.startsWith('-') && !['--method', '--jq', '-F'].includes(all[index - 1] ?? ''));
if (method === 'GET') {
  if (process.env.FAKE_GH_COMMENT_IDS) console.log(process.env.FAKE_GH_COMMENT_IDS);
} else {
  const field = args[args.indexOf('-F') + 1] ?? '';
  const body = field.startsWith('body=@') ? readFileSync(field.slice('body=@'.length), 'utf8') : undefined;
  appendFileSync(process.env.FAKE_GH_LOG, `${JSON.stringify({ method, path, body })}\n`);
  console.log('{}');
}
