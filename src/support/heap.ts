/**
 * How V8 sizes this process's heap, by what the process is (`sizeHeapFor`, before its work) and
 * by how much it loads (`tuneHeapFor`).
 *
 * - A command that does its work and exits keeps its young generation at its starting size
 *   (1 MiB a semi-space) instead of letting it grow to 16: a plan of 10,000 resources ended with
 *   that space grown to its largest, 32 MiB that held nothing alive, which a pod pays for as RSS.
 *   Kept small it costs more scavenges of little each. In-sync plan of 10,000 resources: 157 MiB
 *   median peak RSS against 169 (ten runs each), 1.73 s against 2.01.
 * - A load parsed on worker threads (a model of 100,000 resources, hundreds of MiB, all alive to
 *   the end) lets the young generation grow again (kept small, the many more scavenges cost a
 *   quarter more time there for no less memory), and grows the heap by half of what survived the
 *   last full collection, not by up to four times: V8's default spent that headroom on garbage
 *   (800 MiB RSS; 570-577 MiB in five runs so, for about 5 % more time in a few more full
 *   collections).
 */
import { setFlagsFromString } from 'node:v8';

/** V8's own factor, by which a young generation that keeps filling up grows. */
const DEFAULT_SEMI_SPACE_GROWTH = 2;

/**
 * What a process is, as far as its heap goes: a command that does its work and exits, a daemon
 * that runs until stopped, or a server left to V8's defaults (the emulator).
 */
export type HeapUse = 'command' | 'daemon' | 'server';

let grown = false;

/** Sizes the heap for what the process is, before it starts its work. */
export function sizeHeapFor(use: HeapUse): void {
  // A daemon's young generation cannot be held small: its parse workers' isolates reset the
  // setting as they start. It keeps its old generation close instead: the heap after each full
  // collection, 49 MiB at 10,000 resources, grew to 150 MiB of garbage between two of them, and
  // its peak RSS over twelve resyncs fell from 284 to 257 MiB.
  if (use === 'daemon') setFlagsFromString('--heap-growing-percent=50');
  // Read by V8 at each scavenge that would grow the young generation.
  if (use === 'command') setFlagsFromString('--semi-space-growth-factor=1');
}

/** Sizes the heap for a load of `manifestBytes`: from `largeLoadBytes` on, for the rest of the process. */
export function tuneHeapFor(manifestBytes: number, largeLoadBytes: number): void {
  if (grown || manifestBytes < largeLoadBytes) return;
  grown = true;
  // The growing factor is read by V8 at each full collection as it sets the next limit.
  setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_SEMI_SPACE_GROWTH} --heap-growing-percent=50`);
}
