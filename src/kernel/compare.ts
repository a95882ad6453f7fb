/**
 * Puts a kernel probe and the engine's prediction side by side: outcome (who answered, or
 * refused / timeout), the source address the listener saw, and per host the sequence of
 * `table:chain:rule:N:VERDICT` events for the first packet and for the first reply.
 */
import {
  buildNetwork,
  enumerateOutcomes,
  xtablesNotation,
  type NetworkSpec,
  type NetworkState,
  type Outcome,
  type ProbeSpec,
  type Simulation,
  type TraceEvent,
} from '../engine/index.ts';
import { scriptedChooser } from '../engine/choice.ts';
import { runProbe } from '../engine/network.ts';
import { engineVerdict, kernelVerdict, verdictText, type Verdict } from './verdict.ts';
import { kernelNotation, type HandleMap, type KernelBlock } from './kernel-trace.ts';
import { engineNftSequence, nftKernelNotation } from './nft-trace.ts';
import type { KernelLab, KernelProbe, KernelProbeResult } from './lab.ts';
import { ECHO_LEN } from './ping.ts';

const TCP_FLAGS = ['SYN', 'ACK', 'RST', 'FIN', 'PSH', 'URG'];

function isTcp(b: KernelBlock): boolean {
  return b.fields.SPORT !== undefined && TCP_FLAGS.some((f) => b.flags.has(f));
}

/**
 * xtables-monitor prints no protocol: a packet without ports is taken for an ICMP error, unless
 * it is multicast or broadcast from nowhere (IGMP reports of a bridge joining its groups). nft's
 * monitor names the ICMP type: a redirect (a node forwarding a DNATed packet back out of the
 * interface it came in on tells the sender so, net/ipv4/ip_forward.c) answers nothing.
 */
function isIcmpError(b: KernelBlock): boolean {
  const dst = b.fields.DST ?? '';
  const first = Number(dst.split('.')[0]);
  return (
    b.fields.SPORT === undefined &&
    b.fields.ICMPTYPE !== 'redirect' &&
    b.fields.SRC !== '0.0.0.0' &&
    !(first >= 224 && first <= 239) &&
    dst !== '255.255.255.255'
  );
}

/**
 * The blocks of the probe's first packet and of the first packet answering it. A packet is
 * recognised across hooks and hosts by its IP ID, which neither forwarding nor NAT changes; a
 * retransmitted SYN gets a new ID and is left out (the engine sends the first packet once).
 */
export function selectPackets(
  blocks: readonly KernelBlock[],
  probe: KernelProbeResult['probe'],
  earlierPorts: ReadonlySet<number> = new Set(),
): { first: KernelBlock[]; reply: KernelBlock[] } {
  if (probe.proto === 'icmp') return selectEcho((pred) => pickBy(blocks, pred));
  const sport = String(probe.sport);
  const isFirst = (b: KernelBlock) =>
    probe.proto === 'tcp'
      ? isTcp(b) && b.flags.has('SYN') && !b.flags.has('ACK')
      : !isTcp(b) && b.fields.SPORT === sport;
  const first = pick(isFirst);
  // A late packet of an earlier probe's connection (a client's RST after the rules changed, a
  // pod still retransmitting its SYN-ACK) must not pass for the answer. The answer goes to the
  // probe's own source port (every probe of a lab has its own), or, where the first packet was
  // seen and translated, comes from one of the ports it was sent to; never to an earlier
  // probe's port. A host that never saw the first packet (a node the SYN bypassed, on the
  // reply's way back) sees the answer un-NATed, to the probe's port.
  const sentTo = new Set(first.map((b) => b.fields.DPORT));
  const ours = (b: KernelBlock) =>
    b.fields.DPORT === sport ||
    (sentTo.has(b.fields.SPORT) && !earlierPorts.has(Number(b.fields.DPORT)));
  // ip_forward sends an ICMP redirect (the packet leaves by the interface it came in on) before
  // the FORWARD hook, so the first packet goes on after it: FORWARD, POSTROUTING. A REJECT's ICMP
  // error is followed by nothing of the first packet but the REJECTing rule's own event (a DROP).
  const isRedirect = (b: KernelBlock) => {
    const after = first.filter((f) => f.line > b.line);
    const last = after[0]?.events[after[0].events.length - 1];
    return after.length >= 2 || (after.length === 1 && last?.verdict !== 'DROP');
  };
  const isReply = (b: KernelBlock) =>
    (isIcmpError(b) && !isRedirect(b)) ||
    (ours(b) &&
      (probe.proto === 'tcp'
        ? isTcp(b) && (b.flags.has('RST') || (b.flags.has('SYN') && b.flags.has('ACK')))
        : !isTcp(b) && b.fields.DPORT === sport));
  return { first, reply: pick(isReply) };

  function pick(pred: (b: KernelBlock) => boolean): KernelBlock[] {
    return pickBy(blocks, pred);
  }
}

/**
 * An echo probe's packets carry no ports. nft's monitor names the ICMP type (echo-request, then
 * echo-reply or destination-unreachable); xtables-monitor does not, so there the length tells:
 * ping's request and the echo reply are ECHO_LEN bytes, an ICMP error quotes the request and is
 * longer. (A REJECT's error is traced before the REJECTing rule's event, so order alone would
 * not do.) The first echo-sized packet a host sees is taken for the request, and the first other
 * one going the other way for its answer; a host the request bypassed but the echo reply crosses
 * would be misread that way: no scenario has one.
 */
function selectEcho(pick: (pred: (b: KernelBlock) => boolean) => KernelBlock[]): {
  first: KernelBlock[];
  reply: KernelBlock[];
} {
  const portless = (b: KernelBlock) =>
    b.fields.SPORT === undefined && (isIcmpError(b) || b.fields.ICMPTYPE === 'echo-reply');
  const type = (b: KernelBlock) =>
    b.fields.ICMPTYPE ?? (b.fields.LEN === String(ECHO_LEN) ? 'echo' : 'error');
  const first = pick((b) => portless(b) && ['echo', 'echo-request'].includes(type(b)));
  const head = first[0]?.fields;
  // Another request of the same flow (a second echo) is no answer: the answer goes the other way.
  const again = (b: KernelBlock) =>
    b.fields.ID === head?.ID || (b.fields.SRC === head?.SRC && b.fields.DST === head?.DST);
  const reply = pick((b) => portless(b) && type(b) !== 'echo-request' && !again(b));
  return { first, reply };
}

function pickBy(blocks: readonly KernelBlock[], pred: (b: KernelBlock) => boolean): KernelBlock[] {
  const head = blocks.find(pred);
  if (!head) return [];
  // SYN-ACKs and RSTs all carry IP ID 0: a retransmission shows up as the same base chain
  // run again, and ends the packet's first pass.
  const out: KernelBlock[] = [];
  const seen = new Set<string>();
  for (const b of blocks) {
    if (!pred(b) || b.fields.ID !== head.fields.ID) continue;
    const e = b.events[0];
    if (e) {
      const key = `${e.table}:${e.chain}:${b.fields.IN ?? ''}>${b.fields.OUT ?? ''}`;
      if (seen.has(key)) break;
      seen.add(key);
    }
    out.push(b);
  }
  return out;
}

export function kernelSequence(blocks: readonly KernelBlock[], handles: HandleMap): string[] {
  return blocks.flatMap((b) => b.events.map((e) => kernelNotation(e, handles)));
}

export interface EngineSequence {
  readonly seq: string[];
  /** Engine events the kernel cannot show, and why (left out of `seq`). */
  readonly skipped: string[];
}

/**
 * The engine's rule events for one packet on one host, as the kernel reports them:
 * - no `return` events at the end of a user chain: nf_tables (Linux 6.x) traces nothing when
 *   a chain runs out of rules, only the caller's next rule (explicit `-j RETURN` rules stay);
 * - no policy event for a built-in chain the dump did not declare (engine `implicit`) when the
 *   kernel does not have it: iptables-nft creates only declared or used base chains.
 */
export function engineSequence(
  events: readonly TraceEvent[],
  host: string,
  packetId: number,
  handles: HandleMap,
): EngineSequence {
  const seq: string[] = [];
  const skipped: string[] = [];
  let implicit = false;
  for (const e of events) {
    if (e.host !== host || e.packetId !== packetId) continue;
    if (e.type === 'hook') implicit = e.implicit;
    const n = xtablesNotation(e);
    if (n === null) continue;
    if (e.type === 'return') skipped.push(`${n} (implicit end of chain)`);
    else if (e.type === 'policy' && implicit && !handles.chains.has(`${e.table}/${e.chain}`)) {
      skipped.push(`${n} (chain not declared, absent in iptables-nft)`);
    } else seq.push(n);
  }
  return { seq, skipped };
}

export interface TraceComparison {
  readonly host: string;
  readonly packet: 'first' | 'reply';
  readonly kernel: readonly string[];
  readonly engine: readonly string[];
  readonly skipped: readonly string[];
}

export interface CrossCheck {
  readonly probe: KernelProbeResult['probe'];
  readonly kernel: Verdict;
  readonly engine: Verdict;
  /** Every outcome the engine thinks possible, with its probability. */
  readonly possible: readonly { readonly verdict: string; readonly probability: number }[];
  readonly raw: KernelProbeResult;
  /** The engine run compared (the one whose outcome is the kernel's, when there is one). */
  readonly run: Simulation;
  /** Every run the engine enumerated, with its choices (statistic and ECMP branches). */
  readonly runs: readonly Simulation[];
  readonly outcome: Outcome;
  readonly events: readonly TraceEvent[];
  readonly traces: readonly TraceComparison[];
}

/**
 * Kernel blocks against engine events, per traced host, for the first packet (engine packet 1)
 * and the first packet answering it (engine packet 2).
 */
export function compareTraces(
  handles: ReadonlyMap<string, HandleMap>,
  raw: KernelProbeResult,
  events: readonly TraceEvent[],
  monitor: 'xtables' | 'nft' = 'xtables',
): TraceComparison[] {
  const out: TraceComparison[] = [];
  for (const [host, blocks] of raw.traces) {
    const h = handles.get(host);
    if (!h) continue;
    const sel = selectPackets(blocks, raw.probe, raw.earlierPorts);
    for (const [packet, id] of [
      ['first', 1],
      ['reply', 2],
    ] as const) {
      const nft = monitor === 'nft';
      const eng = nft
        ? engineNftSequence(events, host, id, h)
        : engineSequence(events, host, id, h);
      out.push({
        host,
        packet,
        kernel: nft
          ? sel[packet].flatMap((b) => b.events.map((e) => nftKernelNotation(e, h)))
          : kernelSequence(sel[packet], h),
        engine: eng.seq,
        skipped: eng.skipped,
      });
    }
  }
  return out;
}

/** The probe as the engine takes it: same tuple, no client timeout. */
export function engineProbe(p: KernelProbeResult['probe']): ProbeSpec {
  const probe: ProbeSpec & { timeoutMs?: number } = { ...p };
  delete probe.timeoutMs;
  return probe;
}

export interface CrossCheckOptions {
  /** What the engine simulates; default: the lab's current spec. */
  readonly spec?: NetworkSpec;
  /** Engine state carried from probe to probe, as the kernel carries its own; fresh if absent. */
  readonly state?: NetworkState;
}

/**
 * Runs `probe` on the kernel lab and through the engine (same spec, same source port). The
 * engine enumerates every random branch (statistic, ECMP); the run whose outcome matches the
 * kernel's is the one compared, so a kernel result must be one the engine thinks possible.
 */
export async function crossCheck(
  lab: KernelLab,
  probe: KernelProbe,
  opts: CrossCheckOptions = {},
): Promise<CrossCheck> {
  const raw = await lab.probe(probe);
  const { network, problems } = buildNetwork(opts.spec ?? lab.spec);
  if (!network) throw new Error(`engine refuses the spec: ${JSON.stringify(problems)}`);
  const runs = enumerateOutcomes(
    network,
    engineProbe(raw.probe),
    opts.state ? { state: opts.state } : {},
  ).runs;
  // ping cannot see which source address the answering kernel saw: echo verdicts leave it out.
  const seen = (v: Verdict): Verdict =>
    raw.probe.proto === 'icmp' && v.kind === 'answered'
      ? { ...v, srcSeen: '(not seen by ping)' }
      : v;
  const kernel = seen(kernelVerdict(raw.result));
  // Among the runs with the kernel's outcome, prefer one whose listener saw the same local
  // address (pods of one workload may share a reply text) and whose rule traces match too: with
  // statistic rules several branches can end alike (e.g. every endpoint unreachable).
  const candidates = runs
    .filter((r) => verdictText(seen(engineVerdict(r.outcome))) === verdictText(kernel))
    .map((r) => ({
      r,
      same: sameListener(r.outcome, raw.result),
      traces: compareTraces(lab.handles, raw, r.events, lab.monitor),
    }));
  const traced = (c: (typeof candidates)[number]) =>
    c.traces.every((t) => sameSeq(t.kernel, t.engine));
  const best =
    candidates.find((c) => c.same && traced(c)) ??
    candidates.find((c) => c.same) ??
    candidates.find(traced) ??
    candidates[0];
  const run = best?.r ?? runs[0];
  if (!run) throw new Error('the engine produced no run');
  if (opts.state) {
    // The kernel keeps what this connection left (conntrack, `recent` lists): so does the
    // engine, by replaying the branch that matched.
    const replay = scriptedChooser(
      run.choices.map((c) => c.index),
      () => {},
    );
    runProbe(network, opts.state, engineProbe(raw.probe), replay);
  }
  return {
    probe: raw.probe,
    kernel,
    engine: seen(engineVerdict(run.outcome)),
    possible: runs.map((r) => ({
      verdict: verdictText(engineVerdict(r.outcome)),
      probability: r.probability,
    })),
    raw,
    run,
    runs,
    outcome: run.outcome,
    events: run.events,
    traces: best?.traces ?? compareTraces(lab.handles, raw, run.events, lab.monitor),
  };
}

/** For answers: the engine's listener saw the same local address and port as the kernel's. */
function sameListener(o: Outcome, r: KernelProbeResult['result']): boolean {
  if (o.kind !== 'answered' || r.kind !== 'answered') return true;
  return o.dstSeen === r.dstSeen && o.dstPortSeen === r.dstPortSeen;
}

function sameSeq(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** `part` is `whole` with some entries left out (in order), and shorter. */
function strictSubsequence(part: readonly string[], whole: readonly string[]): boolean {
  if (part.length >= whole.length) return false;
  let i = 0;
  for (const x of whole) if (i < part.length && x === part[i]) i++;
  return i === part.length;
}

/**
 * The only disagreement is rule events missing from the kernel's side: outcomes agree, and every
 * trace that differs is the engine's sequence with lines left out. That is what a trace monitor
 * which fell behind on a loaded machine prints (netlink drops events under pressure without the
 * monitor always exiting; seen once in CI: a reply's raw PREROUTING lines missing on two hosts
 * while the outcome and the answering pod agreed). A wrong rule, an extra rule, a different
 * order or a different outcome is never this.
 */
export function onlyLostKernelLines(c: Pick<CrossCheck, 'kernel' | 'engine' | 'traces'>): boolean {
  if (verdictText(c.kernel) !== verdictText(c.engine)) return false;
  const differing = c.traces.filter((t) => !sameSeq(t.kernel, t.engine));
  return differing.length > 0 && differing.every((t) => strictSubsequence(t.kernel, t.engine));
}

/** Side-by-side text of a comparison, for test failure messages and reports. */
export function comparisonText(c: CrossCheck): string {
  const lines = [
    `probe ${c.probe.from} -> ${c.probe.proto} ${c.probe.dst}:${c.probe.dport} (sport ${c.probe.sport})`,
    `  kernel: ${verdictText(c.kernel)}`,
    `  engine: ${verdictText(c.engine)}`,
  ];
  if (c.possible.length > 1) {
    for (const p of c.possible)
      lines.push(`    possible: ${p.verdict} (p=${p.probability.toFixed(3)})`);
  }
  for (const t of c.traces) {
    lines.push(`  ${t.host} ${t.packet} packet:`);
    const n = Math.max(t.kernel.length, t.engine.length);
    for (let i = 0; i < n; i++) {
      const k = t.kernel[i] ?? '';
      const e = t.engine[i] ?? '';
      lines.push(`    ${k === e ? ' ' : '!'} ${k.padEnd(48)} | ${e}`);
    }
  }
  return lines.join('\n');
}
