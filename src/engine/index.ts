/**
 * Hookpath's simulation core: a netfilter engine that decides where a packet goes by
 * evaluating real iptables rules in the kernel's hook order, with conntrack and routing.
 * Pure TypeScript, no DOM: it runs in a Web Worker and in Node. This file is its public API.
 */
export { parseRuleset, emptyRuleset } from './rules/parse.ts';
export type { ParseResult, ParseOptions } from './rules/parse.ts';
export { serializeRuleset } from './rules/serialize.ts';
export type { Chain, Hook, Rule, Ruleset, Table, TableName } from './rules/types.ts';
export {
  diagnosticAt,
  fieldError,
  formatDiagnostic,
  hasErrors,
  resultOf,
  valueOf,
} from './diagnostic.ts';
export type { Diagnostic, Result, Severity, SourceSpan } from './diagnostic.ts';
export { BUILTIN_CHAINS, TABLES } from './rules/types.ts';
export type {
  HostSpec,
  InterfaceSpec,
  ListenerSpec,
  RouteSpec,
  SysctlSpec,
  IpsetSpec,
} from './host.ts';
export { buildHost, hostProblemText } from './runtime.ts';
export type { HostRuntime, ParsedRules } from './runtime.ts';
export { buildNetwork, newNetworkState, cloneNetworkState } from './network.ts';
export type { Network, NetworkSpec, NetworkState, Outcome, ProbeSpec } from './network.ts';
export {
  simulate,
  enumerateOutcomes,
  outcomeKey,
  limitText,
  ENUMERATION_LIMITS,
} from './simulate.ts';
export type { Simulation, Enumeration, EnumerationLimit, SimulateOptions } from './simulate.ts';
export type { Choice } from './choice.ts';
export type { CtSnapshot, TraceEvent, EventType, Verdict, Explain } from './trace.ts';
export { xtablesNotation, nftNotation } from './trace.ts';
export type { NftTraceInfo } from './trace.ts';
export { parseNftRuleset, emptyNftRuleset } from './nft/parse.ts';
export type { NftParseOptions } from './nft/parse.ts';
export type {
  NftChain,
  NftFamily,
  NftParseResult,
  NftRule,
  NftRuleset,
  NftSet,
  NftTable,
  NftVerdict,
  BaseChain,
} from './nft/types.ts';
export { hookPlan, nftTracks, XT_PRIORITY } from './nft/hooks.ts';
export type { HookEntry } from './nft/hooks.ts';
export { explainText, EXPLAIN_EN, format } from './explain.ts';
export type { Packet, L4Proto, TcpFlags } from './packet.ts';
export { packetText, SYN } from './packet.ts';
export type { Tuple, CtState } from './conntrack.ts';
export { tupleText } from './conntrack.ts';
export { ipvsadmList, ipvsadmSave, compileIpvs } from './ipvs/index.ts';
export type {
  IpvsSpec,
  IpvsServiceSpec,
  IpvsRealServerSpec,
  IpvsProto,
  IpvsForward,
} from './ipvs/index.ts';
export {
  parseCidr,
  canonicalIp,
  cidrContains,
  ipFamily,
  parseIPv4,
  formatIPv4,
  parseIfAddr,
  ipToNum,
} from './ip.ts';
export * from './replay/index.ts';
export { SUPPORTED_SET_TYPES } from './ipset.ts';
