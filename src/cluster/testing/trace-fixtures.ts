/**
 * The real traces kept as fixtures (src/cluster/testing/trace-fixtures): which scenario probe each one
 * is, on which node, and which monitor printed it. src/kernel/trace-fixtures.kernel.test.ts
 * captures them on the real kernel; the unit tests replay them against the engine.
 */
import type { KubeProxyMode } from '../scenario.ts';

export interface TraceFixture {
  readonly file: string;
  readonly scenario: string;
  readonly variant: string;
  readonly mode: KubeProxyMode;
  /** The probe's `name` in the scenario. */
  readonly probe: string;
  /** The node the monitor ran on. */
  readonly host: string;
  readonly monitor: 'xtables' | 'nft';
}

export const TRACE_FIXTURES: readonly TraceFixture[] = [
  {
    file: 'vip22-lb-service.xtables.txt',
    scenario: 'vip22-sshd-or-service.yaml',
    variant: 'lb-service',
    mode: 'iptables',
    probe: 'VIP:22 with the Service',
    host: 'cp-1',
    monitor: 'xtables',
  },
  {
    file: 'vip22-lb-service.nft.txt',
    scenario: 'vip22-sshd-or-service.yaml',
    variant: 'lb-service',
    mode: 'iptables',
    probe: 'VIP:22 with the Service',
    host: 'cp-1',
    monitor: 'nft',
  },
  {
    file: 'itp-local-app-1.xtables.txt',
    scenario: 'internal-traffic-policy-local.yaml',
    variant: 'agent-everywhere',
    mode: 'iptables',
    probe: 'app-1 on worker-1: the agent on worker-1, no SNAT',
    host: 'worker-1',
    monitor: 'xtables',
  },
  {
    file: 'itp-local-app-1.nft.txt',
    scenario: 'internal-traffic-policy-local.yaml',
    variant: 'agent-everywhere',
    mode: 'nftables',
    probe: 'app-1 on worker-1: the agent on worker-1, no SNAT',
    host: 'worker-1',
    monitor: 'nft',
  },
];
