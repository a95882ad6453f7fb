/**
 * Runs the nftables packet-flow cases of kube-proxy's test suite (pkg/proxy/nftables
 * helpers_test.go, runPacketFlowTests) through the engine: the case's ruleset is loaded as the
 * node's nft ruleset (`nft -f` text), each flow is sent as a real packet, and the tracer's
 * `output` and `masq` are read off the engine's trace:
 * - every `dnat` a branch took (numgen branches enumerated, in draw order), as `IP:port` /
 *   `[IPv6]:port`;
 * - `DROP` / `REJECT` for a drop or reject verdict in one of kube-proxy's chains;
 * - `masq` when any branch jumped to `mark-for-masquerade`.
 * See the corpus README (conformance/README.md of the shared material), "nftables".
 */
import type { HostSpec, TraceEvent } from '../engine/index.ts';
import { conformanceHost, runFlowsOn, type Flow, type FlowResult } from './flows.ts';

/** kube-proxy's masquerade-marking chain (pkg/proxy/nftables/proxier.go, markMasqChain). */
const MARK_MASQ_CHAIN = 'mark-for-masquerade';
/** kube-proxy's table, in both families. */
const KUBE_PROXY_TABLE = 'kube-proxy';

/** kube-proxy's fake node with the ruleset as its nft ruleset, no iptables rules. */
export function nftConformanceHost(
  ruleset: string,
  localAddresses: readonly string[],
  family: 4 | 6,
): HostSpec {
  const host: HostSpec = conformanceHost('', localAddresses, family);
  return {
    name: host.name,
    interfaces: host.interfaces,
    ...(host.role ? { role: host.role } : {}),
    ...(host.routes ? { routes: host.routes } : {}),
    ...(host.sysctls ? { sysctls: host.sysctls } : {}),
    nftables: ruleset,
  };
}

function endpointOf(e: Extract<TraceEvent, { type: 'rule' }>): string {
  const p = e.packet;
  return p.dst.includes(':') ? `[${p.dst}]:${p.dport}` : `${p.dst}:${p.dport}`;
}

/** The tracer's view of one run: its DNATs and terminal verdicts in order, and masq. */
function observe(events: readonly TraceEvent[]): { outputs: string[]; masq: boolean } {
  const outputs: string[] = [];
  let masq = false;
  for (const e of events) {
    if (e.packetId !== 1 || e.host !== 'test-node' || e.type !== 'rule') continue;
    if (!e.nft || e.nft.table !== KUBE_PROXY_TABLE) continue;
    if (e.verdict === 'JUMP' && e.target === MARK_MASQ_CHAIN) masq = true;
    if (e.target === 'DNAT') outputs.push(endpointOf(e));
    else if (e.verdict === 'DROP') outputs.push(e.target === 'REJECT' ? 'REJECT' : 'DROP');
  }
  return { outputs, masq };
}

export function runNftFlows(
  ruleset: string,
  localAddresses: readonly string[],
  flows: readonly Flow[],
  family: 4 | 6 = 4,
): FlowResult[] {
  return runFlowsOn(
    nftConformanceHost(ruleset, localAddresses, family),
    localAddresses,
    flows,
    observe,
  );
}
