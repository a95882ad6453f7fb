/**
 * A fixture network used by engine and kernel tests: a client (10.0.1.10) behind a router `gw`
 * (10.0.1.1 inside, 10.0.2.1 outside, forwarding on) and a server (10.0.2.20) that has no
 * route back to 10.0.1.0/24, so only a MASQUERADE on gw makes an answer possible.
 */
import type { ListenerSpec, NetworkSpec } from '../index.ts';

export const CLIENT = '10.0.1.10';
export const GW_IN = '10.0.1.1';
export const GW_OUT = '10.0.2.1';
export const SERVER = '10.0.2.20';

/** The routed network with `rules` (iptables-save text) on gw and the server's listeners. */
export function routedNetwork(rules: string, listeners: readonly ListenerSpec[] = []): NetworkSpec {
  return {
    hosts: [
      {
        name: 'client',
        interfaces: [{ name: 'eth0', addresses: [`${CLIENT}/24`], segment: 'inside' }],
        routes: [{ to: 'default', via: GW_IN }],
      },
      {
        name: 'gw',
        interfaces: [
          { name: 'eth0', addresses: [`${GW_IN}/24`], segment: 'inside' },
          { name: 'eth1', addresses: [`${GW_OUT}/24`], segment: 'outside' },
        ],
        sysctls: { ipForward: true },
        rules,
      },
      {
        name: 'server',
        interfaces: [{ name: 'eth0', addresses: [`${SERVER}/24`], segment: 'outside' }],
        ...(listeners.length ? { listeners } : {}),
      },
    ],
  };
}
