/**
 * Reading what the user names on the command line: files or stdin, with a size limit, as text,
 * and every failure (missing, a directory, unreadable, too big, binary) as a sentence naming the
 * file instead of a stack trace. No dependency beyond Node: the bench's parse entry reads its
 * rules file with this too, so its figure is the CLI's rule-file path.
 */
import { isAscii } from 'node:buffer';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { UsageError } from './input-error.ts';

/** How much of an iptables-save file is read: kube-proxy with 10,000 Services writes about 20 MB. */
export const RULES_LIMIT = 64 * 1024 * 1024;

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(bytes < 1024 * 1024 ? 2 : 0)} MB`;
}

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the name is too long',
  EISDIR: 'is a directory, not a file',
  EMFILE: 'too many open files',
  EIO: 'input/output error',
};

/**
 * Reads `path` (`-` for stdin) as UTF-8 text of at most `limit` bytes. `what` names the file in
 * messages: "the rules file", "the scenario".
 */
export function readInput(path: string, what: string, limit: number): string {
  const label = path === '-' ? 'stdin' : path;
  if (path === '') throw new UsageError(`give ${what} (an empty name was given)`);
  let fd: number;
  try {
    fd = path === '-' ? 0 : openSync(path, 'r');
  } catch (e) {
    throw new UsageError(`${label}: ${reason(e)} (${what})`);
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory())
      throw new UsageError(`${label}: is a directory; give ${what} itself, not its directory`);
    // Read in chunks up to the limit: /dev/zero, a FIFO or a huge file never fills memory. A
    // regular file is read in one chunk of its size (plus one byte, to see that it ended), so a
    // 20 MB dump is not copied again to join chunks.
    const first = st.isFile() ? st.size + 1 : 1 << 20;
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(chunks.length ? 1 << 20 : first, limit + 1 - total));
      let n: number;
      try {
        n = readSync(fd, buf, 0, buf.length, null);
      } catch (e) {
        // A non-blocking stdin (a pipe another Node process set up) says EAGAIN until data
        // comes: wait, as a blocking read would, instead of spinning a core at 100 %.
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN') {
          pause(EAGAIN_WAIT_MS);
          continue;
        }
        throw new UsageError(`${label}: ${reason(e)} (${what})`);
      }
      if (n === 0) break;
      chunks.push(buf.subarray(0, n));
      total += n;
      if (total > limit)
        throw new UsageError(
          `${label}: ${what} is larger than ${mb(limit)}, the most hookpath reads; is it the right file?`,
        );
    }
    const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
    return decodeText(bytes, label, what);
  } finally {
    if (path !== '-') closeSync(fd);
  }
}

/** How long a read of a non-blocking stdin waits before it tries again. */
const EAGAIN_WAIT_MS = 10;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocks this thread for `ms` milliseconds without using the CPU (the CLI is synchronous). */
function pause(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

function reason(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code ?? '';
  return REASONS[code] ?? (e as Error).message;
}

function decodeText(bytes: Buffer, label: string, what: string): string {
  const notText = (nul: number) =>
    new UsageError(
      `${label}: not a text file (byte 0 at offset ${nul}); ${what} is text, e.g. iptables-save output or YAML`,
    );
  // iptables-save output is nearly always ASCII, which is UTF-8 as it is (no BOM, nothing to
  // check): copied into a one-byte string it costs a third of decoding it as UTF-8 (V8's decoder
  // took 0.2 s of a 20 MB dump's 1.8 s load; isAscii is simdutf's check). The string is then
  // searched for NUL: Buffer's first indexOf took 19 ms of an 18 MB dump's load, the string's 1.
  if (isAscii(bytes)) {
    const ascii = bytes.toString('latin1');
    const nul = ascii.indexOf('\0');
    if (nul >= 0) throw notText(nul);
    return ascii;
  }
  const nul = bytes.indexOf(0);
  if (nul >= 0) throw notText(nul);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`${label}: not UTF-8 text; save ${what} as UTF-8`);
  }
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}
