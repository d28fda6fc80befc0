/**
 * Timers that keep their word for long waits. Node (like browsers) holds a delay in a signed
 * 32-bit field: anything above 2^31−1 ms (24.8 days) fires at once, with only a warning, and a
 * periodic resync set to 30 days became a hot loop. These arm such a wait in steps.
 */

/** The longest delay `setTimeout` honours. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export interface LongTimeout {
  clear(): void;
}

/**
 * Calls `callback` once after `ms`, however long that is (in steps of at most {@link MAX_TIMER_MS}).
 * Uses the global `setTimeout` at each step, so fake timers control it. A negative delay is 0;
 * NaN is a bug and throws rather than firing at once. `unref`: do not keep the process alive.
 */
export function setLongTimeout(callback: () => void, ms: number, options: { unref?: boolean } = {}): LongTimeout {
  if (Number.isNaN(ms)) throw new RangeError('a timer delay is NaN');
  let remaining = Math.max(0, ms);
  let handle: NodeJS.Timeout | undefined;
  const arm = (): void => {
    const step = Math.min(remaining, MAX_TIMER_MS);
    remaining -= step;
    handle = setTimeout(() => (remaining > 0 ? arm() : callback()), step);
    if (options.unref) handle.unref?.();
  };
  arm();
  return { clear: () => clearTimeout(handle) };
}
