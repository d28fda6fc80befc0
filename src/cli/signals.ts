/** SIGTERM/SIGINT for one-shot commands: the first asks to stop cleanly, a second exits 1 at once. */
export function onTermination(stop: () => void, exit: (code: number) => never = process.exit): () => void {
  let signalled = false;
  const handler = (): void => {
    if (signalled) exit(1);
    signalled = true;
    stop();
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
  return () => {
    process.off('SIGTERM', handler);
    process.off('SIGINT', handler);
  };
}
