/**
 * kube-proxy (nftables mode) rule generator: Services and EndpointSlices in, the `ip kube-proxy`
 * table kube-proxy writes for one node out, as `nft -f` text. Pure TypeScript, runs in a Web
 * Worker. Endpoint selection and the service model are iptables mode's (../proxier). Followed:
 * kube-proxy v1.34/v1.35.
 */
export {
  generateNftProxierRules,
  generateNftablesRules,
  nftablesConfig,
  NFT_NAMING,
} from './generate.ts';
export type { GeneratedNftRules } from './generate.ts';
export type { NftServicePortRules, NftEndpointRules } from './service-rules.ts';
export {
  hash8,
  hashAndTruncate,
  servicePortBase,
  endpointBase,
  isPerServiceNftChain,
  NFT_PREFIX,
} from './names.ts';
export { sortNftablesTransaction } from './sort.ts';
export { BASE_CHAINS, JUMP_CHAINS, CHAIN as NFT_CHAIN } from './setup.ts';
export type { NftFamily } from './transaction.ts';
