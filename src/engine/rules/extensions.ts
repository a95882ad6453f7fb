/**
 * The match modules and targets the engine knows, with the arity of each option.
 * Names and arities follow the iptables 1.8 extensions (extensions/libxt_*.c, libipt_*.c).
 * An extension listed with `supported: false` is parsed (so the dump loads) but evaluating it
 * yields an explicit "unsupported" step instead of a guess.
 */

export interface OptionArity {
  /** Number of arguments after the option name. */
  readonly args: number;
  /** May be preceded by `!`. */
  readonly negatable: boolean;
  /** Canonical name when this is an alias (`--destination-port` -> `--dport`). */
  readonly canonical?: string;
}

export interface ExtensionInfo {
  readonly supported: boolean;
  readonly options: Readonly<Record<string, OptionArity>>;
}

const o = (args: number, negatable = false, canonical?: string): OptionArity =>
  canonical === undefined ? { args, negatable } : { args, negatable, canonical };

const ports = {
  '--sport': o(1, true),
  '--source-port': o(1, true, '--sport'),
  '--dport': o(1, true),
  '--destination-port': o(1, true, '--dport'),
};

export const MATCHES: Readonly<Record<string, ExtensionInfo>> = {
  tcp: {
    supported: true,
    options: {
      ...ports,
      '--tcp-flags': o(2, true),
      '--syn': o(0, true),
      '--tcp-option': o(1, true),
    },
  },
  udp: { supported: true, options: ports },
  udplite: { supported: false, options: ports },
  sctp: { supported: true, options: { ...ports, '--chunk-types': o(2, true) } },
  icmp: { supported: true, options: { '--icmp-type': o(1, true) } },
  multiport: {
    supported: true,
    options: {
      '--sports': o(1, true),
      '--source-ports': o(1, true, '--sports'),
      '--dports': o(1, true),
      '--destination-ports': o(1, true, '--dports'),
      '--ports': o(1, true),
    },
  },
  comment: { supported: true, options: { '--comment': o(1) } },
  addrtype: {
    supported: true,
    options: {
      '--src-type': o(1, true),
      '--dst-type': o(1, true),
      '--limit-iface-in': o(0),
      '--limit-iface-out': o(0),
    },
  },
  mark: { supported: true, options: { '--mark': o(1, true) } },
  connmark: { supported: true, options: { '--mark': o(1, true) } },
  conntrack: {
    supported: true,
    options: {
      '--ctstate': o(1, true),
      '--ctproto': o(1, true),
      '--ctorigsrc': o(1, true),
      '--ctorigdst': o(1, true),
      '--ctreplsrc': o(1, true),
      '--ctrepldst': o(1, true),
      '--ctorigsrcport': o(1, true),
      '--ctorigdstport': o(1, true),
      '--ctreplsrcport': o(1, true),
      '--ctrepldstport': o(1, true),
      '--ctstatus': o(1, true),
      '--ctexpire': o(1, true),
      '--ctdir': o(1),
    },
  },
  state: { supported: true, options: { '--state': o(1, true) } },
  statistic: {
    supported: true,
    options: {
      '--mode': o(1),
      '--probability': o(1, true),
      '--every': o(1, true),
      '--packet': o(1),
    },
  },
  recent: {
    supported: true,
    options: {
      '--name': o(1),
      '--set': o(0, true),
      '--rcheck': o(0, true),
      '--update': o(0, true),
      '--remove': o(0, true),
      '--seconds': o(1),
      '--reap': o(0),
      '--hitcount': o(1),
      '--rttl': o(0),
      '--rsource': o(0),
      '--rdest': o(0),
      '--mask': o(1),
    },
  },
  set: {
    supported: true,
    options: {
      '--match-set': o(2, true),
      '--return-nomatch': o(0),
      '--update-counters': o(0, true),
      '--update-subcounters': o(0, true),
      '--packets-eq': o(1, true),
      '--packets-lt': o(1),
      '--packets-gt': o(1),
      '--bytes-eq': o(1, true),
      '--bytes-lt': o(1),
      '--bytes-gt': o(1),
    },
  },
  iprange: { supported: true, options: { '--src-range': o(1, true), '--dst-range': o(1, true) } },
  limit: { supported: true, options: { '--limit': o(1), '--limit-burst': o(1) } },
  nfacct: { supported: true, options: { '--nfacct-name': o(1) } },
  pkttype: { supported: true, options: { '--pkt-type': o(1, true) } },
  physdev: {
    supported: false,
    options: {
      '--physdev-in': o(1, true),
      '--physdev-out': o(1, true),
      '--physdev-is-in': o(0, true),
      '--physdev-is-out': o(0, true),
      '--physdev-is-bridged': o(0, true),
    },
  },
  owner: {
    supported: false,
    options: {
      '--uid-owner': o(1, true),
      '--gid-owner': o(1, true),
      '--socket-exists': o(0, true),
      '--suppl-groups': o(0),
    },
  },
  socket: {
    supported: false,
    options: { '--transparent': o(0), '--nowildcard': o(0), '--restore-skmark': o(0) },
  },
};

const markOpts = {
  '--set-xmark': o(1),
  '--set-mark': o(1),
  '--and-mark': o(1),
  '--or-mark': o(1),
  '--xor-mark': o(1),
};

export const TARGETS: Readonly<Record<string, ExtensionInfo>> = {
  ACCEPT: { supported: true, options: {} },
  DROP: { supported: true, options: {} },
  RETURN: { supported: true, options: {} },
  QUEUE: { supported: false, options: {} },
  DNAT: {
    supported: true,
    options: { '--to-destination': o(1), '--random': o(0), '--persistent': o(0) },
  },
  SNAT: {
    supported: true,
    options: {
      '--to-source': o(1),
      '--random': o(0),
      '--random-fully': o(0),
      '--persistent': o(0),
    },
  },
  MASQUERADE: {
    supported: true,
    options: { '--to-ports': o(1), '--random': o(0), '--random-fully': o(0) },
  },
  REDIRECT: { supported: true, options: { '--to-ports': o(1), '--random': o(0) } },
  MARK: { supported: true, options: markOpts },
  CONNMARK: {
    supported: true,
    options: {
      ...markOpts,
      '--save-mark': o(0),
      '--restore-mark': o(0),
      '--nfmask': o(1),
      '--ctmask': o(1),
      '--mask': o(1),
    },
  },
  REJECT: { supported: true, options: { '--reject-with': o(1) } },
  LOG: {
    supported: true,
    options: {
      '--log-prefix': o(1),
      '--log-level': o(1),
      '--log-tcp-sequence': o(0),
      '--log-tcp-options': o(0),
      '--log-ip-options': o(0),
      '--log-uid': o(0),
      '--log-macdecode': o(0),
    },
  },
  NFLOG: {
    supported: true,
    options: {
      '--nflog-group': o(1),
      '--nflog-prefix': o(1),
      '--nflog-range': o(1),
      '--nflog-size': o(1),
      '--nflog-threshold': o(1),
    },
  },
  TRACE: { supported: true, options: {} },
  NOTRACK: { supported: true, options: {} },
  CT: {
    supported: true,
    options: {
      '--notrack': o(0),
      '--zone': o(1),
      '--zone-orig': o(1),
      '--zone-reply': o(1),
      '--helper': o(1),
      '--ctevents': o(1),
      '--expevents': o(1),
      '--timeout': o(1),
    },
  },
  NFQUEUE: {
    supported: false,
    options: {
      '--queue-num': o(1),
      '--queue-balance': o(1),
      '--queue-bypass': o(0),
      '--fail-open': o(0),
      '--queue-cpu-fanout': o(0),
    },
  },
  TEE: { supported: false, options: { '--gateway': o(1), '--oif': o(1) } },
  TCPMSS: { supported: false, options: { '--set-mss': o(1), '--clamp-mss-to-pmtu': o(0) } },
  CHECKSUM: { supported: false, options: { '--checksum-fill': o(0) } },
  SET: {
    supported: false,
    options: { '--add-set': o(2), '--del-set': o(2), '--exist': o(0), '--timeout': o(1) },
  },
  TPROXY: {
    supported: false,
    options: { '--on-port': o(1), '--on-ip': o(1), '--tproxy-mark': o(1) },
  },
  CLASSIFY: { supported: false, options: { '--set-class': o(1) } },
  DSCP: { supported: false, options: { '--set-dscp': o(1), '--set-dscp-class': o(1) } },
  TOS: { supported: false, options: { '--set-tos': o(1) } },
  NETMAP: { supported: false, options: { '--to': o(1) } },
};

// Maps, not object lookups: most -j words are chain names (misses), which objects handle slowly.
const MATCH_MAP = new Map(Object.entries(MATCHES));
const TARGET_MAP = new Map(Object.entries(TARGETS));

export function lookupMatch(name: string): ExtensionInfo | undefined {
  return MATCH_MAP.get(name);
}

export function lookupTarget(name: string): ExtensionInfo | undefined {
  return TARGET_MAP.get(name);
}

/** Protocols whose match module is loaded implicitly by `-p` (`-p tcp --dport 80`). */
export const IMPLICIT_PROTO_MODULES = new Set(['tcp', 'udp', 'sctp', 'icmp', 'udplite']);
