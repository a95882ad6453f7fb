import { describe, expect, it } from 'vitest';
import { shorten } from './names.ts';

describe('shorten', () => {
  it('keeps a name that fits whole', () => {
    expect(shorten('nat-prerouting', 18)).toBe('nat-prerouting');
    expect(shorten('KUBE-SERVICES', 13)).toBe('KUBE-SERVICES');
  });

  it('keeps the prefix and the end of an iptables chain hash', () => {
    const s = shorten('KUBE-SVC-ERIFXISQEP7F7OF4', 18);
    expect(s).toBe('KUBE-SVC-…EP7F7OF4');
    expect(s).toHaveLength(18);
    // Two Services' chains stay told apart.
    expect(shorten('KUBE-SEP-ZXMNUKOKXUTL2MK2', 18)).not.toBe(
      shorten('KUBE-SEP-Q5GD7CLYHMJMLZ4E', 18),
    );
  });

  it('keeps an nft service chain hash whole and as much of its port as fits', () => {
    expect(shorten('service-ULMVA6XW-ns1/svc1/tcp/p80', 24)).toBe('service-ULMVA6XW…tcp/p80');
    expect(shorten('service-ULMVA6XW-ns1/svc1/tcp/p80', 18)).toBe('service-ULMVA6XW…');
  });

  it('cuts a name without a hash in the middle, never past n characters', () => {
    expect(shorten('filter-prerouting-pre-dnat', 18)).toBe('filter-pr…pre-dnat');
    expect(shorten('veth99df3a55', 10)).toBe('veth9…3a55');
    for (let n = 1; n < 30; n++)
      expect(shorten('service-ULMVA6XW-ns1/svc1/tcp/p80', n).length).toBeLessThanOrEqual(n);
  });
});
