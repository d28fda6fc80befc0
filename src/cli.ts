#!/usr/bin/env node
/**
 * The CLI entry: parses the command line and maps outcomes to exit codes
 * (0 success, 1 error, 2 plan found changes). The only place that decides them.
 */
import { main } from './cli/main.js';

/**
 * How long a command that failed may linger before it is made to exit. A failed command has
 * nothing left to do, and each closes what it opened; should a handle still be open (a server, a
 * timer), the process must not stay up on it: in a pod, the exit is what gets it restarted.
 */
const FAILED_EXIT_MS = 300;

const exitCode = await main(process.argv);
process.exitCode = exitCode;
if (exitCode !== 0) setTimeout(() => process.exit(exitCode), FAILED_EXIT_MS).unref();
