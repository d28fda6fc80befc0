/**
 * Output piped into a reader that stops early (`stacksync --help | head -1`): the reader closes
 * the pipe, and the next write fails with EPIPE, which Node raises as an unhandled 'error' event
 * (a stack trace and exit 1). Unix tools end quietly there, and so does stacksync: what is left
 * to write is dropped, and the command ends as it would have, with its own exit status. It does
 * not exit at once, so an apply whose output nobody reads still finishes and records its writes.
 */

/** Makes `stream` drop its writes, quietly, once its reader has gone. */
export function dropOutputOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    stream.write = dropWrite as typeof stream.write;
  });
}

function dropWrite(_chunk: unknown, encodingOrDone?: unknown, done?: unknown): boolean {
  const callback = typeof encodingOrDone === 'function' ? encodingOrDone : done;
  if (typeof callback === 'function') queueMicrotask(() => (callback as () => void)());
  return true;
}
