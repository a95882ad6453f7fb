import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import type { ProxierInput } from '../model.ts';
import { benchInput } from './bench.ts';
import { forgetChunks } from './chunks.ts';
import { generateProxierRules, type GeneratedRules } from './generate.ts';

const digest = (s: string) => bytesToHex(sha256(new TextEncoder().encode(s))).slice(0, 16);
const summary = (r: GeneratedRules) => [
  digest(r.dump),
  digest(r.restoreInput),
  digest(JSON.stringify(r.servicePorts)),
  r.counts,
];

/** One Service less (the fourth) and another's port changed (the eighth of the rest). */
function edited(input: ProxierInput): ProxierInput {
  const services = input.services
    .filter((_, i) => i !== 3)
    .map((s, i) => (i === 7 ? { ...s, ports: s.ports.map((p) => ({ ...p, port: 8080 })) } : s));
  return { ...input, services };
}

describe('service ports written as remembered chunks', () => {
  // Digests of what the generator wrote before it had chunks (every port written anew).
  const before: [number, number, string[]][] = [
    [3000, 3, ['3d0ac4fb597303b6', '6e866a2471f7425b', 'b92ecee4061a7913']],
    [200, 8, ['0c2b0207d4dc94af', 'e888944a5e24b9fd', '47b1fd12f1717fe6']],
  ];
  const beforeEdited: Record<string, string[]> = {
    3000: ['02aa8fc57da11454', '3d1af1758ce20d32', '8918b5a68573ae12'],
    200: ['33ef7162374c16f6', '9635f55bf7cce975', '682802b887cb7058'],
  };

  it.each(before)(
    'gives the text of the generator before chunks, %i Services x %i, cold and after an edit',
    (services, endpoints, want) => {
      forgetChunks();
      const input = benchInput(services, endpoints);
      expect(summary(generateProxierRules(input)).slice(0, 3)).toEqual(want);
      // Warm: every chunk but the edited ones comes from the previous generation.
      expect(summary(generateProxierRules(edited(input))).slice(0, 3)).toEqual(
        beforeEdited[services],
      );
      expect(summary(generateProxierRules(input)).slice(0, 3)).toEqual(want);
    },
  );

  it('writes the same rules, counts and decisions warm as cold, edit after edit', () => {
    const input = benchInput(300, 4);
    const steps = [input, edited(input), edited(edited(input)), input];
    for (const step of steps) {
      const warm = summary(generateProxierRules(step));
      forgetChunks();
      expect(warm).toEqual(summary(generateProxierRules(step)));
    }
  });

  it('reports the port and endpoint objects of this generation, not remembered ones', () => {
    const input = benchInput(20, 2);
    generateProxierRules(input);
    const again = structuredClone(input);
    const r = generateProxierRules(again);
    const first = r.servicePorts[0];
    expect(first?.info.service).toBe(again.services[0]);
  });
});
