/**
 * The nftables corpus' reference dumps against the generator (src/kube/nftables): each dump's
 * setup generated and compared line by line with kube-proxy's expected transaction, after the
 * only normalisation kube-proxy's test applies (`sortNFTablesTransaction` on both sides,
 * pkg/proxy/nftables/helpers_test.go) and the tests' mark string (`0x4000` for `%#08x`).
 */
import { generateNftProxierRules, sortNftablesTransaction } from '../kube/nftables/index.ts';
import type { NftCase } from './nft-main.ts';
import { normaliseMark, setupToProxierInput, type Setup } from './setup.ts';

export interface NftReferenceDump {
  readonly test: string;
  readonly dump: string;
  readonly setup?: Setup;
}

/** The generator of `npm run conformance` for the cases kube-proxy builds at test time. */
export function generateForCase(c: NftCase): string {
  if (!c.setup) throw new Error(`${c.id} has no setup`);
  return generateNftProxierRules(setupToProxierInput(c.setup, c.nodeIPs, c.ipFamily, 'nftables'))
    .transaction;
}

/** Line-by-line comparison; returns the counts and logs every differing line. */
export function compareNftReferenceDumps(
  dumps: readonly NftReferenceDump[],
  nodeIP: string,
  log: (line: string) => void,
): { passed: number; failed: number } {
  let passed = 0;
  let failed = 0;
  for (const ref of dumps) {
    if (!ref.setup) continue;
    const ours = generateNftProxierRules(
      setupToProxierInput(ref.setup, [nodeIP], 'IPv4', 'nftables'),
    );
    const got = sortNftablesTransaction(normaliseMark(ours.transaction)).split('\n');
    const want = sortNftablesTransaction(ref.dump).split('\n');
    for (let i = 0; i < Math.max(got.length, want.length); i++) {
      if (got[i] === want[i]) passed++;
      else {
        failed++;
        log(
          `FAIL ${ref.test} line ${i + 1}:\n  want: ${want[i] ?? '<none>'}\n  got:  ${got[i] ?? '<none>'}`,
        );
      }
    }
  }
  log(`reference dump lines (generated vs kube-proxy): ${passed} passed, ${failed} failed`);
  return { passed, failed };
}
