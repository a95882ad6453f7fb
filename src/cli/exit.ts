/**
 * Ends the process once its output is written, instead of letting Node tear the heap down
 * first: after a 20 MB dump that teardown took ~30 ms, 3 % of the whole command. One turn of
 * the event loop later, so that a closed pipe's EPIPE (reported on the next tick) still ends
 * with 141 (main.ts). Output still queued (a terminal or pipe that takes it asynchronously) is
 * left to drain: the process then ends as it would have. The exit code is `process.exitCode`.
 */
export function exitWhenWritten(): void {
  setImmediate(() => {
    if (process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit();
  });
}
