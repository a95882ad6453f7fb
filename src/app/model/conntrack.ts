/**
 * The conntrack entries of each host as the trace builds them up, step by step: created by the
 * first packet (unconfirmed, attached to the packet), given their NAT bindings by the nat rules,
 * entered in the table at confirm, found again by the reply, which they translate back. Read
 * only from what the engine reported (conntrack events and the entry a NAT rule left behind).
 */
import type { CtState, Tuple } from '../../engine/conntrack.ts';
import type { Rect } from './geometry.ts';
import type { DiagramLayout } from './layout.ts';
import type { Step } from './timeline.ts';

/** What one step did with an entry. */
export type CtUse = 'new' | 'lookup' | 'related' | 'keep' | 'bind' | 'nat' | 'confirm';

export interface CtEntry {
  readonly host: string;
  readonly id: number;
  readonly orig: Tuple;
  /** The tuple a reply must carry; a NAT binding rewrites it (nf_conntrack_alter_reply). */
  readonly reply: Tuple;
  /** In the host's table (nf_conntrack_confirm ran); before that it travels with the packet. */
  readonly confirmed: boolean;
  /** A packet of the reply direction was seen: ESTABLISHED from then on (ctstate). */
  readonly seenReply: boolean;
  /** IPS_DST_NAT / IPS_SRC_NAT: the reply tuple is not the inverse of the original. */
  readonly dnat: boolean;
  readonly snat: boolean;
  /** Step that created (or first met) the entry, and the last step that used it. */
  readonly first: number;
  readonly last: number;
  readonly lastUse: CtUse;
}

/** What a step did with conntrack, for the drawing: which entry, and how. */
export interface CtTouch {
  readonly entry: CtEntry;
  readonly use: CtUse;
  /** The binding a NAT rule set up (`bind`) or conntrack applied from the entry (`nat`). */
  readonly binding: 'dnat' | 'snat' | null;
  /** A reply packet: the binding is undone (the source back to the address the client asked). */
  readonly reversed: boolean;
  /** Which tuple of the entry the packet matched (conntrack steps), null for a NAT rule. */
  readonly dir: 'original' | 'reply' | null;
}

export const ctState = (e: CtEntry): CtState => (e.seenReply ? 'ESTABLISHED' : 'NEW');

const natFlags = (orig: Tuple, reply: Tuple) => ({
  dnat: reply.src !== orig.dst || reply.sport !== orig.dport,
  snat: reply.dst !== orig.src || reply.dport !== orig.sport,
});

const key = (host: string, id: number) => `${host}#${id}`;

interface Walk {
  readonly touches: (CtTouch | null)[];
}

const walks = new WeakMap<readonly Step[], Walk>();

/** One pass over the whole timeline (memoised per timeline); callers slice it by step. */
function walk(steps: readonly Step[]): Walk {
  const cached = walks.get(steps);
  if (cached) return cached;
  const entries = new Map<string, CtEntry>();
  const touches: (CtTouch | null)[] = [];
  for (const s of steps) {
    const e = s.event;
    let touch: CtTouch | null = null;
    const upsert = (id: number, orig: Tuple, reply: Tuple, use: CtUse) => {
      const prev = entries.get(key(e.host, id));
      const next: CtEntry = {
        host: e.host,
        id,
        orig,
        reply,
        // Met first by a lookup: it was found in the table, so it is confirmed.
        confirmed: use === 'confirm' || (prev ? prev.confirmed : use !== 'new'),
        seenReply:
          (prev?.seenReply ?? false) ||
          (e.type === 'conntrack' && e.dir === 'reply' && use === 'lookup'),
        ...natFlags(orig, reply),
        first: prev?.first ?? s.index,
        last: s.index,
        lastUse: use,
      };
      entries.set(key(e.host, id), next);
      return next;
    };
    if (e.type === 'conntrack' && e.connId !== null && e.orig && e.reply) {
      const use: CtUse = e.action === 'invalid' || e.action === 'untracked' ? 'lookup' : e.action;
      const entry = upsert(e.connId, e.orig, e.reply, use);
      // nf_nat_packet: destination manipulation before routing (PREROUTING, OUTPUT), source
      // after; on a reply each undoes the other direction's binding.
      const dstManip = e.hook === 'PREROUTING' || e.hook === 'OUTPUT';
      const binding =
        e.action !== 'nat' ? null : dstManip === (e.dir === 'original') ? 'dnat' : 'snat';
      touch = { entry, use, binding, reversed: binding !== null && e.dir === 'reply', dir: e.dir };
    } else if (e.type === 'rule' && e.conn) {
      const entry = upsert(e.conn.id, e.conn.orig, e.conn.reply, 'bind');
      const binding = e.target === 'DNAT' || e.target === 'REDIRECT' ? 'dnat' : 'snat';
      touch = { entry, use: 'bind', binding, reversed: false, dir: null };
    }
    touches.push(touch);
  }
  const w = { touches };
  walks.set(steps, w);
  return w;
}

/** The entries as they stood right after step `upTo`, per host, in creation order. */
export function conntrackAt(steps: readonly Step[], upTo: number): CtEntry[] {
  const { touches } = walk(steps);
  const latest = new Map<string, CtEntry>();
  for (const t of touches.slice(0, upTo + 1))
    if (t) latest.set(key(t.entry.host, t.entry.id), t.entry);
  return [...latest.values()].sort((a, b) => a.first - b.first);
}

/** What step `i` did with conntrack, if anything. */
export function ctTouchOf(steps: readonly Step[], i: number): CtTouch | null {
  return walk(steps).touches[i] ?? null;
}

/**
 * The entry a node's table box shows at step `upTo`: the one the current packet carries when the
 * token is on that node, else the last one the node used.
 */
export function entryShown(steps: readonly Step[], upTo: number, host: string): CtEntry | null {
  const { touches } = walk(steps);
  const cur = steps[upTo];
  let last: CtEntry | null = null;
  for (let i = Math.min(upTo, touches.length - 1); i >= 0; i--) {
    const t = touches[i];
    if (!t || t.entry.host !== host) continue;
    if (!cur || cur.host !== host) return latestOf(touches, upTo, t.entry);
    if (steps[i]?.event.packetId === cur.event.packetId) return latestOf(touches, upTo, t.entry);
    last ??= t.entry;
  }
  return last ? latestOf(touches, upTo, last) : null;
}

/** The newest state (up to `upTo`) of the entry `e`. */
function latestOf(touches: readonly (CtTouch | null)[], upTo: number, e: CtEntry): CtEntry {
  let out = e;
  for (const t of touches.slice(0, upTo + 1))
    if (t && t.entry.host === e.host && t.entry.id === e.id) out = t.entry;
  return out;
}

/** What a node's conntrack box shows at one step. */
export interface CtShown {
  readonly host: string;
  readonly box: Rect;
  readonly entry: CtEntry | null;
  /** Set when the current step used this entry (the token stands on this node). */
  readonly touch: CtTouch | null;
}

/** Every drawn node's conntrack box at step `step`. */
export function ctShown(layout: DiagramLayout, steps: readonly Step[], step: number): CtShown[] {
  const touch = ctTouchOf(steps, step);
  return layout.hosts.flatMap((h) =>
    h.ct
      ? [
          {
            host: h.name,
            box: h.ct,
            entry: entryShown(steps, step, h.name),
            touch: touch && touch.entry.host === h.name ? touch : null,
          },
        ]
      : [],
  );
}
