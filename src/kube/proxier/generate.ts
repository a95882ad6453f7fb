/**
 * kube-proxy's iptables-mode rule generator, ported from `syncProxyRules` in
 * pkg/proxy/iptables/proxier.go. Followed: kube-proxy v1.34/v1.35 (kubernetes master of late
 * 2025; checked against the test suite at commit 6c763fd5, see src/conformance). What kube-proxy
 * does with the result is `iptables-restore --noflush --counters` of `restoreInput`, after
 * making sure the jumps from the built-in chains exist (see bootstrap.ts).
 *
 * Differences from a real sync, all because this is one stateless full sync: no `-X` lines for
 * stale chains, service ports in input order (kube-proxy iterates a Go map), no partial syncs.
 */
import type { ProxierInput } from '../model.ts';
import { assembleDump, jumpRules } from './bootstrap.ts';
import { deriveSettings, type ProxierSettings } from './config.ts';
import {
  buildEndpointsMap,
  categorizeEndpoints,
  servicePortKey,
  type Categorized,
  type ProxyEndpoint,
} from './endpoints.ts';
import { ChunkWriter, portRules, type ServiceChunk } from './chunks.ts';
import {
  chainLine,
  type LineBuffers,
  type ServicePortRules,
  type SyncContext,
} from './service-rules.ts';
import { LineBuffer } from './line-buffer.ts';
import { servicePortInfos, type ServicePortInfo } from './service.ts';

/** Above this many endpoints kube-proxy drops endpoint comments (largeClusterEndpointsThreshold). */
export const LARGE_CLUSTER_ENDPOINTS = 1000;

export interface ChainOwner {
  /** Service port name `ns/name:port`. */
  readonly servicePort: string;
  readonly kind: 'cluster' | 'local' | 'external' | 'firewall' | 'endpoint';
  /** For endpoint chains: `ip:port`. */
  readonly endpoint?: string;
}

export interface GeneratedRules {
  readonly family: 4 | 6;
  /** Exactly what kube-proxy feeds to `iptables-restore --noflush` (its iptablesData buffer). */
  readonly restoreInput: string;
  /**
   * A self-contained dump for an empty network namespace: built-in chain declarations, the
   * jumps kube-proxy ensures from the built-in chains, then `restoreInput`'s chains and rules.
   */
  readonly dump: string;
  readonly settings: ProxierSettings;
  readonly largeClusterMode: boolean;
  readonly servicePorts: readonly ServicePortRules[];
  readonly counts: {
    readonly filterRules: number;
    readonly natRules: number;
    readonly natChains: number;
  };
}

/** `fmt.Sprintf("%0.10f", 1.0/float64(n))`: exact decimal rounding, ties to even like Go. */
export function computeProbability(n: number): string {
  const scale = 1e10;
  let q = Math.floor(scale / n);
  const r = scale - q * n;
  if (2 * r > n || (2 * r === n && q % 2 === 1)) q++;
  const digits = String(q).padStart(11, '0');
  return `${digits.slice(0, -10)}.${digits.slice(-10)}`;
}

// eslint-disable-next-line max-lines-per-function -- transcribes syncProxyRules' outer structure in upstream order, to check side by side
export function generateProxierRules(input: ProxierInput): GeneratedRules {
  const cfg = input.config;
  const settings = deriveSettings(cfg);
  const family = settings.family;
  const buf: LineBuffers = {
    filterChains: new LineBuffer(),
    filterRules: new LineBuffer(),
    natChains: new LineBuffer(),
    natRules: new LineBuffer(),
  };
  const { filterChains, filterRules, natChains, natRules } = buf;

  for (const c of [
    'KUBE-SERVICES',
    'KUBE-EXTERNAL-SERVICES',
    'KUBE-FORWARD',
    'KUBE-NODEPORTS',
    'KUBE-PROXY-FIREWALL',
  ]) {
    filterChains.push(chainLine(c));
  }
  for (const c of ['KUBE-SERVICES', 'KUBE-NODEPORTS', 'KUBE-POSTROUTING', 'KUBE-MARK-MASQ']) {
    natChains.push(chainLine(c));
  }
  const mark = settings.mark;
  natRules.push(`-A KUBE-POSTROUTING -m mark ! --mark ${mark}/${mark} -j RETURN`);
  // Clear the mark so a packet that re-traverses the stack is not masqueraded twice.
  natRules.push(`-A KUBE-POSTROUTING -j MARK --xor-mark ${mark}`);
  natRules.push(
    `-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE${cfg.randomFully ? ' --random-fully' : ''}`,
  );
  natRules.push(`-A KUBE-MARK-MASQ -j MARK --or-mark ${mark}`);
  let declaresFirewall = false;
  if (family === 4 && settings.localhostNodePorts) {
    // route_localnet opens 127.0.0.0/8 to the network (issue 90259); kubelet installs the same rule.
    declaresFirewall = true;
    filterChains.push(chainLine('KUBE-FIREWALL'));
    filterRules.push(
      '-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP',
    );
  }

  const ports = servicePortInfos(input.services, family);
  const endpointsMap = buildEndpointsMap(input.endpointSlices, family, cfg.nodeName);
  const endpointsOf = (i: (typeof ports)[number]): readonly ProxyEndpoint[] =>
    endpointsMap.get(
      servicePortKey(i.service.namespace, i.service.name, i.port.name, i.protocol),
    ) ?? [];
  let totalEndpoints = 0;
  for (const i of ports) totalEndpoints += endpointsOf(i).length;
  const largeClusterMode = totalEndpoints > LARGE_CLUSTER_ENDPOINTS;
  const probabilities: string[] = [];
  const ctx: SyncContext = {
    settings,
    masqueradeAll: cfg.masqueradeAll,
    nfacct: cfg.nfacct,
    largeClusterMode,
    probability: (n) => (probabilities[n] ??= computeProbability(n)),
  };

  const zone = cfg.zone ?? '';
  const body = writeServicePorts(ctx, ports, buf, (info) =>
    categorizeEndpoints(endpointsOf(info), info, cfg.nodeName, zone),
  );
  const tail = { filterRules: new LineBuffer(), natRules: new LineBuffer() };

  // Tail-call to KUBE-NODEPORTS: must stay the last rule of nat KUBE-SERVICES.
  const npComment =
    '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain"';
  if (settings.nodePortMatchAll) {
    let dst = '-m addrtype --dst-type LOCAL';
    // Localhost NodePorts never work on IPv6; on IPv4 only with route_localnet.
    if (family === 6) dst += ' ! -d ::1/128';
    else if (!settings.localhostNodePorts) dst += ' ! -d 127.0.0.0/8';
    tail.natRules.push(`${npComment} ${dst} -j KUBE-NODEPORTS`);
  } else {
    for (const ip of settings.nodePortIPs) {
      const loopback = ip === '::1' || ip.startsWith('127.');
      if (loopback && (family === 6 || !settings.localhostNodePorts)) continue;
      tail.natRules.push(`${npComment} -d ${ip} -j KUBE-NODEPORTS`);
    }
  }

  // INVALID packets would cause spurious resets unless nf_conntrack_tcp_be_liberal is set.
  if (!cfg.conntrackTCPLiberal) {
    const acct = cfg.nfacct ? ' -m nfacct --nfacct-name ct_state_invalid_dropped_pkts' : '';
    tail.filterRules.push(`-A KUBE-FORWARD -m conntrack --ctstate INVALID${acct} -j DROP`);
  }
  tail.filterRules.push(
    `-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark ${mark}/${mark} -j ACCEPT`,
  );
  tail.filterRules.push(
    '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT',
  );

  // Both outputs share the joined buffers (string concatenation, no copy).
  const texts = {
    filterChains: filterChains.text(),
    filterRules: body.filterRules + tail.filterRules.text(),
    natChains: body.natChains,
    natRules: body.natRules + tail.natRules.text(),
    declaresFirewall,
  };
  const restoreInput =
    `*filter\n${texts.filterChains}${texts.filterRules}COMMIT\n` +
    `*nat\n${texts.natChains}${texts.natRules}COMMIT\n`;
  const dump = assembleDump(texts, jumpRules(), { family, nodeName: cfg.nodeName });
  return {
    family,
    restoreInput,
    dump,
    settings,
    largeClusterMode,
    get servicePorts() {
      return body.servicePorts;
    },
    counts: {
      filterRules: body.counts.filterRules + tail.filterRules.length,
      natRules: body.counts.natRules + tail.natRules.length,
      natChains: body.counts.natChains,
    },
  };
}

interface PortsText {
  readonly filterRules: string;
  readonly natChains: string;
  readonly natRules: string;
  readonly counts: { filterRules: number; natChains: number; natRules: number };
  /** Made when first read (the lab reads only the text). */
  readonly servicePorts: readonly ServicePortRules[];
}

/**
 * The three buffers' fixed head lines, then every port's lines in order: one chunk per port,
 * remembered from the node's previous generation when nothing it is made of changed (chunks.ts).
 */
function writeServicePorts(
  ctx: SyncContext,
  ports: readonly ServicePortInfo[],
  head: LineBuffers,
  categorize: (info: ServicePortInfo) => Categorized,
): PortsText {
  const filterRules = [head.filterRules.text()];
  const natChains = [head.natChains.text()];
  const natRules = [head.natRules.text()];
  const counts = {
    filterRules: head.filterRules.length,
    natChains: head.natChains.length,
    natRules: head.natRules.length,
  };
  const chunks: ServiceChunk[] = [];
  const cats: Categorized[] = [];
  const writer = new ChunkWriter(ctx);
  for (const info of ports) {
    const cat = categorize(info);
    const chunk = writer.write(info, cat);
    chunks.push(chunk);
    cats.push(cat);
    filterRules.push(chunk.filterRules);
    natChains.push(chunk.natChains);
    natRules.push(chunk.natRules);
    counts.filterRules += chunk.filterRuleCount;
    counts.natChains += chunk.natChainCount;
    counts.natRules += chunk.natRuleCount;
  }
  writer.finish();
  let servicePorts: ServicePortRules[] | undefined;
  return {
    filterRules: filterRules.join(''),
    natChains: natChains.join(''),
    natRules: natRules.join(''),
    counts,
    get servicePorts() {
      return (servicePorts ??= chunks.map((c, i) =>
        portRules(c, ports[i] as ServicePortInfo, cats[i] as Categorized),
      ));
    },
  };
}

/** Every per-service chain of the nat table, mapped to its service port (built on demand). */
export function chainOwners(rules: GeneratedRules): Map<string, ChainOwner> {
  const owners = new Map<string, ChainOwner>();
  for (const r of rules.servicePorts) {
    const own = (chain: string | null, kind: ChainOwner['kind']) => {
      if (chain !== null) owners.set(chain, { servicePort: r.info.name, kind });
    };
    own(r.externalChain, 'external');
    own(r.firewallChain, 'firewall');
    own(r.clusterChain, 'cluster');
    own(r.localChain, 'local');
    for (const e of r.endpoints) {
      owners.set(e.chain, {
        servicePort: r.info.name,
        kind: 'endpoint',
        endpoint: e.endpoint.text,
      });
    }
  }
  return owners;
}

/** The self-contained iptables-save style dump of the node's kube-proxy rules. */
export function generateIptablesRules(input: ProxierInput): string {
  return generateProxierRules(input).dump;
}
