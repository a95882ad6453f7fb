/**
 * Thin wrappers around `ip netns`, `ip -batch` and friends, plus the per-run namespace prefix.
 * Node-only: this folder never reaches the browser bundle.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Every namespace this process creates starts with this; the pid makes stale ones recognisable. */
export const RUN_PREFIX = `hp${process.pid}`;
const PREFIX_RE = /^hp(\d+)[-s]/;

export class CommandError extends Error {
  constructor(
    readonly command: string,
    readonly stderr: string,
  ) {
    super(`${command}: ${stderr.trim()}`);
  }
}

/** Runs a command to completion (bounded), returns stdout, throws with stderr on failure. */
export function run(
  cmd: string,
  args: readonly string[],
  input?: string,
  timeoutMs = 15000,
): string {
  const r = spawnSync(cmd, args, { input: input ?? '', encoding: 'utf8', timeout: timeoutMs });
  if (r.error) throw new CommandError(`${cmd} ${args.join(' ')}`, String(r.error));
  if (r.status !== 0) throw new CommandError(`${cmd} ${args.join(' ')}`, r.stderr || r.stdout);
  return r.stdout;
}

/** Runs a command inside network namespace `ns`. */
export function nsRun(ns: string, cmd: string, args: readonly string[], input?: string): string {
  return run('ip', ['netns', 'exec', ns, cmd, ...args], input);
}

/** Runs many `ip` commands inside `ns` in one process (`ip -n NS -batch -`); `-force` reports all errors. */
export function ipBatch(ns: string, lines: readonly string[]): void {
  if (lines.length === 0) return;
  run('ip', ['-n', ns, '-batch', '-'], `${lines.join('\n')}\n`);
}

export function listNamespaces(): string[] {
  const out = run('ip', ['netns', 'list']);
  return out
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter((n) => n !== '');
}

export function deleteNamespace(ns: string): void {
  deleteNamespaces([ns]);
}

/** Deletes namespaces in one `ip -force -batch` (missing ones are skipped, never fatal). */
export function deleteNamespaces(names: readonly string[]): void {
  if (names.length === 0) return;
  const input = `${names.map((n) => `netns del ${n}`).join('\n')}\n`;
  spawnSync('ip', ['-force', '-batch', '-'], { input, timeout: 20000 });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Deletes namespaces left by earlier runs that died without teardown. Only names whose pid is
 * no longer alive: a concurrent run by another test process keeps its own.
 */
export function deleteStaleNamespaces(): string[] {
  const removed: string[] = [];
  for (const ns of listNamespaces()) {
    const m = PREFIX_RE.exec(ns);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || alive(pid)) continue;
    // A run killed with SIGKILL leaves its listeners and monitors inside: they would keep the
    // namespace alive after `ip netns del`. They are ours (started by that run), by pid.
    for (const p of run('ip', ['netns', 'pids', ns])
      .split('\n')
      .filter((x) => /^\d+$/.test(x))) {
      try {
        process.kill(Number(p), 'SIGKILL');
      } catch {
        // already gone
      }
    }
    removed.push(ns);
  }
  deleteNamespaces(removed);
  return removed;
}

/** Netns names are file names under /run/netns: keep them short and shell-safe. */
export function sanitize(name: string, max: number): string {
  const s = name.replace(/[^A-Za-z0-9_.-]/g, '_');
  return s.length > max ? s.slice(0, max) : s;
}

export interface KernelSupport {
  readonly ok: boolean;
  readonly reason: string;
}

let cachedSupport: KernelSupport | null = null;

/**
 * Can this process build namespaces, veths, bridges and load iptables-nft rules? Tries it for
 * real in a throwaway namespace, because "uid 0" alone says nothing inside a container.
 */
export function kernelSupport(): KernelSupport {
  if (cachedSupport) return cachedSupport;
  cachedSupport = probeSupport();
  return cachedSupport;
}

function probeSupport(): KernelSupport {
  if (process.platform !== 'linux')
    return { ok: false, reason: `platform is ${process.platform}, not linux` };
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    return { ok: false, reason: `not root (uid ${process.getuid()})` };
  }
  // Every program the suite runs (.ci/tools lists them with their packages): a missing one is
  // named here instead of failing later as "exec of conntrack failed".
  for (const tool of [
    'ip',
    'iptables',
    'iptables-restore',
    'ip6tables-restore',
    'xtables-monitor',
    'nft',
    'ipset',
    'conntrack',
    'sysctl',
    'stdbuf',
  ]) {
    const found = ['/usr/sbin', '/sbin', '/usr/bin', '/bin'].some((d) =>
      existsSync(`${d}/${tool}`),
    );
    if (!found) return { ok: false, reason: `${tool} is not installed` };
  }
  const ns = `${RUN_PREFIX}-check`;
  try {
    run('ip', ['netns', 'add', ns]);
    run('ip', ['-n', ns, 'link', 'add', 'hpa', 'type', 'veth', 'peer', 'name', 'hpb']);
    run('ip', ['-n', ns, 'link', 'add', 'hpbr', 'type', 'bridge']);
    nsRun(ns, 'iptables-restore', [], '*filter\n:INPUT ACCEPT [0:0]\nCOMMIT\n');
    const v = execFileSync('iptables', ['-V'], { encoding: 'utf8' });
    if (!v.includes('nf_tables'))
      return { ok: false, reason: `iptables is not the nf_tables backend (${v.trim()})` };
    return { ok: true, reason: '' };
  } catch (e) {
    return { ok: false, reason: e instanceof Error ? e.message : String(e) };
  } finally {
    deleteNamespace(ns);
  }
}
