/**
 * Matches that never change a verdict in the lab: `comment` only annotates (libxt_comment.c),
 * `nfacct` only counts (xt_nfacct.c), and `limit` lets the first packets of its burst through
 * (xt_limit.c; a probe is never more than a burst).
 */
import { o, type MatchExtension } from '../extension.ts';

export const comment: MatchExtension = {
  name: 'comment',
  supported: true,
  options: { '--comment': o(1) },
  compile() {},
};

export const nfacct: MatchExtension = {
  name: 'nfacct',
  supported: true,
  stateful: true,
  options: { '--nfacct-name': o(1) },
  compile() {},
};

export const limit: MatchExtension = {
  name: 'limit',
  supported: true,
  stateful: true,
  options: { '--limit': o(1), '--limit-burst': o(1) },
  compile() {},
};
