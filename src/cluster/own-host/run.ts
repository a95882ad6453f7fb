/**
 * "Your host", end to end: the dumps built into one host (build.ts), the engine's own checks of
 * it placed back in the dumps, and the packet traced with every outcome enumerated, as the lab's
 * runLab does for a scenario's probe. The result carries a LabResult, so the page shows it with
 * the lab's verdict, trace and rules panels.
 */
import type { Diagnostic } from '../../engine/index.ts';
import {
  buildNetwork,
  enumerateOutcomes,
  hostProblemText,
  ipFamily,
  ipvsadmList,
} from '../../engine/index.ts';
import { IPVS_DEPRECATION, IPVS_MODELLED } from '../../kube/ipvs/index.ts';
import type { IpvsNodeView, LabResult, RunView } from '../types.ts';
import { buildOwnHost, type BuiltHost } from './build.ts';
import { probeOf } from './probe.ts';
import type { DumpReport, FieldProblem, OwnHostInput, OwnHostResult } from './types.ts';
import { OWN_HOST, formError } from './types.ts';

/** An engine problem of the host, put in the dump it came from (or on the form). */
function place(
  b: BuiltHost,
  p: Diagnostic,
  extra: Map<string, Diagnostic[]>,
  problems: FieldProblem[],
): void {
  const add = (dump: string | undefined, d: Diagnostic) => {
    if (!dump) return false;
    extra.set(dump, [...(extra.get(dump) ?? []), d]);
    return true;
  };
  const field = p.field ?? '';
  const top = field.split('[')[0] as string;
  // A rules text's problem is placed at its line in the dump the rules came from.
  if ((top === 'rules' || top === 'rules6' || top === 'nftables') && p.line > 0) {
    if (
      add(b.origins[top], {
        severity: p.severity,
        line: p.line,
        column: p.column,
        message: p.message,
      })
    )
      return;
  }
  const vs = /^ipvs\.services\[(\d+)\]/.exec(field);
  const at = vs ? b.origins.ipvs?.lines[Number(vs[1])] : undefined;
  if (
    at &&
    add(b.origins.ipvs?.dump, { severity: 'error', line: at.line, column: 1, message: p.message })
  )
    return;
  const set = /^ipsets\[(\d+)\]/.exec(field);
  const origin = set ? b.origins.ipsets[Number(set[1])] : undefined;
  if (
    origin &&
    add(origin.dump, { severity: 'error', line: origin.line, column: 1, message: p.message })
  )
    return;
  problems.push(formError('host', `${field}: ${hostProblemText(p)}`));
}

function withExtra(reports: readonly DumpReport[], extra: Map<string, Diagnostic[]>): DumpReport[] {
  return reports.map((r) => {
    const more = extra.get(r.id);
    return more ? { ...r, diagnostics: [...r.diagnostics, ...more] } : r;
  });
}

/**
 * The IPVS view of the rules panel (as the lab gives for its IPVS-mode nodes): the pasted table as
 * ipvsadm -Ln prints it, the pasted sets, the kube-ipvs0 addresses, and the "modelled" mark.
 */
function ipvsView(input: OwnHostInput, b: BuiltHost): Pick<LabResult, 'ipvs'> {
  if (!b.spec.ipvs) return {};
  const sets = new Set(b.origins.ipsets.map((o) => o.dump));
  const view: IpvsNodeView = {
    ipvsadm: ipvsadmList(b.spec.ipvs),
    ipsets: input.dumps
      .filter((d) => sets.has(d.id))
      .map((d) => d.text)
      .join(''),
    dummyAddresses: b.spec.interfaces
      .filter((i) => i.name === 'kube-ipvs0')
      .flatMap((i) => i.addresses.map((a) => a.split('/')[0] as string)),
    modelled: IPVS_MODELLED,
    deprecation: IPVS_DEPRECATION,
  };
  return { ipvs: { [OWN_HOST]: view } };
}

export function runOwnHost(input: OwnHostInput): OwnHostResult {
  const b = buildOwnHost(input.dumps, input.extras, input.packet !== null);
  const interfaces = ['lo', ...b.spec.interfaces.map((i) => i.name).filter((n) => n !== 'lo')];
  const problems = [...b.problems];
  const extra = new Map<string, Diagnostic[]>();
  const { network, problems: hostProblems } = buildNetwork(
    { hosts: [b.spec] },
    { parsed: b.parsed },
  );
  for (const p of hostProblems) place(b, p, extra, problems);
  const reports = withExtra(b.reports, extra);
  const base = { dumps: reports, missing: b.missing, interfaces };
  const blocked =
    !network ||
    problems.length > 0 ||
    reports.some((r) => r.diagnostics.some((d) => d.severity === 'error'));
  if (blocked || !input.packet) return { ...base, problems, lab: null };
  const probe = probeOf(input.packet, interfaces, problems);
  if (!probe) return { ...base, problems, lab: null };
  const dst = probe.kind === 'inject' ? probe.packet.dst : probe.dst;
  const v6 = ipFamily(dst) === 6;
  const en = enumerateOutcomes(network, probe);
  const runs: RunView[] = en.runs.map((r) => ({
    probability: r.probability,
    outcome: r.outcome,
    events: r.events,
    choices: r.choices,
  }));
  const ips = b.spec.interfaces.flatMap((i) => i.addresses.map((a) => a.split('/')[0] as string));
  const rules = v6 ? b.spec.rules6 : b.spec.rules;
  const lab: LabResult = {
    ok: true,
    diagnostics: [],
    cluster: {
      hosts: [
        {
          name: OWN_HOST,
          kind: 'node',
          ips,
          node: null,
          workload: null,
          namespace: null,
          zone: null,
          roles: [],
          processes: (b.spec.listeners ?? []).map((l) => ({
            name: l.process,
            proto: l.proto,
            address: l.address,
            port: l.port,
          })),
        },
      ],
      links: [],
      vips: [],
    },
    choices: null,
    probe: {
      from: input.packet.from === 'local' ? `node/${OWN_HOST}` : `wire/${input.packet.iface}`,
      to: dst,
      address: dst,
      port: probe.kind === 'inject' ? probe.packet.dport : probe.dport,
      proto: input.packet.proto,
    },
    runs,
    ...(en.truncated
      ? {
          partial: {
            covered: en.covered,
            notComputed: en.notComputed,
            stoppedBy: en.stoppedBy ?? { limit: 'branches', count: en.runs.length },
          },
        }
      : {}),
    rules: rules ? { [OWN_HOST]: rules } : {},
    nftables: b.spec.nftables ? { [OWN_HOST]: b.spec.nftables } : {},
    ...ipvsView(input, b),
  };
  return { ...base, problems, lab };
}
