/**
 * Processes inside the namespaces: listeners (one per host with listening sockets) and probe
 * agents (a client that connects on command). Both talk JSON lines over stdio.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { HostSpec } from '../engine/index.ts';
import type { Topology } from './topology.ts';

const AGENT_DIR = fileURLToPath(new URL('./agents/', import.meta.url));

/** A child process whose stdout is read line by line. */
export class LineProcess {
  readonly lines: string[] = [];
  private waiters: (() => void)[] = [];
  private buf = '';
  readonly child: ChildProcess;
  private exited = false;

  constructor(topo: Topology, ns: string, cmd: string, args: readonly string[]) {
    this.child = spawn('ip', ['netns', 'exec', ns, cmd, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    topo.children.add(this.child);
    this.child.stdout?.setEncoding('utf8');
    this.child.stdout?.on('data', (d: string) => {
      this.buf += d;
      const parts = this.buf.split('\n');
      this.buf = parts.pop() ?? '';
      this.lines.push(...parts);
      this.wake();
    });
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (d: string) => (this.stderr += d));
    this.child.on('exit', () => {
      this.exited = true;
      this.wake();
    });
    this.child.on('error', () => {
      this.exited = true;
      this.wake();
    });
  }

  stderr = '';

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves with the first line from index `from` on that satisfies `pred`, or null on timeout/exit. */
  async waitFor(
    pred: (line: string) => boolean,
    from: number,
    timeoutMs: number,
  ): Promise<{ line: string; index: number } | null> {
    const deadline = Date.now() + timeoutMs;
    for (let i = from; ;) {
      for (; i < this.lines.length; i++) {
        const l = this.lines[i] as string;
        if (pred(l)) return { line: l, index: i };
      }
      const left = deadline - Date.now();
      if (left <= 0 || this.exited) return null;
      await new Promise<void>((res) => {
        const t = setTimeout(res, left);
        this.waiters.push(() => {
          clearTimeout(t);
          res();
        });
      });
    }
  }

  send(line: string): void {
    this.child.stdin?.write(`${line}\n`);
  }

  stop(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

/** Starts the host's listeners (if any) and waits until every socket is bound. */
export async function startListeners(topo: Topology, host: HostSpec): Promise<LineProcess | null> {
  const ls = host.listeners ?? [];
  if (ls.length === 0) return null;
  const ns = topo.ns.get(host.name) as string;
  // Same default identity as the engine (host.ts): `${process}@${host}`.
  const specs = ls.map((l) => ({
    proto: l.proto,
    address: l.address,
    port: l.port,
    reply: l.reply ?? `${l.process}@${host.name}`,
  }));
  const p = new LineProcess(topo, ns, process.execPath, [
    `${AGENT_DIR}listener.mjs`,
    JSON.stringify(specs),
  ]);
  // Timing only: a lab starts one Node process per host at once, which on a loaded machine (two
  // shared cores, load 20 and more) takes well past 10 s.
  const r = await p.waitFor((l) => l.startsWith('{'), 0, 30000);
  if (!r || !r.line.includes('"ready"')) {
    p.stop();
    throw new Error(`listeners on ${host.name} did not start: ${r?.line ?? p.stderr}`);
  }
  return p;
}

export type AgentResult =
  | {
      readonly kind: 'answered';
      readonly reply: string;
      readonly srcSeen: string;
      readonly srcPortSeen: number;
      readonly dstSeen: string;
      readonly dstPortSeen: number;
      readonly local: string;
      readonly ms: number;
    }
  | {
      readonly kind: 'error';
      readonly code: string;
      /** Who sent the ICMP error, where the probe saw it (ping's `From ADDR`). */
      readonly from?: string;
      readonly local: string;
      readonly ms: number;
    }
  | {
      readonly kind: 'timeout';
      readonly connected: boolean;
      readonly local: string;
      readonly ms: number;
    }
  | {
      readonly kind: 'garbled';
      readonly text: string;
      readonly local: string;
      readonly ms: number;
    };

/** A client process in one namespace; probes run strictly one at a time. */
export class ProbeAgent {
  private readonly proc: LineProcess;
  private nextId = 1;

  constructor(topo: Topology, ns: string) {
    this.proc = new LineProcess(topo, ns, process.execPath, [`${AGENT_DIR}probe.mjs`]);
  }

  private async request(
    cmd: Record<string, unknown>,
    timeoutMs: number,
  ): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const from = this.proc.lines.length;
    this.proc.send(JSON.stringify({ ...cmd, id }));
    const r = await this.proc.waitFor((l) => l.startsWith(`{"id":${id},`), from, timeoutMs);
    if (!r)
      throw new Error(`probe agent did not answer ${JSON.stringify(cmd)}: ${this.proc.stderr}`);
    return JSON.parse(r.line) as Record<string, unknown>;
  }

  async probe(p: {
    proto: string;
    dst: string;
    dport: number;
    src?: string;
    sport: number;
    timeoutMs: number;
  }): Promise<AgentResult> {
    const r = await this.request({ op: 'probe', ...p }, p.timeoutMs + 5000);
    return r as unknown as AgentResult;
  }

  /** Sends a marker datagram the trace monitor of this namespace can recognise. */
  async mark(port: number): Promise<void> {
    // The first mark also waits for the agent's Node process to start: on a loaded machine that
    // alone takes more than 5 s (timing only; a marker that is never seen still fails the lab).
    await this.request({ op: 'mark', port }, 30000);
  }

  stop(): void {
    this.proc.stop();
  }
}
