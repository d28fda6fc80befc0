// Preloaded into a measured child (`node --import …/report-rss.mjs dist/cli.js …`): at exit it
// writes the process's peak RSS (KiB, from getrusage) to the file named by BENCH_RSS_FILE.
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
