#!/usr/bin/env node
/**
 * The CLI entry: parses the command line and maps outcomes to exit codes
 * (0 success, 1 error, 2 plan found changes). The only place that decides them.
 */
import { main } from './cli/main.js';

process.exitCode = await main(process.argv);
