/**
 * What the "your host" importers say (their diagnostics, the form's problems, the notes on what is
 * read and left out), keyed like the trace readers' errors (src/engine/replay-errors.ts): English
 * here, with `{param}` placeholders; the lab shows the Chinese of the same key
 * (src/app/i18n/own-host-errors-zh.ts, checked complete by a test). Data only, no imports: the page
 * reads it through src/app/worker/own-host-protocol.ts without any simulation code.
 */
export const OWN_HOST_ERRORS_EN = {
  // iproute2's JSON (json-text.ts, ip-json.ts)
  'json.invalid': 'not valid JSON: {error}; paste the whole output of the command',
  'json.not-array': '`{command}` prints a JSON array ([...]); this is not one',
  'addr.not-object': 'an interface is a JSON object',
  'addr.ifname': 'an interface needs its name (ifname), e.g. "eth0"',
  'addr.addr-info': 'addr_info is a list of addresses',
  'addr.local': 'an address needs its IP (local), e.g. "192.168.50.38"',
  'addr.prefixlen': 'a prefix length is a whole number 0..{max}',
  'route.not-object': 'a route is a JSON object',
  'route.dst': 'a route needs its destination (dst): "default" or a prefix like "10.244.1.0/24"',
  'route.metric': 'a metric is a whole number',
  'route.nexthops': 'nexthops is a list',
  'route.nexthop-gateway': 'a next hop needs its gateway',
  // Routes read and left out (OwnNote.why)
  'route.local-table': "the kernel's local table: the lab builds it from the addresses",
  'route.multicast': 'multicast routes are not modelled',
  'route.throw': 'policy routing (throw) is not modelled',
  'route.nat': 'nat routes are not modelled',
  'route.type': 'route type {type} is not modelled',
  'route.table':
    'table {table}: policy routing (ip rule) is not modelled; the lab uses the main table',
  'route.connected': 'connected route of an address: the lab adds it from the addresses',
  // A gateway, a preferred source, a packet's source
  'not-ip': "'{value}' is not an IP address",
  // ipset save (ipset-save.ts)
  'ipset.verb':
    "'{verb}': ipset save prints create and add lines; is this the whole output of ipset save?",
  'ipset.create-needs': 'create needs a set name and a type',
  'ipset.add-needs': 'add needs a set name and an entry',
  'ipset.twice': 'set {name} is created twice',
  'ipset.add-first': 'add to {name} before its create line',
  'ipset.type': 'set type {type}: the lab matches {supported}',
  'ipset.nomatch': 'nomatch entries (exceptions in a hash:net set) are not modelled',
  // Both ipvsadm formats (ipvsadm-common.ts)
  'ipvsadm.not-numeric':
    "'{value}' is not ADDRESS:PORT in numbers (10.96.0.10:53, [fd00::10]:53); ipvsadm without -n prints names: paste the output of {command}",
  'ipvsadm.mask':
    'persistence mask {value} is not modelled: the lab keeps one persistence template per client address',
  'ipvsadm.pe': 'persistence engine {value} is not modelled: persistence is by client address',
  'ipvsadm.ops':
    'one-packet scheduling (ops) is not modelled: UDP datagrams of a client share a connection',
  'ipvsadm.sched-flags': 'scheduler flags {flag} {value} are not modelled',
  'ipvsadm.service-twice': 'this virtual service is already defined at line {line}',
  'ipvsadm.server-twice': 'this real server is already in the service at line {line}',
  'ipvsadm.fwm':
    'firewall-mark virtual services (FWM, -f) are not modelled: kube-proxy does not make them; packets with the mark are not load-balanced in the trace',
  'ipvsadm.method.route':
    "direct routing (Route, -g) is not modelled (only Masq, kube-proxy's): a connection scheduled to this server stops there in the trace",
  'ipvsadm.method.tunnel':
    "IP-in-IP tunnelling (Tunnel, -i) is not modelled (only Masq, kube-proxy's): a connection scheduled to this server stops there in the trace",
  'ipvsadm.method.local':
    "local delivery without NAT (Local) is not modelled (only Masq, kube-proxy's): a connection scheduled to this server stops there in the trace",
  // ipvsadm -Ln (ipvsadm.ts)
  'ipvsadm-Ln.flag': "'{flag}' is not a flag ipvsadm -Ln prints (persistent, mask, pe, ops)",
  'ipvsadm-Ln.counters':
    'this is a listing with {columns} (ipvsadm -Ln --stats, --rate, --thresholds or --persistent-conn): it has no weights or forwarding method; paste the output of ipvsadm -Ln',
  'ipvsadm-Ln.line':
    "'{word}' does not start a line of ipvsadm -Ln (a service: TCP, UDP, SCTP; a real server: ->)",
  'ipvsadm-Ln.scheduler': 'a virtual service line ends with its scheduler (rr)',
  'ipvsadm-Ln.server-first': 'a real server (->) before any virtual service line (TCP, UDP, SCTP)',
  'ipvsadm-Ln.forward': "'{value}' is not a forwarding method (Masq, Route, Tunnel, Local)",
  'ipvsadm-Ln.weight': "'{value}' is not a weight (0..65535)",
  'ipvsadm-Ln.counts': 'a real server line ends with its ActiveConn and InActConn counts',
  // ipvsadm -S -n (ipvsadm-rules.ts)
  'ipvsadm-S.needs-service': '{option} needs the virtual service (ADDRESS:PORT)',
  'ipvsadm-S.needs-scheduler': '{option} needs a scheduler name (rr)',
  'ipvsadm-S.needs-server': '{option} needs the real server (ADDRESS:PORT)',
  'ipvsadm-S.weight': '{option} takes a weight 0..65535',
  'ipvsadm-S.option':
    "'{option}' is not an option ipvsadm -S prints (-t, -u, --sctp-service, -s, -p, -r, -m, -g, -i, -w)",
  'ipvsadm-S.command':
    "'{word}': ipvsadm -S prints -A (a virtual service) and -a (a real server) lines; is this the whole output of ipvsadm -S -n?",
  'ipvsadm-S.no-service':
    '{command} needs its virtual service: -t, -u or --sctp-service ADDRESS:PORT',
  'ipvsadm-S.no-server': '-a needs its real server: -r ADDRESS:PORT',
  'ipvsadm-S.server-first': 'a real server (-a) of a virtual service no -A line defines before it',
  // iptables-save, nft list ruleset (rules-dump.ts)
  'rules.unsupported': '{what}: the lab does not evaluate it; a packet reaching it stops there',
  // The dumps together (build.ts)
  'dump.unknown':
    'not a dump the lab knows: paste the output of iptables-save, ip6tables-save, nft list ruleset, ip -j addr, ip -j route, ipset save or ipvsadm -Ln (or pick its kind)',
  'dump.second': 'a second {kind} dump: the host has one; remove one of them',
  'dump.second-ipvsadm': 'a second ipvsadm dump: the host has one IPVS table; remove one of them',
  'dump.twice':
    "table {family} {table} is iptables-nft's, the same rules as the {tool}-save dump: the host runs them twice; remove it from this dump (or remove the iptables-save dump)",
  // The form's fields (build.ts, extras.ts)
  'form.no-addresses':
    "give the host's addresses (no ip -j addr dump was given), e.g. 192.168.50.38/24",
  'form.address': "'{value}' is not an address with a prefix length, e.g. 192.168.50.38/24",
  'form.gateway': "'{value}' is not an IP address, e.g. 192.168.50.1",
  'form.listener':
    "line {line}: '{text}': write PROCESS PROTO ADDRESS:PORT, e.g. sshd tcp 0.0.0.0:22",
  // The packet (probe.ts)
  'packet.port': "'{value}': a port is a whole number from 1 to 65535",
  'packet.dst': "'{value}' is not an IP address, e.g. 192.168.50.100",
  'packet.wire-src': 'a packet from the wire needs a source address',
  'packet.families': '{src} and {dst} are of different IP versions; a packet has one',
  'packet.iface': "the host has no interface '{iface}' (it has {interfaces})",
} as const;

export type OwnHostErrorKey = keyof typeof OWN_HOST_ERRORS_EN;
export type OwnHostParams = Readonly<Record<string, string | number>>;
