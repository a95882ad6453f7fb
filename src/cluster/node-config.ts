/**
 * Node settings written as documents among the manifests, so one editor (and one answer file)
 * holds everything a learner may change: `kind: NodeConfig` of `lab.hookpath.io/v1` adds host
 * rules (iptables-save text, loaded beside kube-proxy's as a second `iptables-restore` would) and
 * kube-proxy settings (the fields of KubeProxyConfiguration the lab models) to the nodes its
 * `nodeSelector` picks. In a real cluster the same change is a node's firewall unit, or a second
 * kube-proxy DaemonSet with its own ConfigMap and a nodeSelector (seeds/003 §2.2).
 */
import { diagnosticAt, parseRuleset, type Diagnostic } from '../engine/index.ts';
import { Reader } from '../kube/manifests/reader.ts';
import { isRecord, parseStream, type SourceDoc } from '../kube/manifests/yaml-source.ts';
import { mergeIptablesSave } from './merge-rules.ts';
import { blockStart, type ClusterSpec, type KubeProxySpec, type NodeSpec } from './scenario.ts';
import { clusterSettings } from './topology.ts';

export const NODE_CONFIG_API_VERSION = 'lab.hookpath.io/v1';
export const NODE_CONFIG_KIND = 'NodeConfig';

/** What one NodeConfig document set, for the task panel and the checker. */
export interface NodeConfigApplied {
  readonly name: string;
  readonly nodes: readonly string[];
  readonly rules: boolean;
  readonly kubeProxy: boolean;
  readonly sysctls: boolean;
}

export interface NodeConfigResult {
  readonly cluster: ClusterSpec;
  /** The manifests with every NodeConfig document blanked out (line numbers unchanged). */
  readonly manifests: string;
  readonly diagnostics: readonly Diagnostic[];
  readonly applied: readonly NodeConfigApplied[];
}

const KUBE_PROXY_FIELDS = [
  'mode',
  'nodePortAddresses',
  'masqueradeAll',
  'localhostNodePorts',
  'clusterCIDR',
];
const SYSCTL_FIELDS = ['routeLocalnet', 'rpFilter', 'ipForward'];

function isNodeConfig(doc: SourceDoc): boolean {
  return isRecord(doc.value) && doc.value.kind === NODE_CONFIG_KIND;
}

/** Replaces the lines of a document by empty lines: the reader skips it, positions stay. */
function blank(lines: string[], doc: SourceDoc): void {
  const s = doc.span([]);
  for (let i = s.line - 1; i < Math.min(s.endLine, lines.length); i++) {
    // A span ends at column 1 of the line after the document when the value ends with a newline.
    if (i === s.endLine - 1 && s.endColumn <= 1 && i > s.line - 1) break;
    const l = lines[i] as string;
    if (l.trim() !== '---') lines[i] = '';
  }
}

function selects(
  selector: Record<string, string>,
  labels: Readonly<Record<string, string>>,
): boolean {
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

function readKubeProxy(r: Reader): KubeProxySpec | null {
  const m = r.map(['spec', 'kubeProxy']);
  if (!Object.keys(m).length) return null;
  for (const k of Object.keys(m))
    if (!KUBE_PROXY_FIELDS.includes(k))
      r.report(
        ['spec', 'kubeProxy', k],
        `'${k}' is not a kube-proxy setting the lab models; use ${KUBE_PROXY_FIELDS.join(', ')}`,
        'error',
        true,
      );
  const out: { -readonly [K in keyof KubeProxySpec]: KubeProxySpec[K] } = {};
  if ('mode' in m) {
    // KubeProxyConfiguration's `mode`: a second kube-proxy DaemonSet with a nodeSelector.
    const mode = r.str(['spec', 'kubeProxy', 'mode'], { enum: ['iptables', 'nftables', 'ipvs'] });
    if (mode === 'iptables' || mode === 'nftables' || mode === 'ipvs') out.mode = mode;
  }
  if ('nodePortAddresses' in m) {
    const list = r.list(['spec', 'kubeProxy', 'nodePortAddresses']);
    const ok = list.every((v, i) => {
      const good = typeof v === 'string' && (v === 'primary' || /^[0-9a-f.:]+\/\d{1,3}$/i.test(v));
      if (!good)
        r.report(
          ['spec', 'kubeProxy', 'nodePortAddresses', i],
          `'${String(v)}' is not a CIDR (e.g. 127.0.0.0/8 or 192.168.10.0/24) or 'primary'`,
        );
      return good;
    });
    if (ok) out.nodePortAddresses = list as string[];
  }
  const masq = r.bool(['spec', 'kubeProxy', 'masqueradeAll']);
  if (masq !== undefined) out.masqueradeAll = masq;
  const lnp = r.bool(['spec', 'kubeProxy', 'localhostNodePorts']);
  if (lnp !== undefined) out.localhostNodePorts = lnp;
  if ('clusterCIDR' in m)
    out.clusterCIDR =
      m.clusterCIDR === null ? null : (r.str(['spec', 'kubeProxy', 'clusterCIDR']) ?? null);
  return out;
}

function readSysctls(r: Reader): NodeSpec['sysctls'] | null {
  const m = r.map(['spec', 'sysctls']);
  if (!Object.keys(m).length) return null;
  for (const k of Object.keys(m))
    if (!SYSCTL_FIELDS.includes(k))
      r.report(
        ['spec', 'sysctls', k],
        `'${k}' is not a sysctl the lab models; use ${SYSCTL_FIELDS.join(', ')}`,
        'error',
        true,
      );
  const out: { routeLocalnet?: boolean; rpFilter?: 0 | 1 | 2; ipForward?: boolean } = {};
  const rl = r.bool(['spec', 'sysctls', 'routeLocalnet']);
  if (rl !== undefined) out.routeLocalnet = rl;
  const fw = r.bool(['spec', 'sysctls', 'ipForward']);
  if (fw !== undefined) out.ipForward = fw;
  const rp = r.int(['spec', 'sysctls', 'rpFilter'], { min: 0, max: 2 });
  if (rp !== undefined) out.rpFilter = rp as 0 | 1 | 2;
  return out;
}

/**
 * Applies the NodeConfig documents of `manifests` to the cluster (in document order; host rules
 * of several documents add up) and returns the manifests without them. Problems carry their
 * position in the manifests, rule errors included.
 */
// eslint-disable-next-line max-lines-per-function -- applies a NodeConfig's fields in the order its schema lists them
export function applyNodeConfigs(spec: ClusterSpec, manifests: string): NodeConfigResult {
  if (!manifests.includes(NODE_CONFIG_KIND))
    return { cluster: spec, manifests, diagnostics: [], applied: [] };
  const stream = parseStream(manifests);
  const docs = stream.docs.filter(isNodeConfig);
  if (!docs.length) return { cluster: spec, manifests, diagnostics: [], applied: [] };
  const lines = manifests.split('\n');
  const diagnostics: Diagnostic[] = [];
  const settings = clusterSettings(spec);
  const nodes: NodeSpec[] = [...spec.nodes];
  const applied: NodeConfigApplied[] = [];
  for (const doc of docs) {
    const r = new Reader(doc, `NodeConfig (document ${doc.index + 1})`, diagnostics);
    const before = diagnostics.length;
    r.str(['apiVersion'], { required: true, enum: [NODE_CONFIG_API_VERSION] });
    const name = r.str(['metadata', 'name'], { required: true }) ?? '';
    if (name) r.label = `NodeConfig ${name}`;
    const v = doc.value as Record<string, unknown>;
    for (const k of Object.keys(v))
      if (!['apiVersion', 'kind', 'metadata', 'spec'].includes(k))
        r.report(
          [k],
          `'${k}' is not a field of a NodeConfig; put settings under spec:`,
          'error',
          true,
        );
    for (const k of Object.keys(r.map(['spec'])))
      if (!['nodeSelector', 'rules', 'kubeProxy', 'sysctls'].includes(k))
        r.report(
          ['spec', k],
          `'${k}' is not a field of a NodeConfig spec; use nodeSelector, rules, kubeProxy, sysctls`,
          'error',
          true,
        );
    const selector = r.labels(['spec', 'nodeSelector']);
    const rules = r.str(['spec', 'rules']);
    const kubeProxy = readKubeProxy(r);
    const sysctls = readSysctls(r);
    const chosen = settings.nodes.filter((n) => selects(selector, n.labels)).map((n) => n.name);
    if (!chosen.length)
      r.report(
        ['spec', 'nodeSelector'],
        `selects no node; the nodes are ${settings.nodes
          .map(
            (n) =>
              `${n.name} (${Object.entries(n.labels)
                .filter(([k]) => !k.startsWith('kubernetes.io/'))
                .map(([k, val]) => (val ? `${k}=${val}` : k))
                .join(', ')})`,
          )
          .join('; ')}`,
      );
    let ruleText = rules;
    if (rules?.trim()) {
      const errors = parseRuleset(rules).diagnostics.filter((d) => d.severity === 'error');
      if (errors.length) {
        const at = doc.span(['spec', 'rules']);
        const block = blockStart(lines, at);
        for (const e of errors)
          diagnostics.push(
            diagnosticAt(
              {
                line: block.line + e.line - 1,
                column: block.indent + e.column,
                endLine: block.line + e.line - 1,
                endColumn: block.indent + e.column + 1,
              },
              e.hint ? `${e.message}. ${e.hint}` : e.message,
              { field: `${r.label}: spec.rules` },
            ),
          );
        ruleText = undefined;
      }
    }
    blank(lines, doc);
    if (diagnostics.slice(before).some((d) => d.severity === 'error')) continue;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i] as NodeSpec;
      if (!chosen.includes(n.name)) continue;
      nodes[i] = {
        ...n,
        ...(ruleText?.trim() ? { rules: mergeIptablesSave(n.rules ?? '', ruleText) } : {}),
        ...(kubeProxy ? { kubeProxy: { ...n.kubeProxy, ...kubeProxy } } : {}),
        ...(sysctls ? { sysctls: { ...n.sysctls, ...sysctls } } : {}),
      };
    }
    applied.push({
      name,
      nodes: chosen,
      rules: !!ruleText?.trim(),
      kubeProxy: kubeProxy !== null,
      sysctls: sysctls !== null,
    });
  }
  return { cluster: { ...spec, nodes }, manifests: lines.join('\n'), diagnostics, applied };
}
