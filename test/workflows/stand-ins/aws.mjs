// A stand-in for the AWS CLI's S3 calls the example workflow makes, over a directory
// (FAKE_S3_DIR/<bucket>/<key>), with S3's answers: ETags are quoted MD5s, get-object of a missing
// key and a conditional put-object whose condition fails are errors. FAKE_AWS_FAIL=1 makes every
// call fail as an unreachable endpoint would. Each call is appended to FAKE_AWS_LOG.
import { createHash } from 'node:crypto';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const [service, command, ...rest] = process.argv.slice(2);
if (process.env.FAKE_AWS_LOG) appendFileSync(process.env.FAKE_AWS_LOG, `${[service, command, ...rest].join(' ')}\n`);

function fail(message, code = 254) {
  process.stderr.write(`\nAn error occurred ${message}\n`);
  process.exit(code);
}

if (process.env.FAKE_AWS_FAIL) fail('(EndpointConnectionError): Could not connect to the endpoint URL', 255);
if (service !== 's3api') fail(`: stand-in knows only s3api, not ${service}`, 2);

const flags = {};
const positional = [];
for (let i = 0; i < rest.length; i++) {
  if (rest[i].startsWith('--')) flags[rest[i].slice(2)] = rest[++i];
  else positional.push(rest[i]);
}
const bucket = join(process.env.FAKE_S3_DIR, flags.bucket);
if (!existsSync(bucket)) fail('(NoSuchBucket) when calling the operation: The specified bucket does not exist');
const etagOf = (path) => `"${createHash('md5').update(readFileSync(path)).digest('hex')}"`;

function keysUnder(dir) {
  return readdirSync(dir, { recursive: true })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => relative(bucket, path));
}

switch (command) {
  case 'list-objects-v2': {
    if (flags.query !== 'KeyCount') fail(': stand-in lists only with --query KeyCount', 2);
    console.log(keysUnder(bucket).filter((key) => key.startsWith(flags.prefix ?? '')).length);
    break;
  }
  case 'get-object': {
    const path = join(bucket, flags.key);
    if (!existsSync(path)) fail('(NoSuchKey) when calling the GetObject operation: The specified key does not exist.');
    copyFileSync(path, positional[0]);
    console.log(flags.query === 'ETag' ? etagOf(path) : JSON.stringify({ ETag: etagOf(path) }));
    break;
  }
  case 'put-object': {
    const path = join(bucket, flags.key);
    if (flags['if-none-match'] === '*' && existsSync(path)) fail('(PreconditionFailed) when calling the PutObject operation: At least one of the pre-conditions you specified did not hold');
    if (flags['if-match'] !== undefined && (!existsSync(path) || etagOf(path).replaceAll('"', '') !== flags['if-match'].replaceAll('"', ''))) {
      fail('(PreconditionFailed) when calling the PutObject operation: At least one of the pre-conditions you specified did not hold');
    }
    mkdirSync(dirname(path), { recursive: true });
    copyFileSync(flags.body, path);
    console.log(JSON.stringify({ ETag: etagOf(path) }));
    break;
  }
  default:
    fail(`: stand-in does not know s3api ${command}`, 2);
}
