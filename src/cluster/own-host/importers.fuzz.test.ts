/**
 * The importers on arbitrary text: they never throw, and every error is placed (a line and column
 * inside the text, or a JSON path). Inputs are mutations of the real fixtures as well as noise.
 */
import type { Diagnostic } from '../../engine/index.ts';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectDump } from './detect.ts';
import { importAddr, importRoute } from './ip-json.ts';
import { importIpset } from './ipset-save.ts';
import { importIpvsadm } from './ipvsadm.ts';
import { runOwnHost } from './run.ts';

const fixture = (name: string) =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const SEEDS = [
  'ip-addr.json',
  'ip-route-all.json',
  'ipset-save.txt',
  'iptables-save.txt',
  'ipvsadm-Ln-ipvs.txt',
  'ipvsadm-S-ipvs.txt',
  'ipvsadm-Ln-kube-proxy-readme.txt',
].map(fixture);

/** A fixture with a slice cut out, a slice doubled or random characters put in. */
const mutated = fc
  .tuple(fc.constantFrom(...SEEDS), fc.nat(), fc.nat(), fc.string({ maxLength: 8 }))
  .map(([s, a, b, ins]) => {
    const i = a % (s.length + 1);
    const j = Math.min(s.length, i + (b % 40));
    return s.slice(0, i) + ins + s.slice(j);
  });
const text = fc.oneof(mutated, fc.string({ maxLength: 200 }), fc.json());

function placed(text: string, d: Diagnostic): boolean {
  const lines = text.split('\n').length;
  if (d.field !== undefined && d.line === 0) return true;
  return d.line >= 1 && d.line <= lines + 1 && d.column >= 1 && d.message.length > 0;
}

describe('importers never throw and place their errors', () => {
  it.each([
    ['ip -j addr', importAddr],
    ['ip -j route', importRoute],
    ['ipset save', importIpset],
    ['ipvsadm -Ln / -S -n', importIpvsadm],
  ] as const)('%s', (_, importer) => {
    fc.assert(
      fc.property(text, (t) => {
        const r = importer(t);
        for (const d of r.diagnostics) expect(placed(t, d)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('the whole host, whatever the dumps', () => {
    fc.assert(
      fc.property(fc.array(text, { maxLength: 3 }), (texts) => {
        detectDump(texts[0] ?? '');
        const r = runOwnHost({
          dumps: texts.map((t, i) => ({ id: String(i), name: String(i), text: t, kind: 'auto' })),
          extras: {
            addresses: '10.0.0.1/24',
            gateway: '',
            listeners: '',
            ipForward: false,
            routeLocalnet: false,
          },
          packet: {
            from: 'wire',
            iface: 'eth0',
            proto: 'tcp',
            src: '10.0.0.2',
            sport: '',
            dst: '10.0.0.1',
            dport: '22',
          },
        });
        for (const [i, d] of r.dumps.entries())
          for (const x of d.diagnostics) expect(placed(texts[i] ?? '', x)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});
