/**
 * What runs at one netfilter hook of one host, in priority order: the iptables-nft tables at
 * their fixed priorities, every nft base chain of a table of the packet's family (inet tables
 * see both), conntrack at -200 (NF_IP_PRI_CONNTRACK) where packets enter, and the NAT core.
 *
 * NAT chains are not hooks of their own: nf_nat_register_fn (net/netfilter/nf_nat_core.c)
 * registers one NAT hook per hook point, at NF_IP_PRI_NAT_DST (-100, prerouting and output) or
 * NF_IP_PRI_NAT_SRC (100, input and postrouting), and keeps the nat-type chains, iptables' nat
 * table among them, in its own list by priority. nf_nat_inet_fn runs them only while the
 * connection has no binding for that direction, stops at the first that binds one, and applies
 * recorded bindings to every other packet. A filter chain at -110 therefore runs before every
 * nat chain at prerouting, whatever their priorities.
 *
 * At equal priorities the hook registered last runs first: nf_hook_entries_grow
 * (net/netfilter/core.c) inserts a new hook before the first one whose priority is not lower.
 * The lab takes conntrack as registered first, then the iptables tables, then the nft tables in
 * file order, chain by chain (a node's firewall loads before kube-proxy starts): so kube-proxy's
 * `filter-forward` at priority 0 runs before iptables' filter FORWARD, and its `nat-prerouting`
 * at dstnat before iptables' nat PREROUTING (Linux 6.18 agrees). A real node gets that order
 * whenever kube-proxy (re)starts after the firewall: its nftables proxier deletes and re-creates
 * its base chains on its first sync (setupNFTables, pkg/proxy/nftables/proxier.go), while Felix
 * writes with iptables-restore --noflush, which keeps its tables. A plain iptables-nft-restore
 * deletes and re-creates each table instead (iptables/nft.c), so the kernel lab reloads a host's
 * nft tables after every new iptables ruleset (KernelLab.load, src/kernel/lab.ts).
 */
import type { Hook, TableName } from '../rules/types.ts';
import type { NftChain, NftHook, NftRuleset } from './types.ts';

/** include/uapi/linux/netfilter_ipv4.h: NF_IP_PRI_* of the iptables tables. */
export const XT_PRIORITY: Readonly<Record<TableName, number>> = {
  raw: -300,
  mangle: -150,
  nat: -100,
  filter: 0,
  security: 50,
};

export const CONNTRACK_PRIORITY = -200;

/** The NAT core's priority at each hook; forward has none (nat chains cannot hook it). */
export const NAT_PRIORITY: Readonly<Partial<Record<Hook, number>>> = {
  PREROUTING: -100,
  OUTPUT: -100,
  INPUT: 100,
  POSTROUTING: 100,
};

/** The iptables tables with a built-in chain at each hook (as stack.ts orders them). */
export const XT_TABLES: Readonly<Record<Hook, readonly TableName[]>> = {
  PREROUTING: ['raw', 'mangle', 'nat'],
  INPUT: ['mangle', 'filter', 'security', 'nat'],
  FORWARD: ['mangle', 'filter', 'security'],
  OUTPUT: ['raw', 'mangle', 'nat', 'filter', 'security'],
  POSTROUTING: ['mangle', 'nat'],
};

const NFT_HOOK: Readonly<Record<Hook, NftHook>> = {
  PREROUTING: 'prerouting',
  INPUT: 'input',
  FORWARD: 'forward',
  OUTPUT: 'output',
  POSTROUTING: 'postrouting',
};

export type NatMember =
  | { readonly kind: 'xt'; readonly priority: number; readonly seq: number }
  | {
      readonly kind: 'nft';
      readonly chain: NftChain;
      readonly priority: number;
      readonly seq: number;
    };

export type HookEntry =
  | { readonly kind: 'conntrack'; readonly priority: number }
  | { readonly kind: 'xt'; readonly table: TableName; readonly priority: number }
  | {
      readonly kind: 'nft';
      readonly chain: NftChain;
      readonly priority: number;
      /** The iptables table it runs beside, for the diagram's rows. */
      readonly row: TableName;
    }
  | { readonly kind: 'nat'; readonly priority: number; readonly members: readonly NatMember[] };

/** nft tables whose chains see packets of `family`. */
export function seesFamily(tableFamily: string, family: 4 | 6): boolean {
  return tableFamily === 'inet' || tableFamily === (family === 4 ? 'ip' : 'ip6');
}

/** Some table of the family takes conntrack (see NftTable.conntrack). */
export function nftTracks(nft: NftRuleset | null, family: 4 | 6): boolean {
  return nft !== null && nft.tables.some((t) => t.conntrack && seesFamily(t.family, family));
}

/** The iptables table a base chain runs beside: the last one at this hook not after it. */
export function rowOf(chain: NftChain, hook: Hook): TableName {
  if (chain.base?.type === 'nat') return 'nat';
  const prio = chain.base?.priority ?? 0;
  const rows = XT_TABLES[hook].filter((t) => t !== 'nat');
  let row = rows[0] ?? 'filter';
  for (const t of rows) if (XT_PRIORITY[t] <= prio) row = t;
  return row;
}

/**
 * The entries of `hook` for packets of `family`. `xt` says whether the host has an iptables
 * ruleset of that family; `tracked` whether conntrack runs (then the NAT core is there too).
 */
export function hookPlan(
  xt: boolean,
  nft: NftRuleset | null,
  hook: Hook,
  family: 4 | 6,
  tracked: boolean,
): HookEntry[] {
  // `seq` is the registration order; ties in priority go to the later registration.
  const entries: { e: HookEntry; seq: number }[] = [];
  const nat: NatMember[] = [];
  let seq = 0;
  if ((hook === 'PREROUTING' || hook === 'OUTPUT') && tracked)
    entries.push({ e: { kind: 'conntrack', priority: CONNTRACK_PRIORITY }, seq: seq++ });
  if (xt) {
    for (const table of XT_TABLES[hook]) {
      if (table === 'nat') nat.push({ kind: 'xt', priority: NAT_PRIORITY[hook] ?? 0, seq: seq++ });
      else entries.push({ e: { kind: 'xt', table, priority: XT_PRIORITY[table] }, seq: seq++ });
    }
  }
  for (const t of nft?.tables ?? []) {
    if (!seesFamily(t.family, family)) continue;
    for (const chain of t.bases) {
      const b = chain.base;
      if (!b || b.hook !== NFT_HOOK[hook]) continue;
      if (b.type === 'nat') nat.push({ kind: 'nft', chain, priority: b.priority, seq: seq++ });
      else
        entries.push({
          e: { kind: 'nft', chain, priority: b.priority, row: rowOf(chain, hook) },
          seq: seq++,
        });
    }
  }
  const natPrio = NAT_PRIORITY[hook];
  if (natPrio !== undefined && (tracked || nat.length > 0)) {
    // The NAT core's own hook is registered with its first nat chain.
    const first = nat.reduce((m, x) => Math.min(m, x.seq), seq);
    const members = [...nat].sort((a, b) => a.priority - b.priority || b.seq - a.seq);
    entries.push({ e: { kind: 'nat', priority: natPrio, members }, seq: first });
  }
  entries.sort((a, b) => a.e.priority - b.e.priority || b.seq - a.seq);
  return entries.map((x) => x.e);
}
