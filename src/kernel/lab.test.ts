/** KernelLab's helpers that need no kernel. */
import { describe, expect, it } from 'vitest';
import { EQUAL_PRIORITY_NFT, KUBE_PROXY_NFT, NAT_CORE_NFT } from '../engine/testing/nft-node.ts';
import { isMarker, parseMonitor } from './kernel-trace.ts';
import { nftTableNames, withoutMarkers } from './lab.ts';
import { isNftMarkerLine, parseNftMonitor } from './nft-trace.ts';

describe('nftTableNames: the tables KernelLab.load deletes before loading a host again', () => {
  it("reads kube-proxy's transaction form once per table", () => {
    expect(nftTableNames(KUBE_PROXY_NFT)).toEqual(['ip kube-proxy']);
    expect(nftTableNames(EQUAL_PRIORITY_NFT)).toEqual(['ip tie']);
  });

  it("reads nft's block form too, any family", () => {
    expect(nftTableNames(NAT_CORE_NFT)).toEqual(['ip natlab']);
    expect(nftTableNames('table inet hostfw {\n  chain input {\n  }\n}\n')).toEqual([
      'inet hostfw',
    ]);
    expect(nftTableNames('add table ip6 kube-proxy\nadd chain ip6 kube-proxy x\n')).toEqual([
      'ip6 kube-proxy',
    ]);
  });

  it('finds no table in rules that create none', () => {
    expect(nftTableNames('add rule ip kube-proxy services accept\n')).toEqual([]);
  });
});

describe('withoutMarkers: the raw lines of a probe as a user would paste them', () => {
  // A marker datagram's lo pass (new trace id) landing in the next probe's slice, then the probe.
  const marker = [
    'trace id 38bf0a7a ip hptrace pre packet: iif "lo" ip saddr 127.0.0.1 ip daddr 127.0.0.1 ip protocol udp udp sport 20001 udp dport 1 udp length 9 ',
    'trace id 38bf0a7a ip hptrace pre rule meta l4proto != tcp meta nftrace set 1 # handle 3 (verdict continue)',
    'trace id 38bf0a7a ip nat PREROUTING packet: iif "lo" ip saddr 127.0.0.1 ip daddr 127.0.0.1 ip protocol udp udp sport 20001 udp dport 1 udp length 9 ',
    'trace id 38bf0a7a ip nat PREROUTING rule counter jump KUBE-SERVICES # handle 9 (verdict jump KUBE-SERVICES)',
    'trace id 38bf0a7a ip nat PREROUTING policy accept ',
  ];
  const probe = [
    'trace id a6513b31 ip hptrace pre packet: iif "eth0" ip saddr 192.168.50.10 ip daddr 192.168.50.100 tcp sport 40100 tcp dport 22 tcp flags == syn ',
    'trace id a6513b31 ip nat PREROUTING rule counter jump KUBE-SERVICES # handle 9 (verdict jump KUBE-SERVICES)',
  ];

  it('leaves out every line of a marker’s trace id, its packet line before the slice too', () => {
    const all = [...marker, ...probe];
    expect(withoutMarkers(all, parseNftMonitor(all).filter(isMarker))).toEqual(probe);
    // Only the rules in the slice; the packet lines came before it.
    const slice = [...marker.slice(3), ...probe];
    expect(withoutMarkers(slice, parseNftMonitor(all).filter(isMarker))).toEqual(probe);
  });

  it('leaves out a marker whose nat packet line a loaded monitor lost, by its trace table line', () => {
    // The marker's block header is gone; only the trace table's packet line shows what it is.
    const lossy = [marker[0] as string, ...marker.slice(3), ...probe];
    const markerLines = lossy.filter((l) => isNftMarkerLine(l));
    expect(withoutMarkers(lossy, parseNftMonitor(lossy).filter(isMarker))).not.toEqual(probe);
    expect(withoutMarkers(lossy, parseNftMonitor(lossy).filter(isMarker), markerLines)).toEqual(
      probe,
    );
  });

  it('xtables-monitor lines too, and nothing when there is no marker', () => {
    const xt = [
      'PACKET: 2 5a5a5a5a IN=lo OUT= SRC=127.0.0.1 DST=127.0.0.1 LEN=29 TOS=0x0 TTL=64 ID=1 DF SPORT=20002 DPORT=1 ',
      ' TRACE: 2 5a5a5a5a nat:PREROUTING:policy:ACCEPT ',
      'PACKET: 2 4a102771 IN=eth0 SRC=192.168.50.10 DST=192.168.50.100 LEN=60 SPORT=40100 DPORT=22 SYN ',
      ' TRACE: 2 4a102771 nat:PREROUTING:rule:0x9:JUMP:KUBE-SERVICES ',
    ];
    expect(withoutMarkers(xt, parseMonitor(xt).filter(isMarker))).toEqual(xt.slice(2));
    expect(withoutMarkers(probe, [])).toEqual(probe);
  });
});
