/**
 * `hookpath trace --host FILE`: one host as YAML (or JSON), checked against host.schema.json and
 * then by the engine, every problem reported as `file:line:column: field: message`.
 */
import { diagnosticAt, hostProblemText, type Diagnostic, type HostSpec } from '../engine/index.ts';
import { parseStream, type SourceDoc } from '../kube/manifests/yaml-source.ts';
import { lazyValidator, schemaProblems } from '../cluster/schema-check.ts';
import { UsageError, fileProblems } from './input-error.ts';
import schema from './host.schema.json' with { type: 'json' };

const validator = lazyValidator(schema);

const EXAMPLE = `interfaces:
  - { name: eth0, addresses: [192.168.50.38/24, 192.168.50.100/32] }
routes:
  - { to: default, via: 192.168.50.1 }
listeners:
  - { process: sshd, proto: tcp, address: 0.0.0.0, port: 22 }`;

/** `interfaces[0].addresses[1]` -> ['interfaces', 0, 'addresses', 1]. */
function fieldPath(field: string): (string | number)[] {
  return field
    .split(/\.|\[(\d+)\]/)
    .filter((p) => p !== undefined && p !== '')
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

export interface LoadedHost {
  readonly spec: HostSpec;
  /** Places an engine problem of this host (`interfaces[0].addresses[1]`) in the file. */
  readonly place: (p: Diagnostic) => Diagnostic;
}

export function loadHostFile(file: string, text: string): LoadedHost {
  const stream = parseStream(text);
  if (stream.problems.length)
    throw fileProblems(
      file,
      stream.problems.map((p) => diagnosticAt(p.span, p.message)),
    );
  const doc: SourceDoc | undefined = stream.docs[0];
  if (!doc)
    throw new UsageError(
      `${file}: the host file is empty; describe the host in YAML, for example:\n${EXAMPLE}`,
    );
  if (stream.docs.length > 1)
    throw fileProblems(file, [
      diagnosticAt(
        stream.docs[1]?.span([]) ?? { line: 0, column: 0 },
        'a host file holds one host (one YAML document)',
      ),
    ]);
  const problems = schemaProblems(validator(), doc);
  if (problems.length)
    throw fileProblems(
      file,
      problems.map((p) => diagnosticAt(p.span, p.message, { field: p.field })),
    );
  const value = doc.value as Omit<HostSpec, 'name'> & { name?: string };
  return {
    spec: { ...value, name: value.name ?? 'host' },
    place: (p) =>
      diagnosticAt(doc.span(fieldPath(p.field ?? '')), hostProblemText(p), {
        field: p.field ?? '',
        source: file,
      }),
  };
}
