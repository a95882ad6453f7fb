/** Packet headers as the lab shows them, and what a step changed in them. */
import type { Packet } from '../../engine/packet.ts';

export type Field = 'src' | 'sport' | 'dst' | 'dport' | 'mark' | 'flags' | 'proto';

export const FIELDS: readonly Field[] = ['proto', 'src', 'sport', 'dst', 'dport', 'flags', 'mark'];

export function flagsOf(p: Packet): string {
  const f = p.flags;
  if (!f) return p.proto === 'icmp' ? `type ${p.icmpType ?? 0}/${p.icmpCode ?? 0}` : '';
  return (['syn', 'ack', 'rst', 'fin', 'psh', 'urg'] as const)
    .filter((k) => f[k])
    .map((k) => k.toUpperCase())
    .join(',');
}

export function fieldValue(p: Packet, f: Field): string {
  switch (f) {
    case 'proto':
      return p.proto;
    case 'src':
      return p.src;
    case 'dst':
      return p.dst;
    case 'sport':
      return String(p.sport);
    case 'dport':
      return String(p.dport);
    case 'flags':
      return flagsOf(p);
    case 'mark':
      return markText(p.mark);
  }
}

export function markText(mark: number): string {
  return `0x${mark.toString(16)}`;
}

/** Fields whose value differs between two packets (the rewrite a step made). */
export function changedFields(before: Packet | null, after: Packet): Field[] {
  if (!before) return [];
  return FIELDS.filter((f) => fieldValue(before, f) !== fieldValue(after, f));
}

function hostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/** `192.168.50.10:40000 → 192.168.50.100:22`, the way the token label shows it. */
export function headerText(p: Packet): { src: string; dst: string } {
  if (p.proto === 'icmp') return { src: p.src, dst: p.dst };
  return { src: hostPort(p.src, p.sport), dst: hostPort(p.dst, p.dport) };
}
