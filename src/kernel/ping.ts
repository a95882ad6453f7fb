/**
 * ICMP echo probes on the kernel: iputils' `ping` (Debian iputils-ping) run in the sender's
 * namespace, one echo request with a bounded wait, its output read back as an AgentResult.
 * No agent is needed: ping's own output says whether an echo reply came back (and from which
 * address) or which ICMP error did (and from whom).
 */
import { spawn } from 'node:child_process';
import type { AgentResult } from './agents.ts';
import type { Topology } from './topology.ts';

/** ping's payload (`-s`) and the IP length of its request and of the echo reply: 20 + 8 + 56. */
const PAYLOAD = 56;
export const ECHO_LEN = 20 + 8 + PAYLOAD;

export interface PingRequest {
  readonly dst: string;
  /** The ICMP echo identifier (`ping -e`), so the engine can replay the same "tuple". */
  readonly id: number;
  readonly timeoutMs: number;
  readonly src?: string;
}

/**
 * ping's words for an ICMP destination-unreachable code (iputils ping/ping.c pr_icmph) and the
 * errno a connected socket would get for it (net/ipv4/icmp.c icmp_err_convert), as verdict.ts
 * maps the engine's refusals.
 */
const ERRORS: readonly (readonly [RegExp, string])[] = [
  [/Destination Port Unreachable/, 'ECONNREFUSED'],
  [/Destination Net Unreachable/, 'ENETUNREACH'],
  [/Destination Host Unreachable/, 'EHOSTUNREACH'],
  [/Destination Net Prohibited/, 'ENETUNREACH'],
  [/Destination Host Prohibited/, 'EHOSTUNREACH'],
  [/Packet filtered/, 'EHOSTUNREACH'],
];

/** Local send failures ping reports (`ping: connect: Network is unreachable`, sendmsg errors). */
const LOCAL: readonly (readonly [RegExp, string])[] = [
  [/Network is unreachable/, 'ENETUNREACH'],
  [/No route to host/, 'EHOSTUNREACH'],
  [/Operation not permitted/, 'EPERM'],
  [/Invalid argument/, 'EINVAL'],
  [/Permission denied/, 'EACCES'],
];

/** Reads ping's output (`-n`, one request) as the probe agent's result. */
export function parsePing(out: string, req: PingRequest, ms: number): AgentResult {
  const local = req.src ?? '';
  const reply = /^\d+ bytes from ([0-9.]+): icmp_seq=\d+/m.exec(out);
  if (reply) {
    const from = reply[1] as string;
    // ping accepts only replies with its identifier: the id (the engine's "port") came back.
    return {
      kind: 'answered',
      reply: `echo-reply from ${from}`,
      srcSeen: '',
      srcPortSeen: req.id,
      dstSeen: from,
      dstPortSeen: req.id,
      local,
      ms,
    };
  }
  const err = /^From ([0-9.]+)(?: icmp_seq=\d+)? (.*)$/m.exec(out);
  if (err) {
    const code = ERRORS.find(([re]) => re.test(err[2] as string))?.[1];
    return {
      kind: 'error',
      code: code ?? `ICMP ${err[2] as string}`,
      from: err[1] as string,
      local,
      ms,
    };
  }
  const loc = LOCAL.find(([re]) => re.test(out))?.[1];
  if (loc) return { kind: 'error', code: loc, local, ms };
  if (/ 0 received/.test(out)) return { kind: 'timeout', connected: false, local, ms };
  return { kind: 'garbled', text: out.trim().split('\n').slice(-3).join(' / '), local, ms };
}

/**
 * Sends one echo request from namespace `ns` and waits at most `timeoutMs` for its answer
 * (`-W`, whole seconds; a kill 2 s after that bounds it in case ping itself hangs). Asynchronous: the trace monitors keep being read meanwhile.
 */
export function ping(topo: Topology, ns: string, req: PingRequest): Promise<AgentResult> {
  const secs = Math.max(1, Math.ceil(req.timeoutMs / 1000));
  // No `-w`: with a deadline ping counts replies, not requests, and sends one a second until then.
  const opts = ['-n', '-c', '1', '-s', `${PAYLOAD}`, '-W', `${secs}`, '-e', `${req.id}`];
  if (req.src) opts.push('-I', req.src);
  const start = Date.now();
  return new Promise((resolve) => {
    const child = spawn('ip', ['netns', 'exec', ns, 'ping', ...opts, req.dst], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    topo.children.add(child);
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    const kill = setTimeout(() => child.kill('SIGKILL'), secs * 1000 + 2000);
    const done = () => {
      clearTimeout(kill);
      topo.children.delete(child);
      resolve(parsePing(out, req, Date.now() - start));
    };
    child.on('close', done);
    child.on('error', (e) => {
      out += `\n${e.message}`;
    });
  });
}
