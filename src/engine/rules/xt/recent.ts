/**
 * `-m recent`: per-address hit lists (net/netfilter/xt_recent.c). kube-proxy writes it for
 * `sessionAffinity: ClientIP` (KUBE-SEP-* `--set`, KUBE-SVC-* `--rcheck --seconds 10800 --reap`).
 */
import { fail, o, option, type MatchExtension } from '../extension.ts';

export const recent: MatchExtension = {
  name: 'recent',
  supported: true,
  stateful: true,
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
  compile(mod, cx) {
    const get = (n: string) => option(mod, n);
    const name = get('--name')?.args[0] ?? 'DEFAULT';
    const modes = ['--set', '--rcheck', '--update', '--remove'].filter((m) => get(m));
    if (modes.length !== 1)
      fail(mod.column, 'recent needs exactly one of --set, --rcheck, --update, --remove');
    const mode = modes[0] as string;
    const negated = get(mode)?.negated ?? false;
    const seconds = get('--seconds') ? Number(get('--seconds')?.args[0]) : 0;
    const hitcount = get('--hitcount') ? Number(get('--hitcount')?.args[0]) : 0;
    const reap = get('--reap') !== undefined;
    const useDst = get('--rdest') !== undefined;
    if (Number.isNaN(seconds) || Number.isNaN(hitcount))
      fail(mod.column, 'recent --seconds and --hitcount take numbers');
    if (reap && !seconds) fail(mod.column, 'recent --reap needs --seconds');
    cx.add((c) => {
      const addr = useDst ? c.pkt.dst : c.pkt.src;
      let list = c.state.recent.get(name);
      if (!list) {
        list = new Map();
        c.state.recent.set(name, list);
      }
      if (reap) {
        for (const [a, times] of list) {
          const kept = times.filter((t) => c.now - t <= seconds);
          if (kept.length) list.set(a, kept);
          else list.delete(a);
        }
      }
      let hit: boolean;
      if (mode === '--set') {
        list.set(addr, [...(list.get(addr) ?? []), c.now]);
        hit = true;
      } else if (mode === '--remove') {
        hit = list.delete(addr);
      } else {
        const times = (list.get(addr) ?? []).filter((t) => !seconds || c.now - t <= seconds);
        hit = times.length > 0 && (!hitcount || times.length >= hitcount);
        if (hit && mode === '--update') list.set(addr, [...(list.get(addr) ?? []), c.now]);
      }
      return negated ? !hit : hit;
    });
  },
};
