import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readScenario } from '../scenario/entry.ts';
import { createLabStore } from '../store/lab-store.ts';
import type { MatrixClient, MatrixListener } from '../worker/matrix-client.ts';
import type { MatrixInput, MatrixSlot } from '../worker/matrix-protocol.ts';
import { createMatrixController } from './controller.ts';

const entry = readScenario(
  's',
  'title: S\nmanifests: "kind: Service"\nvariants:\n  - { id: one, title: One }\n  - { id: two, title: Two }\nprobes:\n  - { from: client/laptop, to: vip:22 }\n',
);

function fakeMatrixClient() {
  const calls: {
    slot: MatrixSlot;
    input: MatrixInput;
    listener: MatrixListener;
    stopped: boolean;
  }[] = [];
  const client: MatrixClient = {
    compute(slot, input, listener) {
      const c = { slot, input, listener, stopped: false };
      calls.push(c);
      return () => void (c.stopped = true);
    },
    dispose: () => undefined,
  };
  return { client, calls };
}

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

describe('matrix controller', () => {
  it("runs in the lab's kube-proxy mode; a mode compared with in slot b", () => {
    const id = 'nodeport-close-on-core-nodes';
    const text = readFileSync(join(import.meta.dirname, `../../../scenarios/${id}.yaml`), 'utf8');
    const lab = createLabStore();
    lab.actions.loadScenario(readScenario(id, text), { variant: 'open' });
    const { client, calls } = fakeMatrixClient();
    const m = createMatrixController(lab, () => client, 10);
    lab.actions.setView('matrix');
    lab.actions.setMode('nftables');
    lab.actions.setCompare('mode:iptables');
    expect(calls.map((c) => `${c.slot} ${c.input.mode ?? 'default'}`)).toEqual([
      'a default',
      'a nftables',
      'b iptables',
    ]);
    expect(calls[1]?.stopped).toBe(false);
    expect(calls[0]?.stopped).toBe(true);
    m.dispose();
  });

  it('computes only while the Matrix view is open; the compared variant in slot b', () => {
    const lab = createLabStore();
    lab.actions.loadScenario(entry, { variant: 'one' });
    const { client, calls } = fakeMatrixClient();
    const m = createMatrixController(lab, () => client, 10);
    expect(calls).toEqual([]);
    lab.actions.setView('matrix');
    expect(calls.map((c) => `${c.slot} ${c.input.variant}`)).toEqual(['a one']);
    lab.actions.setCompare('two');
    expect(calls.map((c) => `${c.slot} ${c.input.variant}`)).toEqual(['a one', 'b two']);
    expect(m.state.getState().b?.status).toBe('running');
    m.dispose();
  });

  it('fills the cells as they arrive; an edit starts again after a pause and stops the older', async () => {
    const lab = createLabStore();
    lab.actions.loadScenario(entry, { variant: 'one' });
    const { client, calls } = fakeMatrixClient();
    const m = createMatrixController(lab, () => client, 10);
    lab.actions.setView('matrix');
    const first = calls[0];
    if (!first) throw new Error('no call');
    const layout = {
      senders: [],
      columns: [],
      pairs: [0, 1].map((i) => ({ row: i, col: 0, from: `s${i}`, to: 'd', proto: 'tcp' as const })),
      limited: null,
      unplaced: [],
    };
    first.listener({ type: 'layout', id: 1, layout });
    first.listener({ type: 'cells', id: 1, from: 1, cells: [{ from: 's1' } as never] });
    expect(m.state.getState().a).toMatchObject({ status: 'running', done: 1 });
    expect(m.state.getState().a?.cells.map((c) => c?.from ?? null)).toEqual([null, 's1']);
    lab.actions.setManifests('kind: Pod');
    lab.actions.setManifests('kind: Pods');
    expect(calls).toHaveLength(1);
    await tick(30);
    expect(calls).toHaveLength(2);
    expect(first.stopped).toBe(true);
    expect(calls[1]?.input.manifests).toBe('kind: Pods');
    // The last table stays until the new one has its layout.
    expect(m.state.getState().a?.cells).toHaveLength(2);
    m.dispose();
  });
});
