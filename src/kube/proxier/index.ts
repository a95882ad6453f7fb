/**
 * kube-proxy (iptables mode) rule generator: Services and EndpointSlices in, the iptables-restore
 * text kube-proxy writes for one node out, ready for the netfilter engine (src/engine).
 * Pure TypeScript, runs in a Web Worker. Followed: kube-proxy v1.34/v1.35.
 */
export {
  generateIptablesRules,
  generateProxierRules,
  chainOwners,
  computeProbability,
  LARGE_CLUSTER_ENDPOINTS,
} from './generate.ts';
export type { ChainOwner, GeneratedRules } from './generate.ts';
export type { EndpointRules, ServicePortRules } from './service-rules.ts';
export type { ServicePortInfo } from './service.ts';
export type { ProxyEndpoint } from './endpoints.ts';
export type { ProxierSettings } from './config.ts';
export { formatMark } from './config.ts';
export { hash16, endpointChainName, isPerServiceChain, portProtoHash } from './hash.ts';
export { JUMP_CHAINS, jumpRules } from './bootstrap.ts';
export { sortIptablesRules } from './sort-rules.ts';
