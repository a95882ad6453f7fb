#!/bin/sh
# The IPVS dumps of the "Your host" fixtures (src/cluster/own-host/fixtures), for xs4773 of
# scenarios/ipvs-local-lb-from-inside.yaml. This kernel has no IPVS (and no dummy interfaces), so:
# - ipvsadm-Ln-ipvs.txt and ipvsadm-S-ipvs.txt are the engine's rendering of the node's IPVS
#   table (src/engine/ipvs/ipvsadm.ts, printed by `hookpath rules`), not ipvsadm's own output;
# - ip-addr-kube-ipvs0.json is `ip -j addr` of a throwaway network namespace (created and deleted
#   here; lo and a veth pair whose both ends stay inside it) where kube-ipvs0 carries the node's
#   ClusterIP and LoadBalancer IP as kube-proxy binds them (/32, left DOWN, NOARP). kube-proxy
#   makes kube-ipvs0 a dummy interface (pkg/proxy/ipvs/proxier.go, DefaultDummyDevice); it is a
#   bridge without ports here, which `ip -j addr` (without -d) prints the same way but for its
#   MULTICAST flag, turned off like a dummy's; ip-route-kube-ipvs0.json is `ip -j route` there,
#   with the node's pod network on cni0.
# Run as root from the repository root: sh src/kernel/capture-ipvs-dumps.sh
set -eu
OUT=src/cluster/own-host/fixtures
NS=hpipvs$$
TMP=$(mktemp -d)
cleanup() {
  ip netns del "$NS" 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT INT TERM
x() { timeout 15 ip netns exec "$NS" "$@"; }

npx tsx src/cli/main.ts rules scenarios/ipvs-local-lb-from-inside.yaml --node xs4773 >"$TMP/all"
# A `# TITLE` block of the output, its `#   ` prefix removed.
block() { awk -v t="# $1" '$0 == t { on = 1; next } on && /^#   / { sub(/^#   /, ""); print; next } on { exit }' "$TMP/all"; }
block 'ipvsadm -Ln' >"$OUT/ipvsadm-Ln-ipvs.txt"
block 'ipvsadm -S -n' >"$OUT/ipvsadm-S-ipvs.txt"
addrs=$(block 'ip -4 addr show kube-ipvs0 (every ClusterIP, external IP and LoadBalancer IP is a local address)' | awk '{ print $2 }')

ip netns add "$NS"
x ip link set lo up
x ip link add eth0 type veth peer name wire0
x ip link set wire0 up
x ip link set eth0 up
x ip addr add 10.34.251.73/24 dev eth0
x ip route add default via 10.34.251.1 dev eth0
x ip link add kube-ipvs0 type bridge
x ip link set kube-ipvs0 arp off multicast off
for a in $addrs; do x ip addr add "$a" dev kube-ipvs0; done
# The pod network of the node (the nginx pod 10.244.1.10 is on xs4773): cni0, a bridge as
# flannel's and the bridge plugin's are.
x ip link add cni0 type bridge
x ip link set cni0 up
x ip addr add 10.244.1.1/24 dev cni0
x ip -j addr >"$OUT/ip-addr-kube-ipvs0.json"
x ip -j route >"$OUT/ip-route-kube-ipvs0.json"
echo "captured into $OUT"
