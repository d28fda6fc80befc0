/**
 * How V8 sizes this process's heap, chosen once by the size of the first load of manifests.
 *
 * - A load large enough to be parsed on worker threads (a model of 100,000 resources, hundreds of
 *   MiB, all alive to the end): by default V8 lets the heap grow to up to four times what survived
 *   the last full collection, and a plan of them spent that headroom on garbage (800 MiB RSS).
 *   Half as much again is enough: 570-577 MiB in five runs, for about 5 % more time in a few more
 *   full collections.
 * - Any smaller one: the young generation is kept at its starting size (1 MiB a semi-space)
 *   instead of growing to 16. Every plan of 10,000 resources ends with that space grown to its
 *   largest, 32 MiB that hold nothing alive, which a pod pays for as RSS; kept small it costs more
 *   scavenges of little each. In-sync plan of 10,000 resources: 146 MiB peak RSS against 169 (ten
 *   runs each), 2.13 s against 2.01 (median, within the run-to-run spread). At 100,000 the many
 *   more scavenges cost a quarter more time for no less memory, so the large loads keep it.
 */
import { setFlagsFromString } from 'node:v8';

let tuned = false;

/** Sets the heap's sizing for a load of `manifestBytes` (see above), for the rest of the process; the first call decides. */
export function tuneHeapFor(manifestBytes: number, largeLoadBytes: number): void {
  if (tuned) return;
  tuned = true;
  // Both are read by V8 as it runs: the growing factor at each full collection as it sets the next
  // limit, the semi-space's at each scavenge that would grow it.
  setFlagsFromString(manifestBytes >= largeLoadBytes ? '--heap-growing-percent=50' : '--semi-space-growth-factor=1');
}
