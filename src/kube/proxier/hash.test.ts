import { describe, expect, it } from 'vitest';
import { endpointChainName, hash16, portProtoHash } from './hash.ts';

describe('chain-name hashes (base32 of SHA-256, 16 characters)', () => {
  it('matches RFC 4648 base32 of SHA-256 for plain strings', () => {
    // Cross-checked with Python: base64.b32encode(hashlib.sha256(s).digest())[:16].
    expect(hash16('')).toBe('4OYMIQUY7QOBJGX3');
    expect(hash16('ns1/svc1tcp')).toBe('AQI2S6QIMU7PVVRP');
  });

  it('gives the service-port names of kube-proxy test dumps', () => {
    // pkg/proxy/iptables/proxier_test.go, TestOverallIPTablesRules (fixtures/reference-dump.json).
    const svc = (spn: string) => `KUBE-SVC-${portProtoHash(spn, 'tcp')}`;
    expect(svc('ns1/svc1:p80')).toBe('KUBE-SVC-XPGD46QRK7WJZT7O');
    expect(svc('ns2/svc2:p80')).toBe('KUBE-SVC-GNZBNJ2PO5MGZ6GT');
    expect(svc('ns3/svc3:p80')).toBe('KUBE-SVC-X27LE4BHSL4DOUIK');
    expect(svc('ns4/svc4:p80')).toBe('KUBE-SVC-4SW47YFZTEDKD3PK');
    expect(svc('ns5/svc5:p80')).toBe('KUBE-SVC-NUKIZ6OKUXPJNT4C');
  });

  it('gives the endpoint chain names of kube-proxy test dumps', () => {
    expect(endpointChainName('ns1/svc1:p80', 'tcp', '10.180.0.1:80')).toBe(
      'KUBE-SEP-SXIVWICOYRO3J4NJ',
    );
    expect(endpointChainName('ns2/svc2:p80', 'tcp', '10.180.0.2:80')).toBe(
      'KUBE-SEP-RS4RBKLTHTF2IUXJ',
    );
    // Same endpoint, different service: different chain.
    expect(endpointChainName('ns3/svc3:p80', 'tcp', '10.180.0.3:80')).toBe(
      'KUBE-SEP-OYPFS5VJICHGATKP',
    );
    expect(endpointChainName('ns5/svc5:p80', 'tcp', '10.180.0.3:80')).toBe(
      'KUBE-SEP-I77PXRDZVX7PMWMN',
    );
    expect(endpointChainName('ns4/svc4:p80', 'tcp', '10.180.0.4:80')).toBe(
      'KUBE-SEP-UKSFD7AGPMPPLUHC',
    );
    expect(endpointChainName('ns4/svc4:p80', 'tcp', '10.180.0.5:80')).toBe(
      'KUBE-SEP-C6EBXVWJJZMIWKLZ',
    );
  });

  it('hashes IPv6 endpoints in [addr]:port form', () => {
    expect(endpointChainName('ns1/svc1:p80', 'tcp', '[fd00:10:180::1]:80')).toBe(
      'KUBE-SEP-OGYCNMB4EMRUSJ6N',
    );
  });

  it('encodes non-ASCII text as UTF-8', () => {
    expect(hash16('ns/\u00e9')).toBe('LXBJREGMEGBKOX6F');
  });
});
