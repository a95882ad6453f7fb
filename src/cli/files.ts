/**
 * Reading what the user names on the command line: files or stdin, with a size limit, as text,
 * and every failure (missing, a directory, unreadable, too big, binary) as a sentence naming the
 * file instead of a stack trace.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { YAML_LIMITS } from '../kube/manifests/yaml-source.ts';
import { UsageError } from './host-args.ts';

/** How much the CLI reads of each kind of file. */
export const FILE_LIMITS = {
  /** iptables-save text: kube-proxy with 10,000 Services writes about 20 MB. */
  rules: 64 * 1024 * 1024,
  /** Scenario and host files (YAML): the YAML reader's own limit. */
  yaml: YAML_LIMITS.maxChars,
};

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
    if (fstatSync(fd).isDirectory())
      throw new UsageError(`${label}: is a directory; give ${what} itself, not its directory`);
    // Read in chunks up to the limit: /dev/zero, a FIFO or a huge file never fills memory.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(1 << 20, limit + 1 - total));
      let n: number;
      try {
        n = readSync(fd, buf, 0, buf.length, null);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN') continue;
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
    return decodeText(Buffer.concat(chunks, total), label, what);
  } finally {
    if (path !== '-') closeSync(fd);
  }
}

function reason(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code ?? '';
  return REASONS[code] ?? (e as Error).message;
}

function decodeText(bytes: Buffer, label: string, what: string): string {
  const nul = bytes.indexOf(0);
  if (nul >= 0)
    throw new UsageError(
      `${label}: not a text file (byte 0 at offset ${nul}); ${what} is text, e.g. iptables-save output or YAML`,
    );
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`${label}: not UTF-8 text; save ${what} as UTF-8`);
  }
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}
