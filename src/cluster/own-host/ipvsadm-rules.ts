/**
 * One line of `ipvsadm -S -n` (`ipvsadm-save -n`): the commands `ipvsadm -R` reads. ipvsadm.c
 * print_service_entry with FMT_RULE prints `-A -t|-u|--sctp-service ADDR:PORT -s SCHED [-p N
 * [-M MASK]] [pe NAME] [ops]` and `-a ... -r ADDR:PORT -m|-i|-g -w W` (fwd_switch). The option
 * names and defaults are ipvsadm's own (its popt table and process_options): the scheduler
 * defaults to DEF_SCHED "wlc", the method to -g (IP_VS_CONN_F_DROUTE), the weight to 1, `-p`
 * without a value to IPVS_SVC_PERSISTENT_TIMEOUT (360 s), a real server without a port to the
 * virtual port. A line may start with `ipvsadm` (a script of commands).
 */
import type { IpvsForward, IpvsProto } from '../../engine/index.ts';
import {
  addrPort,
  columns,
  err,
  notNumeric,
  notModelled,
  warn,
  type Table,
} from './ipvsadm-common.ts';
import type { OwnHostErrorKey } from './messages.ts';
import { said, type Said } from './types.ts';

/** Reports a problem; the line is not read further. */
function fail(t: Table, line: number, column: number, message: Said): null {
  err(t, line, column, message);
  return null;
}

type AddrPort = { readonly address: string; readonly port: number };

export type RuleLine =
  | { readonly kind: 'skip' }
  | { readonly kind: 'fwm' }
  | {
      readonly kind: 'service';
      readonly proto: IpvsProto;
      readonly vip: AddrPort;
      readonly vipColumn: number;
      readonly scheduler: string;
      readonly schedulerColumn: number;
      readonly persistent: number | null;
    }
  | {
      readonly kind: 'server';
      readonly proto: IpvsProto;
      readonly vip: AddrPort;
      readonly vipColumn: number;
      readonly server: AddrPort & { readonly weight: number; readonly forward: IpvsForward };
      readonly serverColumn: number;
    };

const COMMAND: Readonly<Record<string, 'service' | 'server' | 'clear'>> = {
  '-A': 'service',
  '--add-service': 'service',
  '-a': 'server',
  '--add-server': 'server',
  '-C': 'clear',
  '--clear': 'clear',
};

const SERVICE: Readonly<Record<string, IpvsProto | 'fwm'>> = {
  '-t': 'tcp',
  '--tcp-service': 'tcp',
  '-u': 'udp',
  '--udp-service': 'udp',
  '--sctp-service': 'sctp',
  '-f': 'fwm',
  '--fwmark-service': 'fwm',
};

const METHOD: Readonly<Record<string, IpvsForward>> = {
  '-m': 'masq',
  '--masquerading': 'masq',
  '-g': 'route',
  '--gatewaying': 'route',
  '-i': 'tunnel',
  '--ipip': 'tunnel',
};

/** Options with a value the lab reads but does not model (thresholds, tunnel settings). */
const IGNORED_VALUE = new Set([
  '-x',
  '--u-threshold',
  '-y',
  '--l-threshold',
  '--tun-type',
  '--tun-port',
]);
const IGNORED_FLAG = new Set(['-6', '--ipv6', '--tun-nocsum', '--tun-csum', '--tun-remcsum']);
const NOT_MODELLED_VALUE = new Set(['-M', '--netmask', 'pe', '--pe', '-b', '--sched-flags']);
const NOT_MODELLED_FLAG = new Set(['ops', '-o', '--ops']);

interface Opts {
  proto?: IpvsProto | 'fwm';
  vip?: AddrPort;
  vipColumn: number;
  scheduler: string;
  schedulerColumn: number;
  persistent: number | null;
  server?: { text: string; column: number };
  forward: IpvsForward;
  weight: number;
}

/** Reads the options after the command; false when a problem was reported. */
function readOptions(t: Table, words: string[], cols: number[], line: number, o: Opts): boolean {
  for (let k = 0; k < words.length; k++) {
    const w = words[k] as string;
    const col = cols[k] as number;
    const value = words[k + 1];
    const needs = (key: OwnHostErrorKey) => fail(t, line, col, said(key, { option: w })) ?? false;
    if (SERVICE[w] !== undefined) {
      o.proto = SERVICE[w];
      if (value === undefined) return needs('ipvsadm-S.needs-service');
      if (o.proto !== 'fwm') {
        const vip = addrPort(value);
        if (!vip)
          return fail(t, line, cols[k + 1] as number, notNumeric(value, 'ipvsadm -S -n')) ?? false;
        o.vip = vip;
        o.vipColumn = cols[k + 1] as number;
      }
      k++;
    } else if (w === '-s' || w === '--scheduler') {
      if (value === undefined) return needs('ipvsadm-S.needs-scheduler');
      o.scheduler = value;
      o.schedulerColumn = cols[++k] as number;
    } else if (w === '-p' || w === '--persistent') {
      o.persistent = 360;
      if (value !== undefined && /^\d+$/.test(value)) o.persistent = Number(words[++k]);
    } else if (w === '-r' || w === '--real-server') {
      if (value === undefined) return needs('ipvsadm-S.needs-server');
      o.server = { text: value, column: cols[++k] as number };
    } else if (METHOD[w]) o.forward = METHOD[w];
    else if (w === '-w' || w === '--weight') {
      if (value === undefined || !/^\d{1,5}$/.test(value) || Number(value) > 65535)
        return fail(t, line, cols[k + 1] ?? col, said('ipvsadm-S.weight', { option: w })) ?? false;
      o.weight = Number(words[++k]);
    } else if (NOT_MODELLED_VALUE.has(w) && value !== undefined) {
      const full =
        w === '-M' || w === '--netmask' ? !/^(255\.255\.255\.255|128)$/.test(value) : true;
      if (full) warn(t, line, col, notModelled(w, value));
      k++;
    } else if (NOT_MODELLED_FLAG.has(w)) warn(t, line, col, notModelled(w, ''));
    else if (IGNORED_VALUE.has(w)) k++;
    else if (!IGNORED_FLAG.has(w))
      return fail(t, line, col, said('ipvsadm-S.option', { option: w })) ?? false;
  }
  return true;
}

/** `-r ADDRESS` without a port takes the virtual service's (ipvsadm.c, case 'r'). */
function serverAddr(text: string, vport: number): AddrPort | null {
  const full = addrPort(text);
  if (full) return full;
  const bare = /^\[(.+)\]$/.exec(text)?.[1] ?? text;
  return addrPort(bare.includes(':') ? `[${bare}]:${vport}` : `${bare}:${vport}`);
}

export function readRuleLine(t: Table, raw: string, line: number): RuleLine | null {
  const split = columns(raw);
  let { words, cols } = split;
  if (words[0] === 'ipvsadm') [words, cols] = [words.slice(1), cols.slice(1)];
  const cmd = COMMAND[words[0] ?? ''];
  if (!cmd) return fail(t, line, cols[0] ?? 1, said('ipvsadm-S.command', { word: words[0] ?? '' }));
  if (cmd === 'clear') return { kind: 'skip' };
  const o: Opts = {
    vipColumn: cols[0] as number,
    scheduler: 'wlc',
    schedulerColumn: cols[0] as number,
    persistent: null,
    forward: 'route',
    weight: 1,
  };
  if (!readOptions(t, words.slice(1), cols.slice(1), line, o)) return null;
  if (o.proto === 'fwm') return { kind: 'fwm' };
  if (!o.proto || !o.vip)
    return fail(
      t,
      line,
      cols[0] as number,
      said('ipvsadm-S.no-service', { command: words[0] as string }),
    );
  const base = { proto: o.proto, vip: o.vip, vipColumn: o.vipColumn };
  if (cmd === 'service')
    return {
      kind: 'service',
      ...base,
      scheduler: o.scheduler,
      schedulerColumn: o.schedulerColumn,
      persistent: o.persistent,
    };
  if (!o.server) return fail(t, line, cols[0] as number, said('ipvsadm-S.no-server'));
  const rs = serverAddr(o.server.text, o.vip.port);
  if (!rs) return fail(t, line, o.server.column, notNumeric(o.server.text, 'ipvsadm -S -n'));
  return {
    kind: 'server',
    ...base,
    server: { ...rs, weight: o.weight, forward: o.forward },
    serverColumn: o.server.column,
  };
}
