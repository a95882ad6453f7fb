/** Typed access to a manifest's fields that records a positioned, instructor-readable problem for every bad value. */
import { diagnosticAt, type Diagnostic } from '../../engine/index.ts';
import { nameProblem, visible, type NameRule } from './names.ts';
import { isRecord, type SourceDoc } from './yaml-source.ts';

export type Path = readonly (string | number)[];

export function pathText(path: Path): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : s === '' ? p : `.${p}`;
  return s;
}

/** What a missing map reads as; frozen, as the documents' own maps are. */
const EMPTY: Record<string, unknown> = Object.freeze({});

/** Whether every value is a string (and no key is `__proto__`, which a copy would not keep). */
function onlyStrings(m: Record<string, unknown>): boolean {
  for (const k in m) if (typeof m[k] !== 'string' || k === '__proto__') return false;
  return true;
}

export class Reader {
  constructor(
    readonly doc: SourceDoc,
    public label: string,
    readonly out: Diagnostic[],
  ) {}

  get(path: Path): unknown {
    let v: unknown = this.doc.value;
    for (const p of path) {
      if (typeof p === 'number') v = Array.isArray(v) ? v[p] : undefined;
      else v = isRecord(v) ? v[p] : undefined;
      if (v === undefined) return undefined;
    }
    return v;
  }

  report(path: Path, message: string, severity: 'error' | 'warning' = 'error', key = false): void {
    // The field reads `Service default/web: spec.ports[0].targetPort`.
    const field = `${this.label}: ${pathText(path)}`;
    this.out.push(diagnosticAt(this.doc.span(path, key), message, { severity, field }));
  }

  str(
    path: Path,
    opts: {
      required?: boolean;
      enum?: readonly string[];
      pattern?: RegExp;
      what?: string;
      /** Checked as a Kubernetes name: the message names the offending character and the rule. */
      name?: { readonly rule: NameRule; readonly what: string };
    } = {},
  ): string | undefined {
    const v = this.get(path);
    if (v === undefined || v === null) {
      if (opts.required)
        this.report(
          path.slice(0, -1),
          `${pathText(path)} is required${opts.what ? ` (${opts.what})` : ''}`,
        );
      return undefined;
    }
    if (typeof v !== 'string') {
      this.report(
        path,
        `must be a string, not ${typeof v === 'object' ? 'a list or map' : JSON.stringify(v)}`,
      );
      return undefined;
    }
    if (opts.enum && !opts.enum.includes(v)) {
      this.report(path, `'${visible(v)}' is not one of ${opts.enum.join(', ')}`);
      return undefined;
    }
    const bad = opts.name ? nameProblem(v, opts.name.rule, opts.name.what) : null;
    if (bad) {
      this.report(path, bad);
      return undefined;
    }
    if (opts.pattern && !opts.pattern.test(v)) {
      this.report(path, `'${visible(v)}' is not valid${opts.what ? `: ${opts.what}` : ''}`);
      return undefined;
    }
    return v;
  }

  int(
    path: Path,
    opts: { required?: boolean; min?: number; max?: number; what?: string } = {},
  ): number | undefined {
    const v = this.get(path);
    if (v === undefined || v === null) {
      if (opts.required)
        this.report(
          path.slice(0, -1),
          `${pathText(path)} is required${opts.what ? ` (${opts.what})` : ''}`,
        );
      return undefined;
    }
    if (typeof v !== 'number' || !Number.isInteger(v)) {
      this.report(path, `must be a whole number, not ${JSON.stringify(v)}`);
      return undefined;
    }
    if ((opts.min !== undefined && v < opts.min) || (opts.max !== undefined && v > opts.max)) {
      this.report(
        path,
        `${v} is out of range ${opts.min ?? '-∞'}..${opts.max ?? '∞'}${opts.what ? ` (${opts.what})` : ''}`,
      );
      return undefined;
    }
    return v;
  }

  bool(path: Path): boolean | undefined {
    const v = this.get(path);
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') {
      this.report(path, `must be true or false, not ${JSON.stringify(v)}`);
      return undefined;
    }
    return v;
  }

  list(path: Path): unknown[] {
    const v = this.get(path);
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) {
      this.report(path, 'must be a list (items start with "- ")');
      return [];
    }
    return v;
  }

  map(path: Path): Record<string, unknown> {
    const v = this.get(path);
    if (v === undefined || v === null) return EMPTY;
    if (!isRecord(v)) {
      this.report(path, 'must be a map of key: value');
      return {};
    }
    return v;
  }

  /** A map of string to string (labels, selectors, annotations). */
  labels(path: Path): Record<string, string> {
    const m = this.map(path);
    // Documents' values are frozen: a map of strings alone is given as it is, not copied.
    if (Object.isFrozen(m) && onlyStrings(m)) return m as Record<string, string>;
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(m)) {
      if (typeof v === 'string') out[k] = v;
      else if (typeof v === 'number' || typeof v === 'boolean') {
        this.report([...path, k], `label values are strings: write "${String(v)}" in quotes`);
      } else this.report([...path, k], 'must be a string');
    }
    return out;
  }
}
