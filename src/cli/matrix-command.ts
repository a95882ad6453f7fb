/**
 * `hookpath matrix SCENARIO [--variant V] [--mode M] [--json] [--lang zh]`: every sender against every
 * address the variant exposes (src/cluster/matrix.ts). A grid of outcomes that fits 100 columns
 * (cut into blocks of columns), the destinations it numbers, then each cell in words. Exit 1 when
 * a cell the scenario states an expectation for differs from it, 2 on bad input.
 */
import { parseArgs } from 'node:util';
import {
  openClusterMatrix,
  type MatrixCell,
  type MatrixLayout,
  type MatrixOutcome,
} from '../cluster/matrix.ts';
import type { CliIo } from './cli.ts';
import { UsageError } from './input-error.ts';
import { buildOrThrow, load, variantsOf } from './scenario-commands.ts';
import { scenarioModes, type KubeProxyMode } from '../cluster/scenario.ts';
import type { LoadedScenario } from '../cluster/scenario.ts';

const MODES: readonly KubeProxyMode[] = ['iptables', 'nftables', 'ipvs'];

/**
 * `--mode`: one of kube-proxy's modes and one the scenario runs in (its kubeProxyModes); the
 * scenario's first mode without it.
 */
function modeOf(loaded: LoadedScenario, given: string | undefined): KubeProxyMode {
  const all = scenarioModes(loaded.def);
  if (given === undefined) return all[0] ?? 'iptables';
  if (!(MODES as readonly string[]).includes(given))
    throw new UsageError(`--mode '${given}': use ${MODES.join(', ')}`);
  if (!(all as readonly string[]).includes(given))
    throw new UsageError(
      `--mode '${given}': the scenario runs in ${all.join(', ')} (its kubeProxyModes)`,
    );
  return given as KubeProxyMode;
}

type Lang = 'en' | 'zh';

const WIDTH = 100;
/** One grid cell: the outcome word and the expectation mark. */
const CELL_W = 11;

const SAY = {
  en: {
    outcome: {
      answered: 'answered',
      refused: 'refused',
      timeout: 'timeout',
      split: 'split',
      unsupported: 'unsupp.',
      error: 'error',
    } satisfies Record<MatrixOutcome, string>,
    head: (s: number, d: number, n: number) => `${s} senders × ${d} destinations, ${n} cells`,
    ownNode: "on the sender's own node (nodes only)",
    legend: '✓ as the scenario expects   ✗ not as it expects   * partial   · not applicable',
    by: 'answered by',
    src: 'src seen',
    expected: 'expected',
    partial: (p: number) => `partial: the branches computed cover ${p}%`,
    limited: (s: string, d: string) =>
      `The matrix is cut to its bound: ${s} senders and ${d} destinations shown.`,
    unplaced: 'probes of the scenario that fit no cell:',
    summary: (ok: number, all: number, bad: number) =>
      `${ok} of ${all} stated expectations hold${bad ? `; ${bad} do not` : ''}`,
  },
  zh: {
    outcome: {
      answered: '应答',
      refused: '拒绝',
      timeout: '超时',
      split: '分流',
      unsupported: '不支持',
      error: '错误',
    } satisfies Record<MatrixOutcome, string>,
    head: (s: number, d: number, n: number) => `${s} 个发送方 × ${d} 个目标，共 ${n} 格`,
    ownNode: '发送方自己所在的节点（仅节点）',
    legend: '✓ 与场景预期一致   ✗ 与预期不符   * 部分结果   · 不适用',
    by: '应答者',
    src: '看到的源地址',
    expected: '预期',
    partial: (p: number) => `部分结果：已计算的分支覆盖 ${p}%`,
    limited: (s: string, d: string) => `矩阵已截到上限：显示 ${s} 个发送方、${d} 个目标。`,
    unplaced: '场景里放不进任何格子的探测：',
    summary: (ok: number, all: number, bad: number) =>
      `${all} 条预期中 ${ok} 条成立${bad ? `，${bad} 条不成立` : ''}`,
  },
} as const;

/** Display width: CJK characters take two columns in a terminal. */
function width(s: string): number {
  let w = 0;
  for (const ch of s)
    w += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\uff00-\uff60]/.test(ch) ? 2 : 1;
  return w;
}

const pad = (s: string, n: number) => s + ' '.repeat(Math.max(0, n - width(s)));

function cut(s: string, n: number): string {
  if (width(s) <= n) return s;
  let out = '';
  for (const ch of s) {
    if (width(out + ch) > n - 1) break;
    out += ch;
  }
  return `${out}…`;
}

const COLOUR: Record<MatrixOutcome, string> = {
  answered: '32',
  refused: '33',
  timeout: '31',
  split: '35',
  unsupported: '36',
  error: '31',
};

function paint(on: boolean, code: string, s: string): string {
  return on ? `\u001b[${code}m${s}\u001b[0m` : s;
}

const mark = (c: MatrixCell) =>
  `${c.partial ? '*' : ''}${c.matches === null ? '' : c.matches ? '✓' : '✗'}`;

/** The grid, in blocks of columns that fit the width. */
function gridLines(
  layout: MatrixLayout,
  cells: readonly MatrixCell[],
  say: (typeof SAY)[Lang],
  colour: boolean,
): string[] {
  const labelW = Math.min(24, Math.max(...layout.senders.map((s) => width(s.id))) + 2);
  const perBlock = Math.max(1, Math.floor((WIDTH - labelW) / CELL_W));
  const at = new Map(cells.map((c) => [`${c.row}:${c.col}`, c]));
  const out: string[] = [];
  for (let start = 0; start < layout.columns.length; start += perBlock) {
    const cols = layout.columns.slice(start, start + perBlock).map((_, i) => start + i);
    out.push(
      pad('', labelW) +
        cols
          .map((i) => pad(`[${i + 1}]`, CELL_W))
          .join('')
          .trimEnd(),
    );
    layout.senders.forEach((s, row) => {
      const line = cols.map((col) => {
        const c = at.get(`${row}:${col}`);
        if (!c) return pad('·', CELL_W);
        const word = `${say.outcome[c.outcome]}${mark(c)}`;
        const text = pad(word, CELL_W);
        return c.matches === false
          ? paint(colour, '1;31', text)
          : paint(colour, COLOUR[c.outcome], text);
      });
      out.push((pad(cut(s.id, labelW - 2), labelW) + line.join('')).trimEnd());
    });
    out.push('');
  }
  return out;
}

/** Words that fit: wraps `text` after `indent`, at spaces. */
function wrap(text: string, indent: number): string[] {
  const words = text.split(' ');
  const lines: string[] = [];
  let cur = '';
  for (const w of words) {
    if (cur && width(cur) + 1 + width(w) > WIDTH - indent) {
      lines.push(cur);
      cur = w;
    } else cur = cur ? `${cur} ${w}` : w;
  }
  if (cur) lines.push(cur);
  return lines.map((l, i) => ' '.repeat(indent + (i ? 2 : 0)) + l);
}

function cellWords(c: MatrixCell, say: (typeof SAY)[Lang]): string {
  if (c.error) return `${say.outcome.error}: ${c.error}`;
  const parts: string[] = [];
  const oneSource = c.srcSeen !== null && !c.srcSeen.includes(', ');
  if (c.outcome === 'answered' && c.answeredBy && oneSource)
    // Every branch answered, with the same source seen: the workload, not each pod's share.
    parts.push(
      `${say.by} ${c.answeredBy}, ${say.src} ${c.srcSeen}${c.srcSeenAs ? ` (${c.srcSeenAs})` : ''}`,
    );
  else if (c.branches.length > 1)
    parts.push(c.branches.map((b) => `${(b.share * 100).toFixed(1)}% ${b.detail}`).join('; '));
  else parts.push(c.branches[0]?.detail ?? say.outcome[c.outcome]);
  if (c.partial) parts.push(say.partial(Math.round(c.partial.covered * 1000) / 10));
  if (c.expected !== null) parts.push(`${c.matches ? '✓' : '✗'} ${say.expected}: ${c.expected}`);
  return parts.join(' · ');
}

function textReport(
  file: string,
  /** `variant, nftables mode`, or the variant alone when the scenario has one mode. */
  variant: string,
  layout: MatrixLayout,
  cells: readonly MatrixCell[],
  lang: Lang,
  colour: boolean,
): string[] {
  const say = SAY[lang];
  const out = [
    `${file}${variant ? ` [${variant}]` : ''}: ${say.head(layout.senders.length, layout.columns.length, cells.length)}`,
    '',
  ];
  if (layout.limited)
    out.push(
      say.limited(
        `${layout.limited.senders.shown}/${layout.limited.senders.total}`,
        `${layout.limited.columns.shown}/${layout.limited.columns.total}`,
      ),
      '',
    );
  out.push(...gridLines(layout, cells, say, colour));
  layout.columns.forEach((col, i) => {
    const where = col.ownNode
      ? `${col.address}:${col.port} ${say.ownNode}`
      : `${col.address}:${col.port}`;
    out.push(cut(`${pad(`[${i + 1}]`, 5)}${pad(col.id, 34)} ${where}`, WIDTH));
  });
  out.push('', say.legend, '');
  layout.senders.forEach((s, row) => {
    out.push(s.id);
    for (const c of cells.filter((x) => x.row === row)) {
      const head = `  [${c.col + 1}] ${c.to}: `;
      const lines = wrap(`${head.trim()} ${cellWords(c, say)}`, 2);
      out.push(...(c.matches === false ? lines.map((l) => paint(colour, '1;31', l)) : lines));
      for (const d of c.diff) out.push(...wrap(`! ${d}`, 6));
    }
  });
  if (layout.unplaced.length) {
    out.push('', say.unplaced);
    for (const u of layout.unplaced) out.push(...wrap(`${u.probe}: ${u.error}`, 2));
  }
  const stated = cells.filter((c) => c.matches !== null);
  const bad = stated.filter((c) => c.matches === false).length;
  out.push('', say.summary(stated.length - bad, stated.length, bad));
  return out;
}

export function matrixCommand(argv: string[], io: CliIo): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      variant: { type: 'string' },
      mode: { type: 'string' },
      json: { type: 'boolean' },
      lang: { type: 'string' },
    },
  });
  if (values.lang !== undefined && values.lang !== 'en' && values.lang !== 'zh')
    throw new UsageError(`--lang '${values.lang}': use en or zh`);
  const lang: Lang = values.lang === 'zh' ? 'zh' : 'en';
  const file = positionals[0];
  if (positionals.length > 1)
    throw new UsageError(`one scenario at a time: unexpected '${positionals[1]}'`);
  const loaded = load(file, io);
  const variant = variantsOf(loaded, values.variant)[0];
  const mode = modeOf(loaded, values.mode);
  const several = scenarioModes(loaded.def).length > 1;
  // Without kubeProxyModes the cluster keeps its own modes (a scenario may mix them).
  const built = buildOrThrow(file as string, loaded, variant, io, several ? mode : undefined);
  const m = openClusterMatrix(built.cluster, built.probes);
  const cells = m.layout.pairs.map((_, i) => m.cell(i));
  const failed = cells.some((c) => c.matches === false);
  if (values.json) {
    io.out(
      `${JSON.stringify(
        {
          file,
          variant: variant ?? null,
          mode,
          senders: m.layout.senders,
          destinations: m.layout.columns,
          limited: m.layout.limited,
          unplaced: m.layout.unplaced,
          cells: cells.map((c) => ({
            from: c.from,
            to: c.to,
            address: c.address,
            outcome: c.outcome,
            responder: c.responder,
            answeredBy: c.answeredBy,
            srcSeen: c.srcSeen,
            srcSeenAs: c.srcSeenAs,
            expected: c.expected,
            matches: c.matches,
            diff: c.diff,
            branches: c.branches,
            partial: c.partial,
            ...(c.error ? { error: c.error } : {}),
          })),
        },
        null,
        2,
      )}\n`,
    );
  } else {
    const tag = [variant, several ? `${mode} mode` : undefined].filter(Boolean).join(', ');
    for (const l of textReport(file as string, tag, m.layout, cells, lang, io.colour === true))
      io.out(`${l}\n`);
  }
  return failed ? 1 : 0;
}
