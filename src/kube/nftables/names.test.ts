import { describe, expect, it } from 'vitest';
import { endpointBase, hash8, hashAndTruncate, servicePortBase } from './names.ts';

describe('nftables object names (H8 of SHA-256, 240-character bases)', () => {
  it('gives the names of kube-proxy test dumps', () => {
    // pkg/proxy/nftables/proxier_test.go, TestOverallNFTablesRules (fixtures/reference-dump.json).
    expect(servicePortBase('ns1', 'svc1', 'tcp', 'p80')).toBe('ULMVA6XW-ns1/svc1/tcp/p80');
    expect(servicePortBase('ns5', 'svc5', 'tcp', 'p80')).toBe('HVFWP5L3-ns5/svc5/tcp/p80');
    expect(endpointBase('ns1', 'svc1', 'tcp', 'p80', '10.180.0.1:80')).toBe(
      '5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80',
    );
  });

  it('writes IPv6 endpoints with dots instead of colons, hashed as written', () => {
    const b = endpointBase('ns1', 'svc1', 'tcp', 'p80', '[fd00:10:180::1]:80');
    expect(b).toBe(
      `${hash8('ns1/svc1/tcp/p80__fd00.10.180..1/80')}-ns1/svc1/tcp/p80__fd00.10.180..1/80`,
    );
  });

  it('leaves the port part empty for an unnamed port', () => {
    expect(servicePortBase('default', 'web', 'udp', '')).toBe(
      `${hash8('default/web/udp/')}-default/web/udp/`,
    );
  });

  it('cuts bases past 240 characters to 237 plus "..." after hashing the whole name', () => {
    const long = `${'n'.repeat(63)}/${'s'.repeat(63)}/tcp/${'p'.repeat(63)}__fd00.1234.5678.9abc.def0.1234.5678.9abc/65535`;
    const cut = hashAndTruncate(long);
    expect(cut).toHaveLength(240);
    expect(cut.endsWith('...')).toBe(true);
    expect(cut.startsWith(`${hash8(long)}-`)).toBe(true);
    expect(hashAndTruncate('a/b/tcp/c')).toBe(`${hash8('a/b/tcp/c')}-a/b/tcp/c`);
  });
});
