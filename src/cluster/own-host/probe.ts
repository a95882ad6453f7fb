/** The packet form into the engine's probe: each bad field is a problem naming the field. */
import { canonicalIp, ipFamily, SYN, type ProbeSpec } from '../../engine/index.ts';
import type { FieldProblem, OwnPacket } from './types.ts';
import { OWN_HOST, formError, said } from './types.ts';

function port(text: string, field: FieldProblem['field'], problems: FieldProblem[]): number {
  const t = text.trim();
  const n = /^\d{1,5}$/.test(t) ? Number(t) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > 65535) {
    problems.push(formError(field, said('packet.port', { value: t })));
    return 0;
  }
  return n;
}

export function probeOf(
  p: OwnPacket,
  interfaces: readonly string[],
  problems: FieldProblem[],
): ProbeSpec | null {
  const before = problems.length;
  const dst = canonicalIp(p.dst.trim());
  if (!dst) problems.push(formError('packet.dst', said('packet.dst', { value: p.dst })));
  const src = p.src.trim() === '' ? null : canonicalIp(p.src.trim());
  if (p.src.trim() !== '' && !src)
    problems.push(formError('packet.src', said('not-ip', { value: p.src })));
  if (p.from === 'wire' && p.src.trim() === '')
    problems.push(formError('packet.src', said('packet.wire-src')));
  if (src && dst && ipFamily(src) !== ipFamily(dst))
    problems.push(formError('packet.src', said('packet.families', { src, dst })));
  const icmp = p.proto === 'icmp';
  const dport = icmp ? 0 : port(p.dport, 'packet.dport', problems);
  const sport = p.sport.trim() === '' ? 40000 : port(p.sport, 'packet.sport', problems);
  if (p.from === 'wire' && !interfaces.includes(p.iface))
    problems.push(
      formError(
        'packet.iface',
        said('packet.iface', { iface: p.iface, interfaces: interfaces.join(', ') }),
      ),
    );
  if (problems.length > before || !dst) return null;
  if (p.from === 'local')
    return {
      kind: 'connect',
      from: OWN_HOST,
      proto: p.proto,
      dst,
      dport,
      sport,
      ...(src ? { src } : {}),
    };
  return {
    kind: 'inject',
    host: OWN_HOST,
    iface: p.iface,
    packet: {
      proto: p.proto,
      src: src as string,
      dst,
      sport,
      dport: icmp ? sport : dport,
      mark: 0,
      ttl: 64,
      ...(p.proto === 'tcp' ? { flags: SYN } : {}),
      ...(icmp ? { icmpType: 8, icmpCode: 0 } : {}),
    },
  };
}
