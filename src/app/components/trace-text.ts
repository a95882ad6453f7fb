/**
 * Short cells of a trace row: where the step happened, what it did, and its verdict. nftables
 * steps (`e.nft`) are written in nft's own words, as `nft monitor trace` and `nft list` print
 * them (family, table, chain, handle; base chains with their type and priority), beside the
 * xtables notation of iptables steps; the CLI's `nftNotation` (src/engine/trace.ts) does the same.
 */
import type { NftTraceInfo, TraceEvent } from '../../engine/trace.ts';

/** `ip kube-proxy nat-prerouting (type nat, priority -100)` for a base chain, else its name. */
export function nftChainText(n: NftTraceInfo): string {
  const base =
    n.type !== undefined || n.priority !== undefined
      ? ` (type ${n.type ?? 'filter'}, priority ${n.priority ?? 0})`
      : '';
  return `${n.family} ${n.table} ${n.chain}${base}`;
}

function nftWhere(e: TraceEvent): string | null {
  if (!('nft' in e) || !e.nft || !('hook' in e)) return null;
  return `${e.hook} · ${nftChainText(e.nft)}`;
}

export function whereOf(e: TraceEvent): string {
  const nft = nftWhere(e);
  if (nft) return nft;
  switch (e.type) {
    case 'hook':
      return `${e.hook} · ${e.table}`;
    case 'rule':
    case 'miss':
    case 'return':
    case 'policy':
      return `${e.hook} · ${e.table} · ${e.chain}`;
    case 'nat-skip':
      return `${e.hook} · nat`;
    case 'ipvs':
      return `${e.hook} · IPVS`;
    case 'receive':
      return e.iface;
    case 'wire':
      return `${e.fromIf} → ${e.toHost}/${e.toIf}`;
    case 'bridge':
      return `${e.bridge} · bridge`;
    default:
      return '';
  }
}

export function detailOf(e: TraceEvent): string {
  switch (e.type) {
    case 'rule':
      return e.nft ? `${e.text} # handle ${e.nft.handle ?? 0}` : e.text;
    case 'miss':
      return e.from === e.to ? `#${e.from}` : `#${e.from}–${e.to}`;
    case 'route':
      return [e.decision, e.dev && `dev ${e.dev}`, e.via && `via ${e.via}`]
        .filter(Boolean)
        .join(' ');
    case 'socket':
      return [e.result, e.process, e.bind].filter(Boolean).join(' ');
    case 'conntrack':
      return `${e.action} ${e.state}${e.connId !== null ? ` #${e.connId}` : ''}`;
    case 'send':
      return `${e.process} (${e.reason})`;
    case 'log':
      return `${e.via} "${e.prefix}"`;
    case 'unsupported':
      return e.what;
    case 'drop':
      return e.reason;
    case 'nat-skip':
      return e.reason;
    case 'ipvs':
      return [e.action, e.service, e.realServer && `→ ${e.realServer}`].filter(Boolean).join(' ');
    case 'wire':
      return e.segment;
    case 'bridge':
      return [e.action, e.inPort, e.outPort && `→ ${e.outPort}`].filter(Boolean).join(' ');
    default:
      return '';
  }
}

export function verdictOfEvent(e: TraceEvent): string {
  if ('nft' in e && e.nft)
    switch (e.type) {
      case 'rule':
        return e.nft.verdict ?? 'continue';
      case 'policy':
        return `policy ${e.verdict === 'ACCEPT' ? 'accept' : 'drop'}`;
      case 'return':
        return 'return';
      default:
        break;
    }
  switch (e.type) {
    case 'rule':
      return e.verdict === 'JUMP' || e.verdict === 'GOTO'
        ? `${e.verdict} ${e.target ?? ''}`
        : e.target && e.verdict !== 'CONTINUE'
          ? `${e.target} · ${e.verdict}`
          : (e.target ?? e.verdict);
    case 'policy':
      return `policy ${e.verdict}`;
    case 'return':
      return 'RETURN';
    case 'drop':
      return 'DROP';
    default:
      return '';
  }
}
