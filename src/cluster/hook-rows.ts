/**
 * The rows of a node's hook boxes, from the hook plan the engine runs (engine/nft/hooks.ts
 * hookPlan, stack.ts runHook): per hook, in priority order, the iptables tables, conntrack, the
 * NAT core's chains (iptables' nat table and nft nat chains, in the order nf_nat_inet_fn runs
 * them), every nft base chain on its own row, the OUTPUT reroute, and IPVS where ip_vs_core.c
 * registers it. The conntrack confirm closes LOCAL_IN and POST_ROUTING (NF_IP_PRI_CONNTRACK_CONFIRM
 * = INT_MAX).
 */
import { hookPlan, nftTracks, type HookEntry, type HostRuntime } from '../engine/index.ts';
import type { Hook, TableName } from '../engine/index.ts';
import type { HookRowView, HookRowsView } from './types.ts';

const HOOKS: readonly Hook[] = ['PREROUTING', 'INPUT', 'FORWARD', 'OUTPUT', 'POSTROUTING'];

/**
 * Where the kernel steps that are not in the plan sit, as stack.ts runs them: OUTPUT reroutes
 * after the NAT core (-100; ip_route_me_harder from nf_nat_ipv4_local_fn), IPVS hooks LOCAL_IN at
 * 98/99, LOCAL_OUT at -99/-98 (after the reroute) and FORWARD at 99/100 (ip_vs_ops4 in
 * net/netfilter/ipvs/ip_vs_core.c). A step comes before the first entry at or above its priority.
 */
const REROUTE_AT = -99;
const IPVS_AT: Readonly<Partial<Record<Hook, number>>> = { INPUT: 98, FORWARD: 99, OUTPUT: -99 };

const table = (name: TableName, present: boolean, priority: number): HookRowView => ({
  key: name,
  kind: 'table',
  present,
  priority,
});

/** Rows of one entry of the plan; `shown` says which iptables tables get a row. */
function entryRows(
  e: HookEntry,
  shown: (t: TableName) => boolean,
  has: (t: TableName) => boolean,
): HookRowView[] {
  switch (e.kind) {
    case 'conntrack':
      return [{ key: 'conntrack', kind: 'conntrack', present: true, priority: e.priority }];
    case 'xt':
      return shown(e.table) ? [table(e.table, has(e.table), e.priority)] : [];
    case 'nft': {
      const c = e.chain;
      return [nftRow(c.table.family, c.table.name, c.name, c.base?.type ?? 'filter', e.priority)];
    }
    case 'nat': {
      const rows: HookRowView[] = e.members.flatMap((m) =>
        m.kind === 'xt'
          ? shown('nat')
            ? [table('nat', has('nat'), m.priority)]
            : []
          : [nftRow(m.chain.table.family, m.chain.table.name, m.chain.name, 'nat', m.priority)],
      );
      // No chain at this hook, but the NAT core still applies the connection's bindings here.
      return rows.length
        ? rows
        : [{ key: 'nat-core', kind: 'nat-core', present: true, priority: e.priority }];
    }
  }
}

function nftRow(
  family: string,
  tableName: string,
  chain: string,
  type: 'filter' | 'nat' | 'route',
  priority: number,
): HookRowView {
  return {
    key: `nft ${family} ${tableName} ${chain}`,
    kind: 'nft',
    present: true,
    priority,
    nft: { family, table: tableName, chain, type },
  };
}

/**
 * A node's rows for IPv4 packets. A host with iptables rules only is drawn as engineers draw
 * it: every table at each hook (one without rules there pale), security only when loaded. With
 * nft base chains or IPVS the drawing is the plan itself: only tables the ruleset has.
 */
export function hookRowsOf(h: HostRuntime): HookRowsView {
  const rs = h.ruleset;
  const classic = h.nft === null && h.ipvs === null;
  const has = (t: TableName) => rs?.tables.has(t) ?? false;
  const shown = (t: TableName) => (classic ? t !== 'security' || has(t) : has(t));
  // Classic hosts: a host without any table has no conntrack (stack.ts), its rows are pale.
  const tracked = classic ? (rs?.tables.size ?? 0) > 0 : rs !== null || nftTracks(h.nft, 4);
  const out = {} as Record<Hook, HookRowView[]>;
  for (const hook of HOOKS) {
    const plan = hookPlan(classic || rs !== null, h.nft, hook, 4, classic || tracked);
    const rows: HookRowView[] = [];
    const steps: { at: number; row: HookRowView }[] = [];
    if (hook === 'OUTPUT')
      steps.push({
        at: REROUTE_AT,
        row: { key: 'reroute', kind: 'reroute', present: true, priority: null },
      });
    const ipvsAt = IPVS_AT[hook];
    if (h.ipvs && ipvsAt !== undefined)
      steps.push({
        at: ipvsAt,
        row: { key: 'ipvs', kind: 'ipvs', present: true, priority: ipvsAt },
      });
    for (const e of plan) {
      while (steps[0] && e.priority >= steps[0].at)
        rows.push((steps.shift() as (typeof steps)[0]).row);
      rows.push(...entryRows(e, shown, has));
    }
    rows.push(...steps.map((s) => s.row));
    if (hook === 'INPUT' || hook === 'POSTROUTING')
      rows.push({ key: 'confirm', kind: 'confirm', present: true, priority: null });
    out[hook] = classic
      ? rows.map((r) =>
          r.kind === 'table' ? r : { ...r, present: tracked || r.kind === 'reroute' },
        )
      : rows;
  }
  return out;
}
