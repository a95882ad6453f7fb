import { describe, expect, it } from 'vitest';
import { loadScenario } from './scenario.ts';

describe('reading a scenario file', () => {
  it('quotes the value that does not have the expected form, at its position', () => {
    const { diagnostics } = loadScenario(`title: { en: t, zh: 题 }
description: { en: d, zh: 述 }
cluster:
  nodes:
    - { name: n1, ip: 192.168.50 }
manifests: ""
`);
    expect(diagnostics.map((d) => `${d.line}:${d.column} ${d.field}: ${d.message}`)).toEqual([
      "5:23 cluster.nodes.0.ip: '192.168.50' does not have the expected form (^(\\d{1,3}\\.){3}\\d{1,3}$)",
    ]);
  });
});
