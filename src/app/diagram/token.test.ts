// @vitest-environment jsdom
/** The packet label: the header at this step, and what it leaves out when the panel is narrow. */
import { select } from 'd3-selection';
import { describe, expect, it } from 'vitest';
import { NO_FLAGS, type Packet } from '../../engine/packet.ts';
import type { SceneStep } from '../model/scene.ts';
import { createToken } from './token.ts';

const packet: Packet = {
  proto: 'tcp',
  src: '192.168.50.100',
  dst: '192.168.50.10',
  sport: 22,
  dport: 40000,
  flags: { ...NO_FLAGS, syn: true, ack: true },
  mark: 0x4000,
  ttl: 64,
};
const step: SceneStep = {
  index: 9,
  host: 'cp-1',
  at: { x: 200, y: 200 },
  path: [],
  packet,
  changed: ['mark'],
  direction: 'reply',
  hook: null,
  row: null,
  process: null,
  end: null,
};

function label(boundsW: number): SVGGElement {
  const svg = select(document.body).append('svg');
  const g = svg.append('g');
  const token = createToken(g);
  token.label(step, [], null, { x: 0, y: 0, w: boundsW, h: 600 });
  return g.node() as SVGGElement;
}

describe('the packet label', () => {
  it('shows the addresses, the TCP flags and a rewritten mark in a wide panel', () => {
    const text = label(1200).querySelector('.token-line1')?.textContent;
    expect(text).toBe('192.168.50.100:22 → 192.168.50.10:40000  SYN,ACK · mark 0x4000');
    expect(label(1200).querySelector('.token-flags.changed')?.textContent).toBe(' · mark 0x4000');
  });

  it('drops the flags (the header panel has them) when it would fill a narrow panel, keeps the mark', () => {
    const g = label(520);
    expect(g.querySelector('.token-line1')?.textContent).toBe(
      '192.168.50.100:22 → 192.168.50.10:40000 · mark 0x4000',
    );
    const w = Number(g.querySelector('.token-bg')?.getAttribute('width'));
    expect(w).toBeLessThan(520);
  });
});
