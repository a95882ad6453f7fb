/**
 * kube-proxy modes in scenarios: `kubeProxy.mode` (cluster-wide, per node, in a NodeConfig),
 * `kubeProxyModes` (the modes a scenario runs in) and a probe's `byMode`. An IPVS-mode node gets
 * kube-ipvs0 and virtual servers; nftables-mode nodes get kube-proxy's nft table and keep their own iptables rules.
 */
import { valueOf } from '../engine/index.ts';
import { serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { clusterOf } from './lab.ts';
import { loadScenario, resolveVariant } from './scenario.ts';
import { miniWith } from './testing/mini-scenario.ts';

const errorsOf = (text: string) => {
  const scenarioRead = loadScenario(text);
  const scenario = valueOf(scenarioRead);
  const { diagnostics } = scenarioRead;
  const built = scenario ? clusterOf(scenario, undefined, undefined).diagnostics : [];
  return [...diagnostics, ...built].filter((d) => d.severity === 'error');
};

const MODES = miniWith(
  'manifests: |',
  'kubeProxyModes: [iptables, nftables]\nmanifests: |',
).replace(
  '    expect: { outcome: answered }\n',
  `    expect: { outcome: answered }
    byMode:
      nftables:
        expect: { outcome: refused }
        note: { en: Only the primary address., zh: 只在主地址上。 }
`,
);

describe('kube-proxy modes', () => {
  it('takes ipvs cluster-wide and per node: the node gets kube-ipvs0 and virtual servers', () => {
    const text = miniWith(
      '      ip: 192.168.50.39',
      '      ip: 192.168.50.39\n      kubeProxy: { mode: ipvs }',
    );
    expect(errorsOf(text)).toEqual([]);
    const scenario = valueOf(loadScenario(text));
    if (!scenario) throw new Error('scenario did not load');
    const c = clusterOf(scenario, undefined, undefined).cluster;
    expect(c?.modeOf('worker-1')).toBe('ipvs');
    expect(c?.modeOf('cp-1')).toBe('iptables');
    expect(c?.ipvsOf('worker-1')?.ipvsadm).toContain('-> ');
    expect(c?.ipvsOf('cp-1')).toBeUndefined();
    expect(c?.rulesOf('worker-1')).toContain('KUBE-IPVS-FILTER');
  });

  it('takes ipvs in a NodeConfig for the nodes it selects', () => {
    const text = miniWith(
      'manifests: |\n',
      `manifests: |
  apiVersion: lab.hookpath.io/v1
  kind: NodeConfig
  metadata: { name: legacy }
  spec:
    nodeSelector: { kubernetes.io/hostname: worker-1 }
    kubeProxy: { mode: ipvs }
  ---
`,
    );
    expect(errorsOf(text)).toEqual([]);
    const scenario = valueOf(loadScenario(text));
    if (!scenario) throw new Error('scenario did not load');
    expect(clusterOf(scenario, undefined, undefined).cluster?.modeOf('worker-1')).toBe('ipvs');
  });

  it('refuses a byMode for a mode the scenario does not run in', () => {
    const text = MODES.replace('kubeProxyModes: [iptables, nftables]\n', '');
    const [e] = errorsOf(text);
    expect(e?.field).toBe('probes.1.byMode.nftables');
    expect(e?.message).toContain('add nftables to kubeProxyModes (now iptables)');
  });

  it('runs the first listed mode by default, and each listed mode with its own expectation', () => {
    const scenario = valueOf(loadScenario(MODES));
    if (!scenario) throw new Error('scenario did not load');
    const ipt = resolveVariant(scenario.def);
    const nft = resolveVariant(scenario.def, undefined, 'nftables');
    if ('error' in ipt || 'error' in nft) throw new Error('not resolved');
    expect(ipt.mode).toBe('iptables');
    expect(ipt.probes[1]?.expect).toEqual({ outcome: 'answered' });
    expect(nft.cluster.kubeProxy?.mode).toBe('nftables');
    expect(nft.probes[1]?.expect).toEqual({ outcome: 'refused' });
    expect(nft.probes[1]?.note?.en).toBe('Only the primary address.');
    const none = resolveVariant(scenario.def, undefined, 'ipvs' as never);
    expect(none).toEqual({
      error:
        'the scenario does not run in ipvs mode; its kube-proxy modes are iptables, nftables (kubeProxyModes)',
    });
  });

  it('gives an nftables-mode node kube-proxy’s nft table and leaves its iptables rules its own', () => {
    const scenario = valueOf(loadScenario(MODES));
    if (!scenario) throw new Error('scenario did not load');
    const c = clusterOf(scenario, undefined, undefined, 'nftables').cluster;
    if (!c) throw new Error('no cluster');
    expect(c.modeOf('cp-1')).toBe('nftables');
    const nft = c.nftablesOf('cp-1') ?? '';
    expect(nft).toContain('add table ip kube-proxy');
    expect(nft).toContain('add element ip kube-proxy nodeport-ips { 192.168.50.38 }');
    // The ServiceCIDR of the cluster: unallocated addresses in it are dropped.
    expect(nft).toContain('ip daddr { 10.96.0.0/12 } drop');
    const ipt = c.rulesOf('cp-1') ?? '';
    expect(ipt).toContain('-A PREROUTING -p tcp --dport 22 -j ACCEPT');
    expect(ipt).not.toContain('KUBE-');
    // iptables mode: no nft table, kube-proxy's chains in the iptables rules.
    const i = clusterOf(scenario, undefined, undefined, 'iptables').cluster;
    expect(i?.nftablesOf('cp-1')).toBeUndefined();
    expect(i?.rulesOf('cp-1')).toContain('KUBE-SERVICES');
  });

  it('generates rules one byte a character from a scenario with Chinese in it', () => {
    // A wide character anywhere made every name read from the file, and every rule generated
    // with those names, two bytes a character: 8.8 MB of nft text at 5,000 Services, not 4.4.
    const oneByte = (s: string) => serialize(s)[2] === 0x22;
    expect(oneByte(MODES)).toBe(false);
    const scenario = valueOf(loadScenario(MODES));
    if (!scenario) throw new Error('scenario did not load');
    const nft = clusterOf(scenario, undefined, undefined, 'nftables').cluster;
    const ipt = clusterOf(scenario, undefined, undefined, 'iptables').cluster;
    expect(nft?.nftablesOf('cp-1')).toContain('add table ip kube-proxy');
    expect(oneByte(nft?.nftablesOf('cp-1') ?? '')).toBe(true);
    expect(ipt?.rulesOf('cp-1')).toContain('KUBE-SERVICES');
    expect(oneByte(ipt?.rulesOf('cp-1') ?? '')).toBe(true);
  });

  it('keeps a node’s own mode when the scenario switches the cluster’s', () => {
    const mixed = MODES.replace(
      '      ip: 192.168.50.39',
      '      ip: 192.168.50.39\n      kubeProxy: { mode: iptables }',
    );
    const scenario = valueOf(loadScenario(mixed));
    if (!scenario) throw new Error('scenario did not load');
    const c = clusterOf(scenario, undefined, undefined, 'nftables').cluster;
    expect(c?.modeOf('cp-1')).toBe('nftables');
    expect(c?.modeOf('worker-1')).toBe('iptables');
  });

  it('switches a node’s mode from a NodeConfig', () => {
    const text = MODES.replace(
      'manifests: |\n',
      `manifests: |
  apiVersion: lab.hookpath.io/v1
  kind: NodeConfig
  metadata: { name: nft-workers }
  spec:
    nodeSelector: { kubernetes.io/hostname: worker-1 }
    kubeProxy: { mode: nftables }
  ---
`,
    );
    const scenario = valueOf(loadScenario(text));
    if (!scenario) throw new Error('scenario did not load');
    const c = clusterOf(scenario, undefined, undefined, 'iptables').cluster;
    expect(c?.modeOf('cp-1')).toBe('iptables');
    expect(c?.modeOf('worker-1')).toBe('nftables');
  });
});
