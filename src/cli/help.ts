/**
 * What `hookpath help` prints. A module of its own, importing nothing: the prebuilt CLI answers
 * `help` without loading the engine (see main.ts).
 */

/** No command, `help`, `--help` or `-h`. */
export function isHelp(cmd: string | undefined): boolean {
  return cmd === undefined || cmd === 'help' || cmd === '--help' || cmd === '-h';
}

export const HELP = `hookpath: where does this packet go?

  hookpath run SCENARIO.yaml... [--variant ID] [--mode iptables|nftables|ipvs] [--json]
      run every probe of the scenarios (in every kube-proxy mode they list) and compare with
      their expectations
  hookpath rules SCENARIO.yaml --node NAME [--variant ID] [--mode iptables|nftables|ipvs] [--iptables]
      print the node's rules as kube-proxy writes them: iptables-save (plus the node's own rules)
      in iptables mode, the nft -f text of its kube-proxy table in nftables mode (--iptables: the
      node's own iptables rules instead)
  hookpath trace SCENARIO.yaml --from SENDER --to TARGET [--variant ID] [--mode MODE] [--all] [--json] [--misses] [--explain]
      the hop-by-hop trace; SENDER: client/NAME, pod/NAME, node/NAME; TARGET: vip:22, svc/NAME:PORT,
      lb/NAME:PORT, nodeport/NAME@NODE, localhost-nodeport/NAME@NODE, healthcheck/NAME@NODE, ADDRESS:PORT
  hookpath matrix SCENARIO.yaml [--variant ID] [--mode iptables|nftables|ipvs] [--json] [--lang en|zh]
      every sender (clients, a pod per workload and node, the nodes) against every address the
      Services expose; exit 1 when a cell the scenario states an expectation for differs
  hookpath exercise check EXERCISE.yaml [--manifests ANSWER.yaml] [--lang en|zh] [--json]
      without an answer: the start must fail a goal and every reference answer meet all (exit 0);
      with one: exit 0 when every goal holds, else 1 with each failing goal and why; bad input 2
  hookpath trace --rules FILE (--local ADDRS | --host FILE) PACKET [options]
      one host, from its iptables-save; options below

Host
  --rules FILE          iptables-save output of the host (- for stdin)
  --rules6 FILE         ip6tables-save output (the rules IPv6 packets meet)
  --local ADDRS         addresses on eth0, comma separated (192.168.50.38/24,192.168.50.100/32)
  --iface NAME=ADDRS    another interface (repeatable), e.g. kube-ipvs0=10.96.0.1/32
  --route ROUTE         a route (repeatable): "default via 192.168.50.1", "10.244.1.0/24 via 192.168.50.39"
  --listen LISTENER     a listening socket (repeatable): "sshd tcp 0.0.0.0:22 SSH-2.0-OpenSSH_10.3"
  --ipset SET           ipset contents (repeatable): "NAME TYPE entry;entry"
  --forward             net.ipv4.ip_forward=1
  --route-localnet      net.ipv4.conf.all.route_localnet=1
  --host FILE           the whole host as YAML/JSON (interfaces, routes, sysctls, listeners, ipsets)

Packet
  --packet "tcp 192.168.50.10:40000 > 192.168.50.100:22"   (IPv6: "tcp [fd00::10]:40000 > [fd00::1]:22")
  --proto P --src A --sport N --dst B --dport N   (instead of --packet)
  --in IFACE            interface the packet arrives on (default eth0)
  --local-out           the packet is sent by a process on this host (OUTPUT path)

Output
  --all                 follow every random branch (statistic, ECMP) and print each outcome's probability
  --seed N              decide random branches with this seed (a whole number; default 1)
  --misses              also list the rules that did not match
  --explain             add a plain-language explanation under each step
  --json                machine-readable output (bad input too: { "ok": false, "diagnostics": [...] })

Exit codes: 0 done, 1 a probe differs from its expectation (run, matrix), 2 bad input (the message says
where), 70 a bug in hookpath, 141 the reader of the output went away (| head).
`;
