/**
 * The real-kernel harness (Node only, root, network namespaces, iptables-nft): runs a
 * NetworkSpec on the kernel, probes it, captures the kernel's own rule trace and compares all
 * of it with the engine. See the README section "Real-kernel cross-checks". Test helpers that
 * need vitest live in support.ts (describeKernel) and expect.ts (expectAgreement, traceOf).
 */
export { KernelLab, runKernelProbes } from './lab.ts';
export type { KernelProbe, KernelProbeResult, LabOptions } from './lab.ts';
export { crossCheck, compareTraces, comparisonText, selectPackets } from './compare.ts';
export type { CrossCheck, CrossCheckOptions, TraceComparison } from './compare.ts';
export { engineVerdict, kernelVerdict, verdictText } from './verdict.ts';
export type { Verdict } from './verdict.ts';
export { kernelNotation, parseMonitor } from './kernel-trace.ts';
export type { HandleMap, KernelBlock, KernelEvent } from './kernel-trace.ts';
export { buildTopology } from './topology.ts';
export type { Topology } from './topology.ts';
export { kernelSupport } from './netns.ts';
export { clusterNetwork, endpoint, service, slice } from './cluster.ts';
export type { ClusterNode, ClusterSpec } from './cluster.ts';
