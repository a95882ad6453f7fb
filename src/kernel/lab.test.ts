/** KernelLab's helpers that need no kernel. */
import { describe, expect, it } from 'vitest';
import { EQUAL_PRIORITY_NFT, KUBE_PROXY_NFT, NAT_CORE_NFT } from '../engine/testing/nft-node.ts';
import { nftTableNames } from './lab.ts';

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
