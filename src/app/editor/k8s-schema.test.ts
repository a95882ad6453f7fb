/** The editor's schema accepts every document of every exercise answer (no false squiggles). */
import { readdirSync, readFileSync } from 'node:fs';
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { K8S_SCHEMA } from './k8s-schema.ts';

const dir = new URL('../../../exercises/', import.meta.url);
const validate = new Ajv({ strict: false, allErrors: true }).compile(K8S_SCHEMA);

describe('the editor schema and the exercises', () => {
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.yaml'))) {
    it(`accepts every document of ${f}'s answers, NodeConfig included`, () => {
      const ex = parse(readFileSync(new URL(f, dir), 'utf8')) as {
        solutions: { manifests: string }[];
      };
      for (const s of ex.solutions)
        for (const doc of parseAllDocuments(s.manifests)) {
          const v: unknown = doc.toJS();
          if (v === null) continue;
          validate(v);
          expect(validate.errors ?? []).toEqual([]);
        }
    });
  }
  it('accepts the Calico documents of the scenarios and flags a dash port range', () => {
    const sc = parse(
      readFileSync(
        new URL('../../../scenarios/nodeport-calico-host-endpoints.yaml', import.meta.url),
        'utf8',
      ),
    ) as { variants: { manifests?: string }[] };
    let calico = 0;
    for (const v of sc.variants)
      for (const doc of parseAllDocuments(v.manifests ?? '')) {
        const x = doc.toJS() as { apiVersion?: string } | null;
        if (x?.apiVersion !== 'projectcalico.org/v3') continue;
        calico++;
        validate(x);
        expect(validate.errors ?? []).toEqual([]);
      }
    expect(calico).toBeGreaterThan(0);
    validate({
      apiVersion: 'projectcalico.org/v3',
      kind: 'GlobalNetworkPolicy',
      metadata: { name: 'x' },
      spec: {
        ingress: [{ action: 'Deny', protocol: 'TCP', destination: { ports: ['30000-32767'] } }],
      },
    });
    expect(validate.errors?.length).toBeGreaterThan(0);
  });

  it('accepts a List as kubectl get -o yaml prints it, and checks each item', () => {
    const service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default', uid: '6f0e4b1e', resourceVersion: '1234' },
      spec: { clusterIP: '10.96.0.50', ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }] },
      status: { loadBalancer: {} },
    };
    validate({
      apiVersion: 'v1',
      kind: 'List',
      items: [service],
      metadata: { resourceVersion: '' },
    });
    expect(validate.errors ?? []).toEqual([]);
    validate({ apiVersion: 'v1', kind: 'List', items: [{ ...service, kind: 'Servce' }] });
    expect(validate.errors?.map((e) => e.instancePath)).toContain('/items/0/kind');
  });

  it('flags a misspelt NodeConfig field', () => {
    validate({
      apiVersion: 'lab.hookpath.io/v1',
      kind: 'NodeConfig',
      metadata: { name: 'x' },
      spec: { kubeProxy: { nodePortAdresses: [] } },
    });
    expect(validate.errors?.map((e) => e.params)).toContainEqual({
      additionalProperty: 'nodePortAdresses',
    });
  });
});
