/**
 * Extensions the lab reads (so a real dump loads) but does not evaluate: socket owners, transparent sockets, queues to user space, packet rewriting the lab does not
 * model. Reaching one stops the walk with an explicit "unsupported" step instead of a guess.
 */
import { o, type MatchExtension, type Options, type TargetExtension } from '../extension.ts';

const match = (name: string, options: Options): MatchExtension => ({
  name,
  supported: false,
  options,
  compile() {},
});

const target = (name: string, options: Options): TargetExtension => ({
  name,
  supported: false,
  options,
  compile: () => ({ kind: 'unsupported', what: `target ${name}` }),
});

export const UNSUPPORTED_MATCHES: readonly MatchExtension[] = [
  match('owner', {
    '--uid-owner': o(1, true),
    '--gid-owner': o(1, true),
    '--socket-exists': o(0, true),
    '--suppl-groups': o(0),
  }),
  match('socket', { '--transparent': o(0), '--nowildcard': o(0), '--restore-skmark': o(0) }),
];

export const UNSUPPORTED_TARGETS: readonly TargetExtension[] = [
  target('QUEUE', {}),
  target('NFQUEUE', {
    '--queue-num': o(1),
    '--queue-balance': o(1),
    '--queue-bypass': o(0),
    '--fail-open': o(0),
    '--queue-cpu-fanout': o(0),
  }),
  target('TEE', { '--gateway': o(1), '--oif': o(1) }),
  target('TCPMSS', { '--set-mss': o(1), '--clamp-mss-to-pmtu': o(0) }),
  target('CHECKSUM', { '--checksum-fill': o(0) }),
  target('SET', { '--add-set': o(2), '--del-set': o(2), '--exist': o(0), '--timeout': o(1) }),
  target('TPROXY', { '--on-port': o(1), '--on-ip': o(1), '--tproxy-mark': o(1) }),
  target('CLASSIFY', { '--set-class': o(1) }),
  target('DSCP', { '--set-dscp': o(1), '--set-dscp-class': o(1) }),
  target('TOS', { '--set-tos': o(1) }),
  target('NETMAP', { '--to': o(1) }),
];
