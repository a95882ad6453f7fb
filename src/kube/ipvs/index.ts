/**
 * kube-proxy (IPVS mode) generator: Services and EndpointSlices in, what kube-proxy's IPVS
 * proxier programs on one node out: kube-ipvs0 addresses, ipsets, iptables rules, IPVS virtual
 * and real servers. Pure TypeScript. Followed: kube-proxy v1.34/v1.35 (IPVS mode deprecated in
 * v1.35, KEP-5495). Results are modelled from kube-proxy's and the kernel's sources; they are
 * checked against kube-proxy's own IPVS tests, not on a kernel (no IPVS module here).
 */
export { generateIpvsRules } from './generate.ts';

/** How every IPVS result is marked wherever it is shown (CLI, lab data). */
export const IPVS_MODELLED = 'modelled from kernel and kube-proxy sources, not checked on a kernel';
/** IPVS mode's status upstream. */
export const IPVS_DEPRECATION =
  'kube-proxy IPVS mode is deprecated since Kubernetes v1.35 (KEP-5495); nftables mode is its replacement';
export type { IpvsConfig, IpvsRules, VirtualServerInfo, VirtualServerKind } from './generate.ts';
export { IPSET_INFO, ipsetName, ipsetSave, ipsetSpecs } from './ipsets.ts';
export type { GeneratedSet, SetType } from './ipsets.ts';
export { isValidForSet, nodeAddressSet, nodePortIPs } from './node-ips.ts';
export { JUMP_CHAINS, NAT_CHAINS, FILTER_CHAINS } from './rules.ts';
