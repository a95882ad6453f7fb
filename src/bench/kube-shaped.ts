/**
 * A kube-proxy-shaped ruleset of N ClusterIP+NodePort Services with E endpoints each, written the
 * way kube-proxy lays it out (KUBE-SERVICES, KUBE-SVC-*, KUBE-SEP-*, KUBE-EXT-*, KUBE-NODEPORTS),
 * for benchmarks. The rules are written here, not by the real generator (src/kube/proxier), but
 * the chain names are kube-proxy's: KUBE-SVC-/EXT- + H16(service port name + protocol), KUBE-SEP-
 * + H16(service port name + protocol + endpoint), 16 base32 characters of a SHA-256 (hash.ts).
 * Names that count up instead (KUBE-SVC-0000000000000001, ...) made a different benchmark: V8's
 * string hash spreads such names badly, and each lookup of one among 50,000 chains cost about
 * twice as much as of a real name.
 */
import { endpointChainName, portProtoHash } from '../kube/proxier/hash.ts';

export interface ShapedRuleset {
  readonly text: string;
  readonly rules: number;
  readonly lastServiceIP: string;
  readonly lastServicePort: number;
}

const ip = (base: number, i: number) =>
  `${base >>> 24}.${(base >>> 16) & 255}.${((base >>> 8) & 255) + ((i >>> 8) & 255)}.${i & 255}`;

export function kubeShapedRuleset(services: number, endpoints: number): ShapedRuleset {
  const nat: string[] = [];
  const chains: string[] = [
    ':PREROUTING ACCEPT [0:0]',
    ':INPUT ACCEPT [0:0]',
    ':OUTPUT ACCEPT [0:0]',
    ':POSTROUTING ACCEPT [0:0]',
    ':KUBE-SERVICES - [0:0]',
    ':KUBE-NODEPORTS - [0:0]',
    ':KUBE-POSTROUTING - [0:0]',
    ':KUBE-MARK-MASQ - [0:0]',
  ];
  nat.push('-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES');
  nat.push('-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES');
  nat.push(
    '-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING',
  );
  nat.push('-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN');
  nat.push('-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000');
  nat.push(
    '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully',
  );
  nat.push('-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000');
  const svcRules: string[] = [];
  const perService: string[] = [];
  let lastIP = '';
  for (let s = 0; s < services; s++) {
    const name = `ns${s % 50}/svc-${s}:http`;
    const id = portProtoHash(name, 'tcp');
    const cip = ip(0x0a600000, s + 10); // 10.96.x.y, up to 65k services
    lastIP = cip;
    const nodePort = 30000 + (s % 2768);
    chains.push(`:KUBE-SVC-${id} - [0:0]`, `:KUBE-EXT-${id} - [0:0]`);
    svcRules.push(
      `-A KUBE-SERVICES -m comment --comment "${name} cluster IP" -m tcp -p tcp -d ${cip} --dport 80 -j KUBE-SVC-${id}`,
    );
    if (s < 2768)
      perService.push(
        `-A KUBE-NODEPORTS -m comment --comment ${name} -m tcp -p tcp --dport ${nodePort} -j KUBE-EXT-${id}`,
      );
    perService.push(
      `-A KUBE-EXT-${id} -m comment --comment "masquerade traffic for ${name} external destinations" -j KUBE-MARK-MASQ`,
    );
    perService.push(`-A KUBE-EXT-${id} -j KUBE-SVC-${id}`);
    perService.push(
      `-A KUBE-SVC-${id} -m comment --comment "${name} cluster IP" -m tcp -p tcp -d ${cip} --dport 80 ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ`,
    );
    for (let e = 0; e < endpoints; e++) {
      const eip = ip(0x0af40000, (s * endpoints + e) % 65000);
      const sep = endpointChainName(name, 'tcp', `${eip}:8080`).slice('KUBE-SEP-'.length);
      chains.push(`:KUBE-SEP-${sep} - [0:0]`);
      const p = endpoints - e;
      const stat = p > 1 ? ` -m statistic --mode random --probability ${(1 / p).toFixed(10)}` : '';
      perService.push(
        `-A KUBE-SVC-${id} -m comment --comment "${name} -> ${eip}:8080"${stat} -j KUBE-SEP-${sep}`,
      );
      perService.push(
        `-A KUBE-SEP-${sep} -m comment --comment ${name} -s ${eip} -j KUBE-MARK-MASQ`,
      );
      perService.push(
        `-A KUBE-SEP-${sep} -m comment --comment ${name} -m tcp -p tcp -j DNAT --to-destination ${eip}:8080`,
      );
    }
  }
  svcRules.push(
    '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS',
  );
  const filter = [
    '*filter',
    ':INPUT ACCEPT [0:0]',
    ':FORWARD ACCEPT [0:0]',
    ':OUTPUT ACCEPT [0:0]',
    ':KUBE-FORWARD - [0:0]',
    '-A FORWARD -m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD',
    '-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP',
    '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x00004000/0x00004000 -j ACCEPT',
    '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT',
    'COMMIT',
  ];
  const natLines = ['*nat', ...chains, ...nat, ...svcRules, ...perService, 'COMMIT'];
  const rules = nat.length + svcRules.length + perService.length + 4;
  return {
    text: `${[...filter, ...natLines].join('\n')}\n`,
    rules,
    lastServiceIP: lastIP,
    lastServicePort: 80,
  };
}
