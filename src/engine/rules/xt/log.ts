/** LOG and NFLOG: the walk goes on; the trace shows the line the kernel would log (xt_LOG.c, xt_NFLOG.c). */
import { o, option, type TargetExtension } from '../extension.ts';

export const LOG: TargetExtension = {
  name: 'LOG',
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
  compile: (t) => ({ kind: 'log', prefix: option(t, '--log-prefix')?.args[0] ?? '', via: 'LOG' }),
};

export const NFLOG: TargetExtension = {
  name: 'NFLOG',
  supported: true,
  options: {
    '--nflog-group': o(1),
    '--nflog-prefix': o(1),
    '--nflog-range': o(1),
    '--nflog-size': o(1),
    '--nflog-threshold': o(1),
  },
  compile: (t) => ({
    kind: 'log',
    prefix: option(t, '--nflog-prefix')?.args[0] ?? '',
    via: 'NFLOG',
  }),
};
