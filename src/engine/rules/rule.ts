/**
 * A rule keeps only its canonical text and position; its parsed words are rebuilt from the text
 * when asked for. A kube-proxy node has over 100,000 rules, and keeping every parsed word alive
 * would cost several hundred megabytes (issue #2 budgets 300 MB).
 */
import { parseRuleBody, type ParsedRuleBody } from './parse-rule.ts';
import { tokenizeLine } from './tokenize.ts';
import type { Chain, Rule, RuleItem, TableName, TargetSpec } from './types.ts';

export class TextRule implements Rule {
  index: number;
  readonly targetName: string | null;
  readonly targetColumn: number;
  /** The user chain this rule jumps or goes to, resolved when the rule was read. */
  jumpTo: Chain | null = null;
  private body: ParsedRuleBody | null;

  constructor(
    readonly table: TableName,
    readonly chain: string,
    index: number,
    readonly line: number,
    readonly text: string,
    readonly counters: string | null,
    body: ParsedRuleBody,
  ) {
    this.index = index;
    this.targetName = body.target?.name ?? null;
    this.targetColumn = body.target?.column ?? 1;
    // The parsed words are not kept: see the file comment.
    this.body = null;
  }

  private parsed(): ParsedRuleBody {
    if (!this.body) {
      const tk = tokenizeLine(this.text);
      // The canonical text always tokenizes; it starts with `-A CHAIN`.
      this.body = parseRuleBody(
        tk.ok ? tk : { words: [], cols: [], quoted: [], line: '' },
        2,
        this.line,
        false,
      );
    }
    return this.body;
  }

  get items(): readonly RuleItem[] {
    return this.parsed().items;
  }

  get target(): TargetSpec | null {
    return this.parsed().target;
  }
}
