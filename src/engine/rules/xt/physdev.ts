/**
 * `-m physdev`: the bridge ports of a frame br_netfilter passes through the IPv4 hooks
 * (net/netfilter/xt_physdev.c physdev_mt, Linux 6.18). Evaluated exactly as the kernel does,
 * including its lopsided corners:
 * - a packet without bridge info (never bridged, or br_netfilter off) matches only when every
 *   option given is negated;
 * - `--physdev-is-bridged` is "has an out port": true in FORWARD and POSTROUTING of a bridged
 *   frame only (the out port is set in br_nf_forward_ip);
 * - `--physdev-in NAME` passes (either way) when there is no in port;
 * - `--physdev-out NAME` fails (either way) when there is no out port.
 * Names compare like `-i` (ifname_compare_aligned with iptables' mask): `veth+` is a prefix.
 */
import type { MatchCtx } from '../../match-context.ts';
import { arg, fail, o, type MatchExtension } from '../extension.ts';

interface PhysdevInfo {
  in: { name: string; negated: boolean } | null;
  out: { name: string; negated: boolean } | null;
  isIn: boolean | null;
  isOut: boolean | null;
  bridged: boolean | null;
}

function nameMatches(pattern: string, dev: string): boolean {
  return pattern.endsWith('+') ? dev.startsWith(pattern.slice(0, -1)) : dev === pattern;
}

function physdevMatch(info: PhysdevInfo, c: MatchCtx): boolean {
  const phys = c.phys;
  if (!phys) {
    // "Return MATCH if the invert flags of the used options are on."
    for (const o of [info.bridged, info.isIn, info.isOut]) if (o === true) return false;
    if (info.in && !info.in.negated) return false;
    if (info.out && !info.out.negated) return false;
    return true;
  }
  // An option's value is `true` when written plain, `false` when negated (`! --physdev-is-in`).
  if (info.bridged !== null && (phys.out !== null) !== info.bridged) return false;
  if (info.isIn !== null && (phys.in !== null) !== info.isIn) return false;
  if (info.isOut !== null && (phys.out !== null) !== info.isOut) return false;
  if (info.in && phys.in !== null && nameMatches(info.in.name, phys.in) === info.in.negated)
    return false;
  if (!info.out) return true;
  if (phys.out === null) return false;
  return nameMatches(info.out.name, phys.out) !== info.out.negated;
}

export const physdev: MatchExtension = {
  name: 'physdev',
  supported: true,
  options: {
    '--physdev-in': o(1, true),
    '--physdev-out': o(1, true),
    '--physdev-is-in': o(0, true),
    '--physdev-is-out': o(0, true),
    '--physdev-is-bridged': o(0, true),
  },
  compile(mod, cx) {
    const info: PhysdevInfo = { in: null, out: null, isIn: null, isOut: null, bridged: null };
    for (const opt of mod.options) {
      const name = arg(opt);
      if ((opt.name === '--physdev-in' || opt.name === '--physdev-out') && name.length > 15)
        fail(opt.column, `${opt.name} ${name}: an interface name has at most 15 characters`);
      if (opt.name === '--physdev-in') info.in = { name, negated: opt.negated };
      else if (opt.name === '--physdev-out') info.out = { name, negated: opt.negated };
      else if (opt.name === '--physdev-is-in') info.isIn = !opt.negated;
      else if (opt.name === '--physdev-is-out') info.isOut = !opt.negated;
      else info.bridged = !opt.negated;
    }
    // physdev_mt_check: an out port is unknown in OUTPUT unless the rule asks for bridged frames.
    const outOpt = mod.options.find(
      (x) => x.name === '--physdev-out' || x.name === '--physdev-is-out',
    );
    if (outOpt && info.bridged !== true && cx.rule.chain === 'OUTPUT')
      fail(
        outOpt.column,
        `${outOpt.name} is only supported in the FORWARD and POSTROUTING chains with bridged traffic`,
        'add --physdev-is-bridged, or move the rule to FORWARD or POSTROUTING',
      );
    if (
      info.in === null &&
      info.out === null &&
      info.isIn === null &&
      info.isOut === null &&
      info.bridged === null
    )
      fail(
        mod.column,
        'physdev needs one of --physdev-in, --physdev-out, --physdev-is-in, --physdev-is-out, --physdev-is-bridged',
      );
    cx.add((c) => physdevMatch(info, c));
  },
};
