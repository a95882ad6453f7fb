/**
 * kube-proxy's nftables object names (pkg/proxy/nftables/proxier.go, `hashAndTruncate`,
 * `servicePortChainNameBase`, `servicePortEndpointChainNameBase`; read at danwinship/kubernetes
 * 07c76c3a and checked against every name in kubernetes/kubernetes@81810de6's
 * TestOverallNFTablesRules): a base `H8-ns/name/proto/port` (endpoints append `__ip/port`, IPv6
 * colons written as dots), `H8` = the first 8 RFC 4648 base32 characters of SHA-256 of the base
 * without hash; bases longer than 240 characters are cut to 237 plus `...` (the hash is taken
 * first, so cut names stay unique). Followed: kube-proxy v1.34/v1.35.
 */
import { hash16 } from '../proxier/hash.ts';

/** knftables.NameLengthMax (256) minus the longest prefix kube-proxy uses (16). */
export const CHAIN_NAME_BASE_MAX = 240;

export const NFT_PREFIX = {
  cluster: 'service-',
  local: 'local-',
  external: 'external-',
  firewall: 'firewall-',
  endpoint: 'endpoint-',
  affinity: 'affinity-',
} as const;

const PER_SERVICE = /^(?:service|local|external|firewall|endpoint)-[A-Z2-7]{8}-/;

/**
 * A chain kube-proxy writes per Service port or endpoint (`service-H8-...`, `local-`,
 * `external-`, `firewall-`, `endpoint-`): of the 10,000 such chains of a 5,000-Service node a
 * packet reaches two, so the engine compiles their rules when reached (HostSpec.deferNftChains).
 */
export function isPerServiceNftChain(name: string): boolean {
  return PER_SERVICE.test(name);
}

/**
 * `H8(s)`: 8 base32 characters encode exactly the first 5 bytes of the digest, the same bytes as
 * the first 8 of iptables' H16 (shared, memoised).
 */
export function hash8(text: string): string {
  return hash16(text).slice(0, 8);
}

/** hashAndTruncate: `H8(name)-name`, cut to 237 characters plus `...` past 240. */
export function hashAndTruncate(name: string): string {
  const out = `${hash8(name)}-${name}`;
  return out.length > CHAIN_NAME_BASE_MAX ? `${out.slice(0, CHAIN_NAME_BASE_MAX - 3)}...` : out;
}

/** `ns/name/proto/portName` (an unnamed port leaves the last part empty). */
export function servicePortBase(ns: string, name: string, proto: string, port: string): string {
  return hashAndTruncate(`${ns}/${name}/${proto}/${port}`);
}

/**
 * The endpoint part `__ip/port`: the endpoint as `ip:port` or `[ip6]:port` (net.JoinHostPort),
 * split again as net.SplitHostPort does; IPv6 colons are not allowed in a chain name.
 */
export function endpointBase(
  ns: string,
  name: string,
  proto: string,
  port: string,
  endpoint: string,
): string {
  const i = endpoint.lastIndexOf(':');
  const host = endpoint.slice(0, i).replace(/^\[|\]$/g, '');
  const epPort = endpoint.slice(i + 1);
  return hashAndTruncate(`${ns}/${name}/${proto}/${port}__${host.replaceAll(':', '.')}/${epPort}`);
}
