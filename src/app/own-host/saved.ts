/**
 * The "Your host" form survives a reload: dumps, fields and packet in localStorage (the lab's
 * storage helpers, so a full or blocked storage is said, never thrown). A saved value that is not
 * what this code wrote (another version, hand-edited) is ignored field by field.
 */
import type { OwnDump, OwnExtras, OwnPacket } from '../../cluster/own-host/types.ts';
import { DUMP_KINDS } from '../worker/own-host-protocol.ts';
import { loadPref, savePref, type KeyValue, type SaveStatus } from '../store/persist.ts';

export interface OwnForm {
  readonly dumps: readonly OwnDump[];
  readonly extras: OwnExtras;
  readonly packet: OwnPacket;
}

export const EMPTY_FORM: OwnForm = {
  dumps: [],
  extras: {
    addresses: '',
    gateway: '',
    listeners: 'sshd tcp 0.0.0.0:22',
    ipForward: true,
    routeLocalnet: false,
  },
  packet: {
    from: 'wire',
    iface: 'eth0',
    proto: 'tcp',
    src: '192.168.50.10',
    sport: '40000',
    dst: '',
    dport: '22',
  },
};

const NAME = 'own-host';
const str = (v: unknown, d: string) => (typeof v === 'string' ? v : d);
const bool = (v: unknown, d: boolean) => (typeof v === 'boolean' ? v : d);
const rec = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};

function dumpOf(v: unknown): OwnDump | null {
  const o = rec(v);
  if (typeof o.id !== 'string' || typeof o.text !== 'string') return null;
  const kind = DUMP_KINDS.includes(o.kind as never) ? (o.kind as OwnDump['kind']) : 'auto';
  return { id: o.id, name: str(o.name, 'pasted'), text: o.text, kind };
}

export function loadForm(kv: KeyValue | null): OwnForm {
  const raw = loadPref(kv, NAME);
  if (!raw) return EMPTY_FORM;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return EMPTY_FORM;
  }
  const o = rec(v);
  const e = rec(o.extras);
  const p = rec(o.packet);
  const E = EMPTY_FORM.extras;
  const P = EMPTY_FORM.packet;
  const proto = ['tcp', 'udp', 'sctp', 'icmp'].includes(p.proto as string)
    ? (p.proto as OwnPacket['proto'])
    : P.proto;
  return {
    dumps: Array.isArray(o.dumps)
      ? o.dumps.map(dumpOf).filter((d): d is OwnDump => d !== null)
      : [],
    extras: {
      addresses: str(e.addresses, E.addresses),
      gateway: str(e.gateway, E.gateway),
      listeners: str(e.listeners, E.listeners),
      ipForward: bool(e.ipForward, E.ipForward),
      routeLocalnet: bool(e.routeLocalnet, E.routeLocalnet),
    },
    packet: {
      from: p.from === 'local' ? 'local' : 'wire',
      iface: str(p.iface, P.iface),
      proto,
      src: str(p.src, P.src),
      sport: str(p.sport, P.sport),
      dst: str(p.dst, P.dst),
      dport: str(p.dport, P.dport),
    },
  };
}

export function saveForm(kv: KeyValue | null, form: OwnForm): SaveStatus {
  return savePref(kv, NAME, JSON.stringify(form));
}
