/**
 * A run's trace as the animation's timeline: one step per trace event, each placed at a slot of
 * the netfilter pipeline of its host (where the token stands), with the header rewrite it made.
 */
import type { TraceEvent } from '../../engine/trace.ts';
import type { Packet } from '../../engine/packet.ts';
import type { Hook } from '../../engine/rules/types.ts';
import type { HookRowsView, RunView } from '../../cluster/types.ts';
import { changedFields, type Field } from './packet.ts';
import type { RowName } from './geometry.ts';

/** Places in a host's pipeline, drawn the way engineers draw the netfilter hooks. */
/**
 * `bridge` on an `in`/`out` slot: the step is the bridge's (a BridgeAction), at that port of the
 * bridge rather than on the veth itself.
 */
export type Slot =
  | { readonly kind: 'in'; readonly iface: string; readonly bridge?: string }
  | { readonly kind: 'out'; readonly iface: string; readonly bridge?: string }
  | { readonly kind: 'hook'; readonly hook: Hook; readonly row: RowName | null }
  | { readonly kind: 'route-in' }
  | { readonly kind: 'route-out' }
  | { readonly kind: 'local'; readonly process: string | null };

export interface Step {
  readonly index: number;
  readonly event: TraceEvent;
  readonly host: string;
  readonly slot: Slot;
  /** The packet before this step (the previous step of the same packet), null for its first. */
  readonly before: Packet | null;
  readonly changed: readonly Field[];
  /** The probe's first packet is the request; answers, resets and ICMP errors travel back. */
  readonly direction: 'request' | 'reply';
  /** A rule that did not match (hidden by the "matched only" filter). */
  readonly miss: boolean;
  /** The packet ends here: dropped, rejected, or delivered to nobody. */
  readonly end: 'drop' | 'reject' | null;
}

/** Zone of a slot: the receive half (before/at the routing decision) or the send half. */
function zone(s: Slot | undefined): 'in' | 'out' {
  if (!s) return 'in';
  switch (s.kind) {
    case 'in':
    case 'route-in':
      return 'in';
    case 'hook':
      return s.hook === 'PREROUTING' || s.hook === 'INPUT' ? 'in' : 'out';
    default:
      return 'out';
  }
}

/** The row key of an nft base chain (cluster/hook-rows.ts writes the same). */
const nftKey = (n: { family: string; table: string; chain: string }) =>
  `nft ${n.family} ${n.table} ${n.chain}`;

/**
 * The row an nft step stands on: its base chain's. A hook event names the base chain; the rules
 * after it (in chains it jumps to as well) stay on that row until the next hook event.
 */
function nftRow(e: TraceEvent, prev: Slot | undefined): RowName | null {
  if (!('nft' in e) || !e.nft || !('hook' in e)) return null;
  if (
    e.type !== 'hook' &&
    prev?.kind === 'hook' &&
    prev.hook === e.hook &&
    prev.row?.startsWith('nft ')
  )
    return prev.row;
  return nftKey(e.nft);
}

/**
 * A bridged frame enters the bridge by a port and leaves by one (on the bridge, above the port).
 * br_netfilter's hooks between are their own hook steps (the PREROUTING / FORWARD / POSTROUTING
 * rows), so after them the bridge's steps stay where the packet is; it is forwarded along the
 * bridge only when no hook ran since it came in (bridge-nf-call-iptables=0), or dropped there
 * when the way out is the way in and hairpin mode is off (br_forward.c should_deliver).
 */
function bridgeSlot(e: Extract<TraceEvent, { type: 'bridge' }>, prev: Slot | undefined): Slot {
  const b = e.bridge;
  if (e.action === 'nf-prerouting' || e.action === 'nf-off' || e.action === 'local')
    return { kind: 'in', iface: e.inPort ?? b, bridge: b };
  if (e.action === 'hairpin-drop') return { kind: 'out', iface: e.outPort ?? b, bridge: b };
  if (e.action === 'xmit') return { kind: 'out', iface: e.outPort ?? b };
  const onBridge = (prev?.kind === 'in' || prev?.kind === 'out') && prev.bridge === b;
  if (e.action === 'forward' && onBridge && e.outPort)
    return { kind: 'out', iface: e.outPort, bridge: b };
  return prev ?? { kind: 'in', iface: e.inPort ?? b, bridge: b };
}

function slotFor(e: TraceEvent, prev: Slot | undefined): Slot {
  switch (e.type) {
    case 'send':
      return { kind: 'local', process: e.process };
    case 'receive':
      // The bridge hands the frame up its own stack (br_netfilter's `local`): still on the bridge.
      if ((prev?.kind === 'in' || prev?.kind === 'out') && prev.bridge === e.iface) return prev;
      return { kind: 'in', iface: e.iface };
    case 'wire':
      return { kind: 'out', iface: e.fromIf };
    case 'bridge':
      return bridgeSlot(e, prev);
    case 'hook':
    case 'rule':
    case 'miss':
    case 'return':
    case 'policy':
      return { kind: 'hook', hook: e.hook, row: nftRow(e, prev) ?? e.table };
    case 'ipvs':
      return { kind: 'hook', hook: e.hook, row: 'ipvs' };
    case 'nat-skip':
      return { kind: 'hook', hook: e.hook, row: 'nat' };
    case 'route':
      if (e.decision === 'local' || e.decision === 'forward') return { kind: 'route-in' };
      if (e.decision === 'output') return { kind: 'route-out' };
      // Routing again inside OUTPUT (after mangle/nat changed the packet), or failing there.
      if (e.decision === 'reroute' || (prev?.kind === 'hook' && prev.hook === 'OUTPUT'))
        return { kind: 'hook', hook: 'OUTPUT', row: 'reroute' };
      return zone(prev) === 'in' ? { kind: 'route-in' } : { kind: 'route-out' };
    case 'socket':
      return { kind: 'local', process: e.process };
    case 'conntrack':
      // The engine says at which hook: the lookup after raw, the confirm after the last table,
      // a recorded NAT binding where the nat table sits.
      return {
        kind: 'hook',
        hook: e.hook,
        row: e.action === 'confirm' ? 'confirm' : e.action === 'nat' ? 'nat' : 'conntrack',
      };
    default:
      return prev ?? { kind: 'local', process: null };
  }
}

function endOf(e: TraceEvent): Step['end'] {
  if (e.type === 'drop') return 'drop';
  if (e.type === 'bridge' && e.action === 'hairpin-drop') return 'drop';
  if (e.type === 'rule' && e.verdict === 'DROP') return e.target === 'REJECT' ? 'reject' : 'drop';
  if (e.type === 'policy' && e.verdict === 'DROP') return 'drop';
  if (e.type === 'route' && (e.decision === 'drop' || e.decision === 'unreachable')) return 'drop';
  return null;
}

/**
 * The NAT core's steps (a skipped nat table, a recorded binding applied) name the `nat` row; on
 * a host without iptables' nat table they stand on its first nat chain, or the NAT core's row.
 */
function onRows(slot: Slot, rows: HookRowsView | undefined): Slot {
  if (!rows || slot.kind !== 'hook' || slot.row !== 'nat') return slot;
  const list = rows[slot.hook];
  if (list.some((r) => r.key === 'nat')) return slot;
  const core = list.find(
    (r) => r.kind === 'nat-core' || (r.kind === 'nft' && r.nft?.type === 'nat'),
  );
  return core ? { ...slot, row: core.key } : slot;
}

/** Builds the timeline of one run; `hooks` are the nodes' rows (the worker's result). */
export function buildTimeline(
  run: RunView,
  hooks?: Readonly<Record<string, HookRowsView>>,
): Step[] {
  const lastSlot = new Map<string, Slot>();
  const lastPacket = new Map<number, Packet>();
  return run.events.map((e, index) => {
    const key = `${e.host}#${e.packetId}`;
    const slot = onRows(slotFor(e, lastSlot.get(key)), hooks?.[e.host]);
    lastSlot.set(key, slot);
    const explicit = e.type === 'rule' ? e.before : e.type === 'conntrack' ? e.before : null;
    const before = explicit ?? lastPacket.get(e.packetId) ?? null;
    lastPacket.set(e.packetId, e.packet);
    return {
      index,
      event: e,
      host: e.host,
      slot,
      before,
      // A send starts a new packet (the answer, a reset): nothing was rewritten.
      changed: e.type === 'send' ? [] : changedFields(before, e.packet),
      direction:
        e.packetId > 1 || (e.type === 'send' && e.reason !== 'probe') ? 'reply' : 'request',
      miss: e.type === 'miss',
      end: endOf(e),
    };
  });
}

/** Index of the first reply step, or -1 when nothing came back. */
export function firstReplyStep(steps: readonly Step[]): number {
  return steps.findIndex((s) => s.direction === 'reply');
}

/** The packet as it entered and as it left each host, in visiting order (the detail panel). */
export interface HostPass {
  readonly host: string;
  readonly packetId: number;
  readonly inbound: Packet | null;
  readonly outbound: Packet | null;
  readonly firstStep: number;
  readonly lastStep: number;
}

export function hostPasses(steps: readonly Step[]): HostPass[] {
  const out: HostPass[] = [];
  let cur: {
    host: string;
    packetId: number;
    inbound: Packet | null;
    outbound: Packet | null;
    firstStep: number;
    lastStep: number;
  } | null = null;
  for (const s of steps) {
    const pid = s.event.packetId;
    if (!cur || cur.host !== s.host || cur.packetId !== pid) {
      if (cur) out.push(cur);
      cur = {
        host: s.host,
        packetId: pid,
        inbound: null,
        outbound: null,
        firstStep: s.index,
        lastStep: s.index,
      };
    }
    cur.lastStep = s.index;
    if (s.event.type === 'receive') cur.inbound = s.event.packet;
    if (s.event.type === 'send' && !cur.inbound) cur.inbound = null;
    if (s.event.type === 'wire') cur.outbound = s.event.packet;
  }
  if (cur) out.push(cur);
  return out;
}

/**
 * The steps the user walks through, as indices: everything but the rules that did not match, or
 * (`everyRule`) every rule walked past too. A hidden step the user stands on (a share link, the
 * trace) is kept, so the counter always has a place for it.
 */
export function visibleSteps(
  steps: readonly Step[],
  everyRule: boolean,
  current: number,
): number[] {
  return steps.flatMap((s) => (everyRule || !s.miss || s.index === current ? [s.index] : []));
}
