/**
 * The form's fields that stand in for what the dumps do not say: the host's addresses (without
 * `ip -j addr`), its default gateway (without `ip -j route`), what listens (no dump says it: `ss
 * -ltn` is not read), and two sysctls. Each field's problem names the field.
 */
import type { ListenerSpec, RouteSpec } from '../../engine/index.ts';
import { canonicalIp, parseIfAddr } from '../../engine/index.ts';
import { formError, said, type FieldProblem } from './types.ts';

export function addressesField(text: string, problems: FieldProblem[]): string[] {
  const out: string[] = [];
  for (const raw of text.split(/[,\s]+/).filter(Boolean)) {
    const a = raw.includes('/') ? raw : `${raw}/${raw.includes(':') ? 64 : 24}`;
    if (parseIfAddr(a)) out.push(a);
    else problems.push(formError('addresses', said('form.address', { value: raw })));
  }
  return out;
}

export function gatewayField(text: string, problems: FieldProblem[]): RouteSpec[] {
  const t = text.trim();
  if (t === '') return [];
  const via = canonicalIp(t);
  if (!via) {
    problems.push(formError('gateway', said('form.gateway', { value: t })));
    return [];
  }
  return [{ to: 'default', via }];
}

/** `sshd tcp 0.0.0.0:22 [reply]`, `dns udp [::]:53`, one a line (as the CLI's --listen). */
export function listenersField(text: string, problems: FieldProblem[]): ListenerSpec[] {
  const out: ListenerSpec[] = [];
  text.split('\n').forEach((raw, i) => {
    const l = raw.trim();
    if (l === '' || l.startsWith('#')) return;
    const m = /^(\S+)\s+(tcp|udp|sctp)\s+(\[[^\]\s]+\]|[^\s\]]+):(\d{1,5})(?:\s+(.*))?$/.exec(l);
    const address = m && canonicalIp((m[3] as string).replace(/^\[|\]$/g, ''));
    const port = m ? Number(m[4]) : 0;
    if (!m || !address || port < 1 || port > 65535) {
      problems.push(formError('listeners', said('form.listener', { line: i + 1, text: l })));
      return;
    }
    out.push({
      process: m[1] as string,
      proto: m[2] as ListenerSpec['proto'],
      address,
      port,
      ...(m[5] ? { reply: m[5] } : {}),
    });
  });
  return out;
}
