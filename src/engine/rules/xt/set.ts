/** `-m set --match-set NAME src,dst`: membership in an ipset of the host (xt_set.c, ipset(8)). */
import { ipsetMatch } from '../../ipset.ts';
import { fail, negate, o, type MatchExtension } from '../extension.ts';

export const set: MatchExtension = {
  name: 'set',
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
  compile(mod, cx) {
    for (const opt of mod.options) {
      if (opt.name !== '--match-set') {
        cx.add({ unsupported: `set ${opt.name}` });
        continue;
      }
      const [name, flagText] = opt.args as [string, string];
      const flags = flagText.split(',');
      if (flags.some((f) => f !== 'src' && f !== 'dst'))
        fail(opt.column, `set flags are src or dst, not '${flagText}'`);
      const dirs = flags as ('src' | 'dst')[];
      cx.add(
        negate((c) => {
          const s = c.sets.get(name);
          if (!s) return false;
          return ipsetMatch(s, dirs, {
            ip: (w) => c.pkt[w],
            port: (w) => (w === 'src' ? c.pkt.sport : c.pkt.dport),
            proto: c.pkt.proto,
          });
        }, opt.negated),
      );
    }
  },
};
