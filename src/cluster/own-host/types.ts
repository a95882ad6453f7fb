/**
 * "Your host" (issue 14 §3): a real node's state pasted as the outputs of its own tools
 * (iptables-save, nft list ruleset, ip -j addr, ip -j route, ipset save, ipvsadm -Ln), built into one host and
 * traced. Pure data: it crosses the Web Worker boundary as is.
 */
import { fieldError, format, type Diagnostic } from '../../engine/index.ts';
import type { LabResult } from '../types.ts';
import { OWN_HOST_ERRORS_EN, type OwnHostErrorKey, type OwnHostParams } from './messages.ts';

/** Which tool printed a dump. */
export type DumpKind =
  'iptables' | 'ip6tables' | 'nft' | 'ip-addr' | 'ip-route' | 'ipset' | 'ipvsadm';

export const DUMP_KINDS: readonly DumpKind[] = [
  'iptables',
  'ip6tables',
  'nft',
  'ip-addr',
  'ip-route',
  'ipset',
  'ipvsadm',
];

/** One pasted or dropped text. `kind: 'auto'` lets detectDump decide. */
export interface OwnDump {
  readonly id: string;
  /** The file's name, or a label for a paste. */
  readonly name: string;
  readonly text: string;
  readonly kind: DumpKind | 'auto';
}

/**
 * A rule or route the lab reads but does not evaluate, or leaves out, with its line. `why` is
 * English; `code` (a key of OWN_HOST_ERRORS_EN) and `params`, when given, let the lab say it in
 * the user's language (the engine's own notes, an nft statement it does not model, have none).
 */
export interface OwnNote {
  readonly line: number;
  readonly text: string;
  readonly why: string;
  readonly code?: OwnHostErrorKey;
  readonly params?: OwnHostParams;
}

/**
 * An importer's message: its key of OWN_HOST_ERRORS_EN as a diagnostic's `code`, its parameters,
 * and the English sentence (spread into a Diagnostic; the lab shows the key's text in the user's
 * language).
 */
export interface Said {
  readonly code: OwnHostErrorKey;
  readonly params: OwnHostParams;
  readonly message: string;
}

export function said(key: OwnHostErrorKey, params: OwnHostParams = {}): Said {
  return { code: key, params, message: format(OWN_HOST_ERRORS_EN[key], params) };
}

/** A note on a line read and not evaluated or left out, saying why by a key. */
export function ownNote(
  line: number,
  text: string,
  key: OwnHostErrorKey,
  params: OwnHostParams = {},
): OwnNote {
  const { message: why, ...rest } = said(key, params);
  return { line, text, why, ...rest };
}

export interface DumpCounts {
  readonly tables?: number;
  readonly chains?: number;
  readonly rules?: number;
  readonly interfaces?: number;
  readonly addresses?: number;
  readonly routes?: number;
  readonly sets?: number;
  readonly entries?: number;
  /** ipvsadm: virtual services and their real servers. */
  readonly services?: number;
  readonly realServers?: number;
}

export interface DumpReport {
  readonly id: string;
  readonly name: string;
  /** What was used: the user's choice, or what was detected; null when unrecognised. */
  readonly kind: DumpKind | null;
  /** What detectDump says the text is (null: nothing it knows). */
  readonly detected: DumpKind | null;
  readonly counts: DumpCounts;
  readonly diagnostics: readonly Diagnostic[];
  /** Rules parsed but not evaluated (a packet reaching one stops there, said so in the trace). */
  readonly unsupported: readonly OwnNote[];
  /** Lines read and left out on purpose (the local table, kernel-made connected routes). */
  readonly ignored: readonly OwnNote[];
}

/** The packet to trace: from the wire on an interface, or sent by a local process. */
export interface OwnPacket {
  readonly from: 'wire' | 'local';
  readonly iface: string;
  readonly proto: 'tcp' | 'udp' | 'sctp' | 'icmp';
  readonly src: string;
  readonly sport: string;
  readonly dst: string;
  readonly dport: string;
}

/** The form's fields that stand in for missing dumps, and the host's sysctls. */
export interface OwnExtras {
  /** Used when no `ip -j addr` dump is given: addresses on eth0, comma separated. */
  readonly addresses: string;
  /** Used when no `ip -j route` dump is given: the default gateway (empty: no default route). */
  readonly gateway: string;
  /** Listening sockets, one a line: `sshd tcp 0.0.0.0:22`. */
  readonly listeners: string;
  readonly ipForward: boolean;
  readonly routeLocalnet: boolean;
}

export interface OwnHostInput {
  readonly dumps: readonly OwnDump[];
  readonly extras: OwnExtras;
  /** Null: build and report the host, trace nothing. */
  readonly packet: OwnPacket | null;
}

/** One of the form's fields. */
export type FormField = keyof OwnExtras | `packet.${keyof OwnPacket}` | 'host';

/**
 * A problem in one of the form's fields: the engine's Diagnostic, narrowed so that its `field`
 * is a field of the form (the form shows it beside that field; it has no line and column).
 */
export type FieldProblem = Diagnostic & { readonly field: FormField };

/** A problem of a field: an importer's message by its key, or a text of the engine's. */
export function formError(field: FormField, message: Said | string): FieldProblem {
  if (typeof message === 'string') return { ...fieldError(field, message), field };
  return {
    ...fieldError(field, message.message),
    code: message.code,
    params: message.params,
    field,
  };
}

export interface OwnHostResult {
  readonly dumps: readonly DumpReport[];
  readonly problems: readonly FieldProblem[];
  /** What the dumps do not say and the form asks for. */
  readonly missing: { readonly addresses: boolean; readonly routes: boolean };
  /** The host's interfaces (for the packet's in-interface). */
  readonly interfaces: readonly string[];
  /** The trace, as the lab shows it; null when nothing was traced (or the host has errors). */
  readonly lab: LabResult | null;
}

/** The host's name in traces. */
export const OWN_HOST = 'your-host';
