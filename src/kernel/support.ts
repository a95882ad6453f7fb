/**
 * How kernel tests behave on a machine that cannot run them: skipped, loudly; or failed when
 * HOOKPATH_REQUIRE_KERNEL=1 (CI), so a broken environment never passes as green.
 */
import { describe, it } from 'vitest';
import { kernelSupport } from './netns.ts';

let warned = false;

function warn(reason: string): void {
  if (warned) return;
  warned = true;
  const bar = '!'.repeat(78);
  // stderr directly: vitest may swallow console output of skipped suites.
  process.stderr.write(
    `\n${bar}\n!! KERNEL TESTS SKIPPED: ${reason}\n!! They need root, network namespaces and iptables-nft (see src/kernel).\n!! Set HOOKPATH_REQUIRE_KERNEL=1 to make this a failure.\n${bar}\n\n`,
  );
}

/** `describe` for suites that need the real kernel. */
export function describeKernel(name: string, fn: () => void): void {
  const s = kernelSupport();
  if (s.ok) {
    describe(name, fn);
    return;
  }
  if (process.env.HOOKPATH_REQUIRE_KERNEL === '1') {
    describe(name, () => {
      it('has the kernel support it needs (HOOKPATH_REQUIRE_KERNEL=1)', () => {
        throw new Error(`real-kernel tests cannot run: ${s.reason}`);
      });
    });
    return;
  }
  warn(s.reason);
  describe.skip(`${name} [skipped: ${s.reason}]`, fn);
}
