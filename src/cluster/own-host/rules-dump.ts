/**
 * The netfilter dumps, read by the engine's own parsers (the ones the lab and the CLI use):
 * iptables-save / ip6tables-save with parseRuleset, `nft list ruleset` with parseNftRuleset. Here
 * they are counted, and the rules the lab reads but cannot evaluate are listed with their line: a
 * match module or target it does not model (the trace stops there, saying so), an nft statement
 * it does not model.
 */
import {
  parseNftRuleset,
  parseRuleset,
  type Diagnostic,
  type NftParseResult,
  type ParseResult,
} from '../../engine/index.ts';
import { ownNote, type DumpCounts, type OwnNote } from './types.ts';

export interface ReadRules {
  readonly counts: DumpCounts;
  readonly diagnostics: readonly Diagnostic[];
  readonly unsupported: readonly OwnNote[];
  readonly parsed: ParseResult | NftParseResult;
}

const placed = (d: Diagnostic): Diagnostic => ({
  severity: d.severity,
  line: d.line,
  column: d.column,
  message: d.hint ? `${d.message} (${d.hint})` : d.message,
});

export function readXtables(text: string, family: 4 | 6): ReadRules & { parsed: ParseResult } {
  const parsed = parseRuleset(text, { family });
  let chains = 0;
  let rules = 0;
  const unsupported: OwnNote[] = [];
  for (const table of parsed.ruleset.tables.values())
    for (const chain of table.chains.values()) {
      chains++;
      for (const rule of chain.rules) {
        rules++;
        const m = rule.matches.find((x) => 'unsupported' in x);
        const why = m
          ? (m as { unsupported: string }).unsupported
          : rule.target.kind === 'unsupported'
            ? rule.target.what
            : null;
        if (why)
          unsupported.push(ownNote(rule.line, rule.text, 'rules.unsupported', { what: why }));
      }
    }
  unsupported.sort((a, b) => a.line - b.line);
  return {
    parsed,
    counts: { tables: parsed.ruleset.tables.size, chains, rules },
    diagnostics: parsed.diagnostics.map(placed),
    unsupported,
  };
}

/** The parser's "cannot evaluate" warnings are the unsupported rules; the other ones stay warnings. */
export function readNft(text: string): ReadRules & { parsed: NftParseResult } {
  const parsed = parseNftRuleset(text);
  let chains = 0;
  let rules = 0;
  for (const t of parsed.ruleset.tables)
    for (const c of t.chains.values()) {
      chains++;
      rules += c.rules.length;
    }
  const lines = text.split('\n');
  const isUnsupported = (d: Diagnostic) =>
    d.severity === 'warning' && /cannot evaluate/.test(d.message);
  return {
    parsed,
    counts: { tables: parsed.ruleset.tables.length, chains, rules },
    diagnostics: parsed.diagnostics.filter((d) => !isUnsupported(d)).map(placed),
    unsupported: parsed.diagnostics.filter(isUnsupported).map((d) => ({
      line: d.line,
      text: (lines[d.line - 1] ?? '').trim(),
      why: d.message,
    })),
  };
}
