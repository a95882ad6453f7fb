import { readFileSync } from 'node:fs';
import { valueOf } from '../engine/index.ts';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLab } from './lab.ts';
import { applyNodeConfigs } from './node-config.ts';
import { loadScenario, resolveVariant, type ClusterSpec } from './scenario.ts';

const scenario = readFileSync(
  join(import.meta.dirname, '../../scenarios/nodeport-close-on-core-nodes.yaml'),
  'utf8',
);
const loaded = valueOf(loadScenario(scenario));
const base = resolveVariant(loaded!.def, 'open') as { cluster: ClusterSpec; manifests: string };

const GUARD = `apiVersion: lab.hookpath.io/v1
kind: NodeConfig
metadata: { name: nodeport-guard }
spec:
  nodeSelector: { node-role: core }
  rules: |
    *raw
    :PREROUTING ACCEPT [0:0]
    -A PREROUTING -i eth0 -p tcp --dport 30000:32767 -j DROP
    COMMIT
`;

const labRun = (manifests: string, to = 'nodeport/web@core-1') =>
  runLab({ scenario, variant: 'open', manifests, path: { from: 'client/external', to } });

describe('NodeConfig documents in the manifests', () => {
  it('adds host rules to the nodes its selector picks, and only to them', () => {
    const withGuard = `${base.manifests}---\n${GUARD}`;
    expect(labRun(base.manifests).runs[0]?.outcome.kind).toBe('answered');
    const core = labRun(withGuard);
    expect(core.diagnostics).toEqual([]);
    expect(core.runs.map((r) => r.outcome.kind)).toEqual(['timeout']);
    const drop = core.runs[0]?.events.find((e) => e.type === 'rule' && e.verdict === 'DROP');
    expect(drop).toMatchObject({ host: 'core-1', table: 'raw', hook: 'PREROUTING' });
    expect(labRun(withGuard, 'nodeport/web@edge-1').runs[0]?.outcome.kind).toBe('answered');
  });

  it('sets kube-proxy options per node (nodePortAddresses: the port is gone)', () => {
    const cfg = `${base.manifests}---
apiVersion: lab.hookpath.io/v1
kind: NodeConfig
metadata: { name: core-nodeports }
spec:
  nodeSelector: { node-role: core }
  kubeProxy: { nodePortAddresses: [127.0.0.0/8] }
`;
    const r = labRun(cfg);
    expect(r.ok).toBe(true);
    expect(r.runs[0]?.outcome.kind).toBe('refused');
    expect(r.rules['core-1']).toContain('-d 127.0.0.1');
    expect(r.rules['edge-1']).toContain('--dst-type LOCAL -j KUBE-NODEPORTS');
  });

  it('keeps the line numbers of the other documents', () => {
    const text = `${GUARD}---\napiVersion: v1\nkind: Service\nmetadata: { name: x }\nspec:\n  ports: [{ port: 99999 }]\n`;
    const r = applyNodeConfigs(base.cluster, text);
    expect(r.manifests.split('\n')).toHaveLength(text.split('\n').length);
    expect(r.manifests).not.toContain('NodeConfig');
    const bad = runLab({ scenario, variant: 'open', manifests: text });
    const d = bad.diagnostics.find((x) => x.field?.includes('ports'));
    expect(d?.line).toBe(text.split('\n').findIndex((l) => l.includes('99999')) + 1);
  });

  it('reports a bad rule at its line in the manifests', () => {
    const text = GUARD.replace('--dport 30000:32767', '--dport 30000:32767 --bogus');
    const r = applyNodeConfigs(base.cluster, text);
    const line = text.split('\n').findIndex((l) => l.includes('--bogus')) + 1;
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({
      line,
      field: 'NodeConfig nodeport-guard: spec.rules',
    });
    expect(r.applied).toEqual([]);
  });

  it('says what is wrong with the document, where', () => {
    const text = `apiVersion: lab.hookpath.io/v1
kind: NodeConfig
metadata: { name: oops }
spec:
  nodeSelector: { node-role: gateway }
  kubeProxy: { nodePortAdresses: [127.0.0.0/8] }
`;
    const r = applyNodeConfigs(base.cluster, text);
    expect(r.diagnostics.map((d) => [d.line, d.message.split(';')[0]])).toEqual([
      [6, "'nodePortAdresses' is not a kube-proxy setting the lab models"],
      [5, 'selects no node'],
    ]);
    expect(r.diagnostics[1]?.message).toContain('node-role=core');
  });
});
