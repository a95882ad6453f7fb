/**
 * Calico's label selector language (libcalico-go/lib/selector/parser): `a == 'b'`, `a != 'b'`,
 * `has(a)`, `!has(a)`, `a in {'x', 'y'}`, `a not in {...}`, `a contains|starts with|ends with
 * 's'`, `all()`, `!`, `&&`, `||`, parentheses. `canonical` is the parser's String() (the
 * fragments of ast.go's collectFragments), whose hash names the selector's IP set.
 */

export type Selector =
  | { readonly kind: 'all' }
  | { readonly kind: 'has'; readonly label: string }
  | {
      readonly kind: 'cmp';
      readonly label: string;
      readonly op: '==' | '!=' | 'contains' | 'starts with' | 'ends with';
      readonly value: string;
    }
  | { readonly kind: 'in' | 'not in'; readonly label: string; readonly values: readonly string[] }
  | { readonly kind: 'not'; readonly operand: Selector }
  | { readonly kind: 'and' | 'or'; readonly operands: readonly Selector[] };

export interface SelectorError {
  /** 0-based offset in the selector text. */
  readonly at: number;
  readonly message: string;
}

const LABEL = /^[A-Za-z0-9_./-]+/;

// eslint-disable-next-line max-lines-per-function -- a recursive-descent parser of Calico's selector grammar, kept in one place
export function parseSelector(text: string): Selector | SelectorError {
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
  };
  const err = (message: string): SelectorError => ({ at: i, message });
  const eat = (s: string): boolean => {
    ws();
    if (text.startsWith(s, i)) {
      i += s.length;
      return true;
    }
    return false;
  };
  const str = (): string | SelectorError => {
    ws();
    const q = text[i];
    if (q !== '"' && q !== "'") return err(`expected a quoted value like 'core'`);
    const end = text.indexOf(q, i + 1);
    if (end < 0) return err('the quoted value is not closed');
    const v = text.slice(i + 1, end);
    i = end + 1;
    return v;
  };
  const isErr = (x: unknown): x is SelectorError =>
    typeof x === 'object' && x !== null && 'message' in x && 'at' in x;

  const primary = (): Selector | SelectorError => {
    ws();
    if (eat('!')) {
      const operand = primary();
      return isErr(operand) ? operand : { kind: 'not', operand };
    }
    if (eat('(')) {
      const inner = orExpr();
      if (isErr(inner)) return inner;
      if (!eat(')')) return err("expected ')'");
      return inner;
    }
    if (eat('all()')) return { kind: 'all' };
    if (eat('has(')) {
      ws();
      const m = LABEL.exec(text.slice(i));
      if (!m) return err('expected a label name inside has()');
      i += m[0].length;
      if (!eat(')')) return err("expected ')' after the label name");
      return { kind: 'has', label: m[0] };
    }
    ws();
    const m = LABEL.exec(text.slice(i));
    if (!m) return err(`expected a label name, has(...), all() or '(' here`);
    i += m[0].length;
    const label = m[0];
    for (const op of ['==', '!=', 'contains', 'starts with', 'ends with'] as const) {
      if (eat(op)) {
        const v = str();
        return isErr(v) ? v : { kind: 'cmp', label, op, value: v };
      }
    }
    const kind = eat('not in') ? 'not in' : eat('in') ? 'in' : null;
    if (kind) {
      if (!eat('{')) return err("expected '{' after in");
      const values: string[] = [];
      if (!eat('}')) {
        for (;;) {
          const v = str();
          if (isErr(v)) return v;
          values.push(v);
          if (eat('}')) break;
          if (!eat(',')) return err("expected ',' or '}'");
        }
      }
      return { kind, label, values: [...new Set(values)].sort() };
    }
    return err(`expected ==, !=, in, not in, contains, starts with or ends with after '${label}'`);
  };
  const chain = (kind: 'and' | 'or', op: string, next: () => Selector | SelectorError) => {
    const first = next();
    if (isErr(first)) return first;
    const operands = [first];
    while (eat(op)) {
      const n = next();
      if (isErr(n)) return n;
      operands.push(n);
    }
    return operands.length === 1 ? first : ({ kind, operands } as Selector);
  };
  const andExpr = () => chain('and', '&&', primary);
  const orExpr = (): Selector | SelectorError => chain('or', '||', andExpr);

  ws();
  if (i === text.length) return { kind: 'all' };
  const sel = orExpr();
  if (isErr(sel)) return sel;
  ws();
  if (i < text.length)
    return err(`unexpected '${text.slice(i, i + 10)}'; join terms with && or ||`);
  return sel;
}

export function isSelectorError(x: Selector | SelectorError): x is SelectorError {
  return 'message' in x;
}

export function matches(sel: Selector, labels: Readonly<Record<string, string>>): boolean {
  switch (sel.kind) {
    case 'all':
      return true;
    case 'has':
      return sel.label in labels;
    case 'cmp': {
      const v = labels[sel.label];
      if (v === undefined) return sel.op === '!=';
      if (sel.op === '==') return v === sel.value;
      if (sel.op === '!=') return v !== sel.value;
      if (sel.op === 'contains') return v.includes(sel.value);
      if (sel.op === 'starts with') return v.startsWith(sel.value);
      return v.endsWith(sel.value);
    }
    case 'in': {
      const v = labels[sel.label];
      return v !== undefined && sel.values.includes(v);
    }
    case 'not in': {
      const v = labels[sel.label];
      return v === undefined || !sel.values.includes(v);
    }
    case 'not':
      return !matches(sel.operand, labels);
    case 'and':
      return sel.operands.every((o) => matches(o, labels));
    case 'or':
      return sel.operands.some((o) => matches(o, labels));
  }
}

const quote = (s: string) => (s.includes('"') ? `'${s}'` : `"${s}"`);

/** The parser's String(): `(a == "b" && has(c))`, `all()`, `a in {"x", "y"}`. */
export function canonical(sel: Selector): string {
  switch (sel.kind) {
    case 'all':
      return 'all()';
    case 'has':
      return `has(${sel.label})`;
    case 'cmp':
      return `${sel.label} ${sel.op} ${quote(sel.value)}`;
    case 'in':
    case 'not in':
      return `${sel.label} ${sel.kind} {${sel.values.map(quote).join(', ')}}`;
    case 'not':
      return `!${canonical(sel.operand)}`;
    case 'and':
    case 'or':
      return `(${sel.operands.map(canonical).join(sel.kind === 'and' ? ' && ' : ' || ')})`;
  }
}
