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
