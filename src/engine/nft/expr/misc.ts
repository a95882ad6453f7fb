/**
 * Statements that do not decide: `counter`, `log`, `notrack`, and the dynamic-set update
 * (the rule parser reads `update @set { ... }`, kube-proxy's session affinity). `limit`, `quota`, `meter`
 * and friends keep rates the lab does not model: reaching one is an unsupported step.
 */
import { fail, unsupported, type Cursor } from '../cursor.ts';
import type { Stmt } from '../types.ts';
import type { StmtFamily } from './family.ts';

const counter: StmtFamily = {
  words: ['counter'],
  parse(c): Stmt {
    c.i++;
    // `counter packets 3 bytes 180`, as nft lists it.
    while (c.word() === 'packets' || c.word() === 'bytes') c.i += 2;
    return { kind: 'counter', text: 'counter' };
  },
};

const LOG_OPTIONS = new Set(['level', 'group', 'snaplen', 'queue-threshold', 'flags']);

const log: StmtFamily = {
  words: ['log'],
  parse(c): Stmt {
    c.i++;
    let prefix = '';
    let group = false;
    for (;;) {
      const w = c.word();
      if (w === 'prefix') {
        const t = c.peek(1);
        if (!t || (t.kind !== 'string' && t.kind !== 'word'))
          fail(c.here(), "'prefix' needs a text");
        prefix = t.text;
        c.i += 2;
      } else if (w !== undefined && LOG_OPTIONS.has(w)) {
        if (w === 'group') group = true;
        c.i += 2;
        if (w === 'flags') while (c.isPunct(',')) c.i += 2;
      } else break;
    }
    return { kind: 'log', text: prefix ? `log prefix "${prefix}"` : 'log', prefix, group };
  },
};

const notrack: StmtFamily = {
  words: ['notrack'],
  parse(c): Stmt {
    c.i++;
    return { kind: 'notrack', text: 'notrack' };
  },
};

const RATE = ['limit', 'quota', 'meter', 'synproxy', 'flow', 'tproxy', 'fwd', 'dup', 'xt', 'osf'];

const rate: StmtFamily = {
  words: RATE,
  parse(c: Cursor): Stmt {
    const at = c.peek();
    c.i = c.end;
    return unsupported(at, `'${at?.text ?? ''}' (a statement the lab does not model)`);
  },
};

export const MISC: readonly StmtFamily[] = [counter, log, notrack, rate];
