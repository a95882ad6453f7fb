import type { Diagnostic } from './diagnostic.ts';

/**
 * What the trace readers say about a line they cannot read, keyed like the engine's explanations
 * (src/engine/explain.ts): English here, with `{param}` placeholders; the lab shows the Chinese of
 * the same key (src/app/i18n/replay-errors-zh.ts, checked complete by a test).
 */
export const REPLAY_ERRORS_EN = {
  'too-long':
    "the trace is {chars} characters long; paste at most {max} (one packet's lines are enough)",
  'no-trace':
    'no trace lines found: paste the output of `xtables-monitor --trace` (lines starting PACKET: / TRACE:), `nft monitor trace` (lines starting "trace id"), Retis (the JSON lines of `retis collect -o`) or pwru (lines starting with an skb address, 0xffff...)',
  'nft.head':
    'expected "trace id ID FAMILY TABLE CHAIN packet:|rule|policy|verdict ..." (the hex id, then family, table and chain)',
  'nft.rule-verdict': 'a rule line ends in "(verdict ...)"',
  'nft.names-verdict': 'a {kind} line names its verdict: "{kind} accept"',
  'xtables.head':
    '{keyword}: must be followed by a family number and a hex trace id ("{keyword}: 2 4a102771 ...")',
  'xtables.event':
    'expected table:chain:rule:HANDLE:VERDICT, table:chain:return: or table:chain:policy:VERDICT',
  'xtables.rule': 'a rule event needs a handle and a verdict: rule:0x1f:ACCEPT',
  'retis.nft-text':
    'an nft line reads "table T (handle) chain C (handle) [handle N] VERDICT [(policy)] [chain TARGET]"',
  'retis.nft-field': 'the nft section needs {field}',
  'retis.json':
    'not a JSON event: paste the file `retis collect -o FILE` wrote as it is (one event a line)',
  'pwru.func':
    'expected the kernel function after the tuple (or after the process, in older pwru output)',
  'pwru.json':
    'not a JSON line: paste what `pwru --output-json` printed as it is (one object a line)',
} as const;

export type ReplayErrorKey = keyof typeof REPLAY_ERRORS_EN;
export type ReplayErrorParams = Readonly<Record<string, string | number>>;

/** What is wrong with a line, before its place is known. */
export interface TraceProblem {
  readonly key: ReplayErrorKey;
  readonly params?: ReplayErrorParams;
}

/** `{name}` of a template replaced by its parameter. */
export function fillTemplate(template: string, params: ReplayErrorParams = {}): string {
  return template.replace(/\{(\w+)\}/g, (all, k: string) =>
    params[k] === undefined ? all : String(params[k]),
  );
}

/**
 * The error for a line that looks like trace output but cannot be read: its place, its key of
 * REPLAY_ERRORS_EN as the diagnostic's `code` with its parameters, and the English sentence (the
 * lab shows the key's text in the user's language).
 */
export function traceError(line: number, column: number, p: TraceProblem): Diagnostic {
  const params = p.params ?? {};
  return {
    severity: 'error',
    line,
    column,
    code: p.key,
    params,
    message: fillTemplate(REPLAY_ERRORS_EN[p.key], params),
  };
}
