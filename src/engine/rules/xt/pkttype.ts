/** `-m pkttype --pkt-type`: unicast, broadcast or multicast, by the destination (xt_pkttype.c). */
import { addrType } from '../../host.ts';
import { arg, fail, negate, o, type MatchExtension } from '../extension.ts';

export const pkttype: MatchExtension = {
  name: 'pkttype',
  supported: true,
  options: { '--pkt-type': o(1, true) },
  compile(mod, cx) {
    for (const opt of mod.options) {
      const t = arg(opt).toLowerCase();
      if (!['unicast', 'broadcast', 'multicast'].includes(t))
        fail(opt.column, `--pkt-type is unicast, broadcast or multicast`);
      cx.add(
        negate((c) => {
          const at = addrType(c.host, c.pkt.dst, null);
          const kind =
            at === 'BROADCAST' ? 'broadcast' : at === 'MULTICAST' ? 'multicast' : 'unicast';
          return kind === t;
        }, opt.negated),
      );
    }
  },
};
