/**
 * How far V8 lets this process's heap grow between full collections. By default it allows up to
 * four times what survived the last one, and a command that builds a model of 100,000 resources
 * (hundreds of MiB, all alive to the end) spent that headroom on garbage: a plan of them peaked at
 * 800 MiB RSS. Half as much again is enough there: 570-577 MiB in five runs, for about 5 % more
 * time in a few more full collections (twice as much: 563-686 MiB, as the last collection fell).
 * At 10,000 resources the default is better (the factor fixed there cost 3 MiB and some time), so
 * only loads large enough to be parsed on worker threads ask for it.
 */
import { setFlagsFromString } from 'node:v8';

let asked = false;

/** Fixes the heap's growth between full collections at half of what survived, for the rest of the process. */
export function growHeapModestly(): void {
  if (asked) return;
  asked = true;
  // Read by V8 at each full collection as it sets the next limit, so it takes effect from the next one.
  setFlagsFromString('--heap-growing-percent=50');
}
