/**
 * How V8 sizes this process's heap, by what the process is (`sizeHeapFor`, before its work) and
 * by how much it loads (`tuneHeapFor`).
 *
 * - A pass that reads and reports (plan, validate, export) keeps its young generation at its
 *   starting size (1 MiB a semi-space) instead of letting it grow to 16: a plan of 10,000
 *   resources ended with that space grown to its largest, 32 MiB that held nothing alive, which a
 *   pod or a CI runner pays for as RSS. Kept small it costs more scavenges of little each.
 *   In-sync plan of 10,000 resources: 146 MiB median peak RSS against 165 (eight runs each), in
 *   the same time. Any other command holds it at the size it has reached once its manifests are
 *   read; the daemon keeps its old generation close instead (see `sizeHeapFor`).
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
 * What a process is, as far as its heap goes: one pass that reads and reports (plan, validate,
 * export), a daemon that runs until stopped, or anything else (an apply, the emulator), left to
 * V8's defaults.
 */
export type HeapUse = 'pass' | 'daemon' | 'default';

let tuned = false;

/** Sizes the heap for what the process is, before it starts its work. */
export function sizeHeapFor(use: HeapUse): void {
  // Read by V8 at each scavenge that would grow the young generation. Only for a pass: what it
  // allocates dies young. An apply holds its changes in flight for seconds, and a young
  // generation kept small promoted them all (first apply of 30,000 resources: 458-485 MiB peak
  // RSS against 395-414).
  if (use === 'pass') setFlagsFromString('--semi-space-growth-factor=1');
  // A daemon's young generation cannot be held small: its parse workers' isolates reset the
  // setting as they start. It keeps its old generation within twice what survived the last full
  // collection instead of up to four times: the heap after each, 49 MiB at 10,000 resources, grew
  // to 150 MiB of garbage before the next, and its peak RSS over twelve resyncs fell from 284 to
  // 262 MiB (257 at half again, for more full collections in the syncs a person waits on).
  if (use === 'daemon') setFlagsFromString('--heap-growing-percent=100');
}

/**
 * Sizes the heap for a load of `manifestBytes`, for the rest of the process; the first load
 * decides. Below `largeLoadBytes` the young generation stops growing at the size it has reached by
 * then (an apply's starts it with the live reads, which it needs: held at its starting size from
 * the start, its changes in flight were promoted, see above). From it on, the young generation
 * grows again and the heap by half of what survived the last full collection.
 */
export function tuneHeapFor(manifestBytes: number, largeLoadBytes: number): void {
  if (tuned) return;
  tuned = true;
  // The growing factor is read by V8 at each full collection as it sets the next limit.
  setFlagsFromString(
    manifestBytes >= largeLoadBytes
      ? `--semi-space-growth-factor=${DEFAULT_SEMI_SPACE_GROWTH} --heap-growing-percent=50`
      : '--semi-space-growth-factor=1',
  );
}
