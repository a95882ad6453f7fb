/**
 * `nft -j list ruleset` (libnftables-json(5)): each object of the `nftables` array becomes the
 * transaction command it describes (`add chain ... # handle N`), read by the text reader, so
 * both forms compile the same way and rules show in nft syntax. Diagnostics point at the JSON
 * object the command came from.
 */
import type { NftReader } from './parse.ts';

type J = unknown;

interface Origin {
  readonly line: number;
  readonly column: number;
}

function obj(x: J): Record<string, J> | null {
  return x !== null && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, J>) : null;
}

/** Start offsets of the items of the top-level `nftables` array (depth-aware scan). */
function itemOffsets(text: string): number[] {
  const out: number[] = [];
  let depth = 0;
  let inStr = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inStr) {
      if (ch === '\\') i++;
      else if (ch === '"') inStr = false;
      continue;
    }
    if (ch === '"') inStr = true;
    else if (ch === '{' || ch === '[') {
      if (ch === '{' && depth === 2) out.push(i);
      depth++;
    } else if (ch === '}' || ch === ']') depth--;
  }
  return out;
}

function position(text: string, offset: number): Origin {
  let line = 1;
  let last = -1;
  for (let i = 0; i < offset; i++)
    if (text.charCodeAt(i) === 10) {
      line++;
      last = i;
    }
  return { line, column: offset - last };
}

function quote(s: string): string {
  return /^[A-Za-z_.][A-Za-z0-9/_.-]*$/.test(s) ? s : `"${s}"`;
}

export function exprText(e: J): string {
  if (typeof e === 'string') return e;
  if (typeof e === 'number' || typeof e === 'boolean') return String(e);
  if (Array.isArray(e)) return e.map(exprText).join(',');
  const o = obj(e);
  if (!o) return 'null';
  const [k, v] = Object.entries(o)[0] ?? ['', null];
  const vo = obj(v) ?? {};
  switch (k) {
    case 'payload':
      if (vo.protocol) return `${String(vo.protocol)} ${String(vo.field)}`;
      return `@${String(vo.base)},${String(vo.offset)},${String(vo.len)}`;
    case 'meta': {
      const key = String(vo.key);
      return ['mark', 'iifname', 'oifname', 'iif', 'oif', 'l4proto', 'nfproto'].includes(key)
        ? `meta ${key}`
        : `meta ${key}`;
    }
    case 'ct':
      return `ct ${vo.dir ? `${String(vo.dir)} ` : ''}${String(vo.key)}`;
    case 'fib': {
      const flags = (Array.isArray(vo.flags) ? vo.flags : [vo.flags]).map(String);
      const addr = flags.find((f) => f === 'saddr' || f === 'daddr') ?? 'daddr';
      const mods = flags
        .filter((f) => f !== addr)
        .map((f) => ` . ${f}`)
        .join('');
      return `fib ${addr}${mods} ${String(vo.result)}`;
    }
    case 'numgen':
      return `numgen ${String(vo.mode)} mod ${String(vo.mod)}${vo.offset ? ` offset ${String(vo.offset)}` : ''}`;
    case 'concat':
      return (v as J[]).map(exprText).join(' . ');
    case 'prefix':
      return `${exprText(vo.addr)}/${String(vo.len)}`;
    case 'range':
      return (v as J[]).map(exprText).join('-');
    case 'set':
      return `{ ${(Array.isArray(v) ? v : [v]).map(elemText).join(', ')} }`;
    case 'elem':
      return elemText(e);
    case '&':
    case '|':
    case '^':
    case '<<':
    case '>>':
      return (v as J[]).map(exprText).join(` ${k} `);
    case 'accept':
    case 'drop':
    case 'continue':
    case 'return':
      return k;
    case 'jump':
    case 'goto':
      return `${k} ${quote(String(vo.target))}`;
    default:
      return k;
  }
}

function elemText(e: J): string {
  if (Array.isArray(e) && e.length === 2 && !isFlagList(e))
    return `${elemText(e[0])} : ${exprText(e[1])}`;
  const o = obj(e);
  if (o && 'elem' in o) {
    const el = obj(o.elem) ?? {};
    const c = el.comment ? ` comment "${String(el.comment)}"` : '';
    return `${exprText(el.val)}${c}`;
  }
  return exprText(e);
}

function isFlagList(e: J[]): boolean {
  return e.every((x) => typeof x === 'string' && !x.startsWith('@')) && e.length !== 2;
}

function matchText(m: Record<string, J>): string {
  const op = String(m.op ?? '==');
  const left = exprText(m.left);
  const right = exprText(m.right);
  return op === '==' || op === 'in' ? `${left} ${right}` : `${left} ${op} ${right}`;
}

function natText(kind: string, v: Record<string, J>): string {
  const fam = v.family ? ` ${String(v.family)}` : '';
  let to = '';
  if (v.addr !== undefined) {
    const a = exprText(v.addr);
    const port = v.port !== undefined ? `:${exprText(v.port)}` : '';
    to = ` to ${a.includes(':') && port ? `[${a}]` : a}${port}`;
  } else if (v.port !== undefined) to = ` to :${exprText(v.port)}`;
  const flags = Array.isArray(v.flags)
    ? ` ${v.flags.map(String).join(',')}`
    : v.flags
      ? ` ${String(v.flags)}`
      : '';
  return `${kind}${fam}${to}${flags}`;
}

export function stmtText(s: J): string {
  const o = obj(s) ?? {};
  const [k, v] = Object.entries(o)[0] ?? ['', null];
  const vo = obj(v) ?? {};
  switch (k) {
    case 'match':
      return matchText(vo);
    case 'counter':
      return 'counter';
    case 'vmap':
      return `${exprText(vo.key)} vmap ${exprText(vo.data)}`;
    case 'mangle':
      return `${exprText(vo.key)} set ${exprText(vo.value)}`;
    case 'dnat':
    case 'snat':
    case 'masquerade':
    case 'redirect':
      return natText(k, vo);
    case 'reject': {
      const type = vo.type ? String(vo.type) : null;
      if (type === 'tcp reset') return 'reject with tcp reset';
      if (!type) return 'reject';
      return `reject with ${type === 'icmpx' ? 'icmpx' : type} ${vo.expr ? exprText(vo.expr) : 'port-unreachable'}`;
    }
    case 'log':
      return vo.prefix ? `log prefix "${String(vo.prefix)}"` : 'log';
    case 'notrack':
      return 'notrack';
    case 'set':
      return `${String(vo.op)} ${String(vo.set)} { ${exprText(vo.elem)} }`;
    case 'accept':
    case 'drop':
    case 'continue':
    case 'return':
    case 'jump':
    case 'goto':
    case 'queue':
      return exprText(s);
    default:
      return k;
  }
}

function typeText(t: J): string {
  return Array.isArray(t) ? t.map(String).join(' . ') : String(t);
}

/** One command line (or none) for an item of the array. */
function commandOf(item: Record<string, J>): string | null {
  const [k, v] = Object.entries(item)[0] ?? ['', null];
  const o = obj(v);
  if (!o) return null;
  const fam = String(o.family ?? 'ip');
  const handle = o.handle !== undefined ? ` # handle ${String(o.handle)}` : '';
  switch (k) {
    case 'table':
      return `add table ${fam} ${quote(String(o.name))}`;
    case 'chain': {
      const head = `add chain ${fam} ${quote(String(o.table))} ${quote(String(o.name))}`;
      if (!o.hook) return `${head} {${handle}\n}`;
      return `${head} {${handle}\n type ${String(o.type)} hook ${String(o.hook)} priority ${String(o.prio)} ; policy ${String(o.policy ?? 'accept')} ;\n}`;
    }
    case 'rule': {
      const stmts = (Array.isArray(o.expr) ? o.expr : []).map(stmtText).join(' ');
      const comment = o.comment ? ` comment "${String(o.comment)}"` : '';
      return `add rule ${fam} ${quote(String(o.table))} ${quote(String(o.chain))} ${stmts}${comment}${handle}`;
    }
    case 'set':
    case 'map': {
      const data = k === 'map' ? ` : ${String(o.map)}` : '';
      const flags = Array.isArray(o.flags) ? `flags ${o.flags.map(String).join(',')} ;` : '';
      const elems = Array.isArray(o.elem)
        ? ` elements = { ${o.elem.map(elemText).join(', ')} } ;`
        : '';
      const comment = o.comment ? ` comment "${String(o.comment)}" ;` : '';
      return `add ${k} ${fam} ${quote(String(o.table))} ${quote(String(o.name))} {${handle}\n type ${typeText(o.type)}${data} ; ${flags}${elems}${comment}\n}`;
    }
    case 'element':
      return `add element ${fam} ${quote(String(o.table))} ${quote(String(o.name))} { ${(Array.isArray(o.elem) ? o.elem : []).map(elemText).join(', ')} }`;
    default:
      return null;
  }
}

/** Reads JSON into `reader`; diagnostics are moved to the JSON objects' positions. */
export function parseNftJson(text: string, reader: NftReader): void {
  let doc: J;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    const m = /position (\d+)/.exec(String(e));
    const at = position(text, m ? Number(m[1]) : 0);
    reader.error(at, `this is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
    return;
  }
  const items = obj(doc)?.nftables;
  if (!Array.isArray(items)) {
    reader.error(
      { line: 1, column: 1 },
      "nft JSON has an 'nftables' array at the top",
      'produce it with nft -j list ruleset',
    );
    return;
  }
  const offsets = itemOffsets(text);
  const lines: string[] = [];
  const origin: Origin[] = [];
  items.forEach((it, i) => {
    const o = obj(it);
    const cmd = o ? commandOf(o) : null;
    if (cmd === null) return;
    const at = position(text, offsets[i] ?? 0);
    for (const l of cmd.split('\n')) {
      lines.push(l);
      origin.push(at);
    }
  });
  reader.lineMap = { from: reader.diagnostics.length, at: origin };
  reader.readFrom(lines.join('\n'));
}
