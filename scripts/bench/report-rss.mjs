// Preloaded into a measured child (`node --import …/report-rss.mjs dist/cli.js …`): at exit it
// writes the process's peak RSS (KiB, from getrusage) to the file named by BENCH_RSS_FILE, and on
// a second line the CPU time it took (user + system, microseconds, every thread): what a run costs
// whatever else the machine is doing, where wall time depends on it.
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_RSS_FILE;
if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(file, `${usage.maxRSS}\n${usage.userCPUTime + usage.systemCPUTime}`);
  });
}
