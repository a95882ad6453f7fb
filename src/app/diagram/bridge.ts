/**
 * A node's Linux bridge (cni0): a band between the host's stack and the pods' veths, which sit
 * on its lower edge as its ports. It says whether br_netfilter hands bridged IPv4 frames to the
 * hooks (net.bridge.bridge-nf-call-iptables, br_netfilter_hooks.c br_nf_pre_routing) and, above
 * each port, whether hairpin mode lets a frame leave by the port it came in on (br_forward.c
 * should_deliver, BR_HAIRPIN_MODE). The packet's bridge steps stand on it (model/motion.ts).
 */
import type { Selection } from 'd3-selection';
import type { BridgeBox } from '../model/layout.ts';
import type { DiagramText } from './draw-static.ts';

type G = Selection<SVGGElement, unknown, null, undefined>;

export function drawBridge(hg: G, b: BridgeBox, text: DiagramText): void {
  const t = text.bridge;
  const g = hg
    .append('g')
    .attr('class', `bridge${b.nfCallIptables ? ' bridge-nf' : ''}`)
    .attr('data-bridge', b.name)
    .attr('data-testid', `bridge-${b.name}`);
  const ports = b.ports
    .map((p) => `${p.iface} (${p.hairpin ? t.hairpinOn : t.hairpinOff})`)
    .join(', ');
  g.append('title').text(
    `${t.title.replace('{name}', b.name).replace('{address}', b.address ?? '—')}: ${ports}. ${
      b.nfCallIptables ? t.nfOn : t.nfOff
    }`,
  );
  g.append('rect')
    .attr('class', 'bridge-box')
    .attr('x', b.x)
    .attr('y', b.y)
    .attr('width', b.w)
    .attr('height', b.h)
    .attr('rx', 6);
  g.append('text')
    .attr('class', 'bridge-name')
    .attr('x', b.x + 10)
    .attr('y', b.y + 13)
    .text([b.name, t.kind, b.address].filter(Boolean).join(' · '));
  g.append('text')
    .attr('class', 'bridge-nf-state')
    .attr('x', b.x + b.w - 10)
    .attr('y', b.y + 13)
    .attr('text-anchor', 'end')
    .text(b.nfCallIptables ? t.nfOn : t.nfOff);
  for (const p of b.ports)
    g.append('text')
      .attr('class', `bridge-hairpin${p.hairpin ? ' on' : ' off'}`)
      .attr('data-port', p.iface)
      .attr('x', p.x)
      .attr('y', b.y + b.h - 5)
      .attr('text-anchor', 'middle')
      .text(p.hairpin ? t.hairpinOn : t.hairpinOff);
}
