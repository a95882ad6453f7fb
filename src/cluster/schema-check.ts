/**
 * JSON Schema validation of a YAML document with positions: each problem carries the field path,
 * where it is in the text, and a sentence that shows the offending value (invisible characters
 * made visible) and what is expected.
 */
import Ajv, { type AnySchema, type ErrorObject, type ValidateFunction } from 'ajv';
import { describeChar, nameProblem, visible } from '../kube/manifests/names.ts';
import type { SourceDoc, Span } from '../kube/manifests/yaml-source.ts';
import { precompiled } from './precompiled-schemas.ts';

export interface SchemaProblem {
  readonly path: readonly (string | number)[];
  /** `cluster.nodes.0.name`, or `(top)`. */
  readonly field: string;
  readonly span: Span;
  readonly message: string;
}

/**
 * Compiles on first use: the compilation is most of a cold start, and many runs never need it.
 * The prebuilt CLI has the validator compiled at build time (precompiled-schemas.ts), with the
 * same options (src/cli/precompile-schemas.mjs).
 */
export function lazyValidator(schema: AnySchema): () => ValidateFunction {
  let v: ValidateFunction | null = null;
  // verbose: errors carry the offending value, so messages can show it.
  return () =>
    (v ??=
      precompiled.get(schema) ??
      new Ajv({ allErrors: true, strict: false, verbose: true }).compile(schema));
}

/** The singular of a list field, for messages: `nodes` -> `node`. */
function singular(field: string | number | undefined): string {
  const s = String(field ?? '');
  return s.endsWith('s') ? s.slice(0, -1) : s;
}

/** The first character outside printable ASCII, described, for values that look right but are not. */
function oddCharacter(value: string): string {
  const chars = [...value];
  const i = chars.findIndex((c) => !/^[\x20-\x7e]$/.test(c));
  return i < 0 ? '' : `; it has ${describeChar(chars[i] as string)} at character ${i + 1}`;
}

function messageOf(e: ErrorObject, path: readonly (string | number)[]): string {
  switch (e.keyword) {
    case 'required':
      return `'${(e.params as { missingProperty: string }).missingProperty}' is required here`;
    case 'additionalProperties':
      return `'${visible((e.params as { additionalProperty: string }).additionalProperty)}' is not a field of this part; check the spelling`;
    case 'enum':
      return `${e.data === undefined ? 'the value' : `'${visible(String(e.data))}'`} must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'pattern': {
      const value = String(e.data);
      // Host names are RFC 1123 subdomains, like the Kubernetes node names they stand for.
      if (path[path.length - 1] === 'name') {
        const bad = nameProblem(
          value,
          'dns1123-subdomain',
          `a ${singular(path[path.length - 3])} name`,
        );
        if (bad) return bad;
      }
      const schema = e.parentSchema as { description?: string } | undefined;
      return `'${visible(value)}' does not have the expected form (${schema?.description ?? (e.params as { pattern: string }).pattern})${oddCharacter(value)}`;
    }
    case 'type':
      return `must be ${(e.params as { type: string }).type}, not ${e.data === null ? 'empty' : Array.isArray(e.data) ? 'a list' : typeof e.data === 'object' ? 'a map' : JSON.stringify(e.data)}`;
    default:
      return e.message ?? e.keyword;
  }
}

/** Validates `doc.value`; every problem is placed at its field (or at the key of an unknown one). */
export function schemaProblems(validate: ValidateFunction, doc: SourceDoc): SchemaProblem[] {
  return validate(doc.value) ? [] : problemsOf(validate.errors ?? [], doc);
}

/** Ajv errors (possibly sifted by the caller) as placed problems. */
export function problemsOf(errors: readonly ErrorObject[], doc: SourceDoc): SchemaProblem[] {
  return errors.map((e) => {
    const path = e.instancePath
      .split('/')
      .slice(1)
      .map((p) => (/^\d+$/.test(p) ? Number(p) : p.replace(/~1/g, '/').replace(/~0/g, '~')));
    const field =
      e.keyword === 'additionalProperties'
        ? [...path, (e.params as { additionalProperty: string }).additionalProperty]
        : path;
    return {
      path: field,
      field: field.join('.') || '(top)',
      span: doc.span(field, e.keyword === 'additionalProperties'),
      message: messageOf(e, path),
    };
  });
}
