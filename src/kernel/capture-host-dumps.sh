#!/bin/sh
# Captures the real outputs the "Your host" importers are tested on (src/cluster/own-host): a
# scenario node's rules, as `hookpath rules` writes them, are loaded into a throwaway network
# namespace (created and deleted here, never linked to the root namespace: its only interfaces
# are lo and a veth pair whose both ends are inside it), and the kernel's own tools print them back: iptables-save, ip6tables-save,
# nft list ruleset, ip -j addr, ip -j route, ipset save. Run as root from the repository root:
#   sh src/kernel/capture-host-dumps.sh
# Needs iproute2, iptables (nft backend), nftables, ipset. Output: src/cluster/own-host/fixtures.
set -eu
OUT=src/cluster/own-host/fixtures
NS=hpcap$$
TMP=$(mktemp -d)
cleanup() {
  for n in "$NS-ipt" "$NS-nft" "$NS-ipvs"; do ip netns del "$n" 2>/dev/null || true; done
  rm -rf "$TMP"
}
trap cleanup EXIT INT TERM
hp() { npx tsx src/cli/main.ts "$@"; }
x() { ns=$1; shift; timeout 15 ip netns exec "$ns" "$@"; }

# cp-1 of vip22-sshd-or-service with its LoadBalancer Service on port 22 (iptables and nft modes).
hp rules scenarios/vip22-sshd-or-service.yaml --node cp-1 --variant lb-service >"$TMP/ipt.rules"
hp rules scenarios/vip22-sshd-or-service.yaml --node cp-1 --variant lb-service --mode nftables >"$TMP/kp.nft"
# xs4773 of ipvs-local-lb-from-inside: IPVS-mode rules that match kube-proxy's ipsets. The
# `ipset save` block of the output is the sets, the rest the iptables rules.
hp rules scenarios/ipvs-local-lb-from-inside.yaml --node xs4773 >"$TMP/ipvs.all"
sed -n 's/^#   \(create\|add\) /\1 /p' "$TMP/ipvs.all" >"$TMP/ipvs.sets"
grep -v '^#' "$TMP/ipvs.all" >"$TMP/ipvs.rules"

host() { # NS ADDR4/PLEN VIP GW4
  ip netns add "$1"
  x "$1" ip link set lo up
  # A veth pair whose both ends stay in the namespace (no dummy module on every kernel): eth0
  # has carrier, so its routes are usable, and nothing is linked to the outside.
  x "$1" ip link add eth0 type veth peer name wire0
  x "$1" ip link set wire0 up
  x "$1" ip link set eth0 up
  x "$1" ip addr add "$2" dev eth0
  x "$1" ip addr add "$3/32" dev eth0
  x "$1" ip -6 addr add fd00::38/64 dev eth0 nodad
  x "$1" ip route add default via "$4" dev eth0
  x "$1" ip -6 route add default via fd00::1 dev eth0
}

host "$NS-ipt" 192.168.50.38/24 192.168.50.100 192.168.50.1
x "$NS-ipt" ip route add 10.244.1.0/24 via 192.168.50.39 dev eth0
x "$NS-ipt" iptables-restore <"$TMP/ipt.rules"
x "$NS-ipt" ip6tables-restore <<'R6'
*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p ipv6-icmp -j ACCEPT
-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT
-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A INPUT -j DROP
COMMIT
R6
x "$NS-ipt" iptables-save >"$OUT/iptables-save.txt"
x "$NS-ipt" ip6tables-save >"$OUT/ip6tables-save.txt"
# What nft shows of iptables-nft's tables: xt matches it cannot print as nft.
x "$NS-ipt" nft list ruleset >"$OUT/nft-of-iptables-nft.txt"
x "$NS-ipt" ip -j addr >"$OUT/ip-addr.json"
x "$NS-ipt" ip -j -6 addr >"$OUT/ip-6-addr.json"
x "$NS-ipt" ip -j route >"$OUT/ip-route.json"
x "$NS-ipt" ip -j -6 route >"$OUT/ip-6-route.json"
x "$NS-ipt" ip -j route show table all >"$OUT/ip-route-all.json"

host "$NS-nft" 192.168.50.38/24 192.168.50.100 192.168.50.1
x "$NS-nft" nft -f "$TMP/kp.nft"
x "$NS-nft" nft list ruleset >"$OUT/nft-ruleset.txt"

host "$NS-ipvs" 10.34.251.73/24 10.34.251.210 10.34.251.1
x "$NS-ipvs" ipset restore <"$TMP/ipvs.sets"
x "$NS-ipvs" iptables-restore <"$TMP/ipvs.rules"
x "$NS-ipvs" ipset save >"$OUT/ipset-save.txt"
x "$NS-ipvs" iptables-save >"$OUT/iptables-save-ipvs.txt"
x "$NS-ipvs" ip -j addr >"$OUT/ip-addr-ipvs.json"
x "$NS-ipvs" ip -j route >"$OUT/ip-route-ipvs.json"
echo "captured into $OUT"
