/**
 * One service port's lines of the restore input, remembered by what they are made of. kube-proxy
 * writes each service port's rules in one go (its KUBE-SERVICES / KUBE-NODEPORTS entries and its
 * KUBE-SVC-/KUBE-SVL-/KUBE-EXT-/KUBE-FW-/KUBE-SEP- chains), so the node's text is the fixed lines,
 * then every port's chunk in order, then the fixed tail: when the lab re-simulates after an edit
 * to one Service, only that Service's chunk is written again; the text is the same, byte for
 * byte, as writing every port anew.
 */
import type { Categorized, ProxyEndpoint } from './endpoints.ts';
import { LineBuffer } from './line-buffer.ts';
import {
  writeServicePort,
  type LineBuffers,
  type ServicePortRules,
  type SyncContext,
} from './service-rules.ts';
import type { ServicePortInfo } from './service.ts';

/** A service port's lines in three of the four buffers (filter chains are all fixed lines). */
export interface ServiceChunk {
  readonly filterRules: string;
  readonly natChains: string;
  readonly natRules: string;
  readonly filterRuleCount: number;
  readonly natChainCount: number;
  readonly natRuleCount: number;
  readonly rules: ServicePortRules;
}

/**
 * Chunks by node setting (the context's key), each holding the chunks of that node's last
 * generation only: memory stays that of the last rules made for a few nodes (the nodes of a path
 * or two; a node's chunks are about its rules' text, ~10 MB at 400 Services x 100 replicas).
 */
const chunksByContext = new Map<string, Map<string, ServiceChunk>>();
const CONTEXTS_KEPT = 6;

/** Everything of a context writeServicePort reads (probabilities are a pure function). */
export function contextKey(ctx: SyncContext): string {
  return JSON.stringify([ctx.settings, ctx.masqueradeAll, ctx.nfacct, ctx.largeClusterMode]);
}

/**
 * Everything of a port and its endpoints writeServicePort reads, the lists' identities too. Its
 * values are canonical (addresses, CIDRs, numbers as the rules print them); the one free text,
 * the port's name, is quoted.
 */
function chunkKey(info: ServicePortInfo, cat: Categorized): string {
  const reachable = cat.reachable;
  let eps = '';
  for (const ep of reachable) eps += `${ep.ip} ${ep.text},`;
  const list = (l: readonly ProxyEndpoint[] | null): string => {
    if (l === null) return 'none';
    if (l === reachable) return 'reachable';
    let out = '';
    for (const ep of l) {
      const i = reachable.indexOf(ep);
      out += i >= 0 ? `${i},` : `${ep.ip} ${ep.text},`;
    }
    return out;
  };
  const c = info.chains;
  const flags =
    (info.externalPolicyLocal ? 1 : 0) |
    (info.internalPolicyLocal ? 2 : 0) |
    (info.externallyAccessible ? 4 : 0) |
    (info.usesClusterEndpoints ? 8 : 0) |
    (info.usesLocalEndpoints ? 16 : 0) |
    (cat.hasAny ? 32 : 0);
  return (
    `${JSON.stringify(info.name)}|${info.proto}|${info.clusterIP}|${info.port.port}|` +
    `${info.externalIPs.join(',')}|${info.loadBalancerVIPs.join(',')}|` +
    `${info.sourceRanges.map((r) => r.text).join(',')}|${info.nodePort}|` +
    `${info.healthCheckNodePort}|${flags}|${info.affinitySeconds}|` +
    `${c.cluster} ${c.local} ${c.external} ${c.firewall}|${eps}|${list(cat.cluster)}|${list(cat.local)}`
  );
}

function writeChunk(ctx: SyncContext, info: ServicePortInfo, cat: Categorized): ServiceChunk {
  const buf: LineBuffers = {
    filterChains: new LineBuffer(),
    filterRules: new LineBuffer(),
    natChains: new LineBuffer(),
    natRules: new LineBuffer(),
  };
  const rules = writeServicePort(ctx, info, cat, buf);
  return {
    filterRules: buf.filterRules.text(),
    natChains: buf.natChains.text(),
    natRules: buf.natRules.text(),
    filterRuleCount: buf.filterRules.length,
    natChainCount: buf.natChains.length,
    natRuleCount: buf.natRules.length,
    rules,
  };
}

/**
 * A chunk's decisions about this generation's port and endpoint objects (a remembered chunk's
 * were made with the previous generation's, equal in all the rules are made of). Made only when
 * asked for: the lab takes only the text.
 */
export function portRules(
  chunk: ServiceChunk,
  info: ServicePortInfo,
  cat: Categorized,
): ServicePortRules {
  const r = chunk.rules;
  if (r.info === info) return r;
  const endpoints = r.endpoints.map((e, i) => ({ ...e, endpoint: cat.reachable[i] ?? e.endpoint }));
  return { ...r, info, endpoints };
}

/** Writes the chunks of one node's service ports, reusing those of its previous generation. */
export class ChunkWriter {
  private readonly previous: Map<string, ServiceChunk>;
  private readonly next = new Map<string, ServiceChunk>();

  constructor(
    private readonly ctx: SyncContext,
    private readonly key = contextKey(ctx),
  ) {
    this.previous = chunksByContext.get(key) ?? new Map();
  }

  /** The port's chunk; its `rules` may be about earlier objects (see portRules). */
  write(info: ServicePortInfo, cat: Categorized): ServiceChunk {
    const k = chunkKey(info, cat);
    const hit = this.previous.get(k) ?? this.next.get(k);
    const chunk = hit ?? writeChunk(this.ctx, info, cat);
    this.next.set(k, chunk);
    return chunk;
  }

  /** Keeps this generation's chunks for the next one of the same node. */
  finish(): void {
    chunksByContext.delete(this.key);
    chunksByContext.set(this.key, this.next);
    if (chunksByContext.size > CONTEXTS_KEPT)
      chunksByContext.delete(chunksByContext.keys().next().value as string);
  }
}

/** Forgets every chunk (tests: a generation that writes every port anew). */
export function forgetChunks(): void {
  chunksByContext.clear();
}
