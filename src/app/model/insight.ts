/**
 * The "why it matters" line of a step: joins what several trace events say into the sentence a
 * teacher would say at that moment (DNAT before routing means sshd in INPUT never sees it).
 */
import type { ClusterView } from '../../cluster/types.ts';
import type { Explain } from '../../engine/trace.ts';
import type { Step } from './timeline.ts';
import { headerText } from './packet.ts';
import { percent } from './verdict.ts';

export function insightOf(
  steps: readonly Step[],
  i: number,
  cluster: ClusterView | null,
): Explain | null {
  const s = steps[i];
  if (!s) return null;
  const e = s.event;
  const host = cluster?.hosts.find((h) => h.name === s.host);
  // The DNAT of this packet on this host, before this step.
  const dnatHere = () =>
    steps
      .slice(0, i)
      .find(
        (p) =>
          p.host === s.host &&
          p.event.packetId === e.packetId &&
          p.event.type === 'rule' &&
          p.event.target === 'DNAT',
      );
  if (e.type === 'route' && e.decision === 'forward') {
    const d = dnatHere();
    if (d && d.event.type === 'rule') {
      const orig = d.event.before;
      const listener = host?.processes.find(
        (p) =>
          p.port === orig.dport &&
          p.proto === orig.proto &&
          (p.address === '0.0.0.0' || p.address === orig.dst),
      );
      const dst = headerText(e.packet).dst;
      return listener
        ? { key: 'insight.dnat-forward-socket', params: { dst, process: listener.name } }
        : { key: 'insight.dnat-forward', params: { dst } };
    }
  }
  if (e.type === 'route' && e.decision === 'local' && host?.kind === 'node' && !dnatHere()) {
    const listener = host.processes.find(
      (p) => p.port === e.packet.dport && (p.address === '0.0.0.0' || p.address === e.packet.dst),
    );
    if (listener)
      return {
        key: 'insight.local-no-dnat',
        params: { dst: headerText(e.packet).dst, host: s.host, process: listener.name },
      };
  }
  if (
    e.type === 'rule' &&
    (e.target === 'MASQUERADE' || e.target === 'SNAT') &&
    s.direction === 'request'
  )
    return { key: 'insight.masquerade', params: { src: e.packet.src, host: s.host } };
  if (e.type === 'rule' && e.probability !== null && e.probability < 1)
    return { key: 'insight.statistic', params: { p: percent(e.probability) } };
  if (e.type === 'conntrack' && e.action === 'nat' && s.direction === 'reply')
    return { key: 'insight.reply-undo' };
  if (s.end === 'drop' && e.type === 'rule') return { key: 'insight.drop-silent' };
  return null;
}
