/**
 * The lab's kube-proxy mode switch (issue #10): the mode is part of the lab's place, like the
 * variant. It goes to the worker, into share links, embeds and the last place, and a mode the
 * scenario does not run in is replaced by its default.
 */
import { describe, expect, it } from 'vitest';
import { createLabStore } from './lab-store.ts';
import { createLabController } from './controller.ts';
import { decodeShare, encodeShare } from './share.ts';
import { loadLast } from './persist.ts';
import { MemoryStorage, fakeClient } from '../testing/fake-client.ts';
import { readScenario } from '../scenario/entry.ts';
import { firstInput, readFlags, startingPoint } from '../boot.ts';
import { embedUrl, fullLabUrl } from '../embed/urls.ts';
import { readParams } from '../embed/params.ts';

const TWO = readScenario(
  'two',
  'title: Two\nkubeProxyModes: [iptables, nftables]\nmanifests: "kind: Service"\nprobes:\n  - { from: client/laptop, to: vip:22 }\n',
);
const ONE = readScenario('one', 'title: One\nmanifests: "kind: Pod"\n');
const files = [TWO, ONE].map((e) => ({ id: e.id, text: e.text }));
const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms));

describe('the modes of a scenario', () => {
  it('are its kubeProxyModes in order, none when it has no switch', () => {
    expect(TWO.modes).toEqual(['iptables', 'nftables']);
    expect(ONE.modes).toEqual([]);
    expect(ONE.clusterMode).toBe('iptables');
    expect(readScenario('n', 'cluster: { kubeProxy: { mode: nftables } }').clusterMode).toBe(
      'nftables',
    );
    expect(readScenario('x', 'kubeProxyModes: [nft, nftables, nftables]').modes).toEqual([
      'nftables',
    ]);
  });
});

describe('switching the mode', () => {
  it('runs the same path again in that mode, from the first step', async () => {
    const store = createLabStore();
    const client = fakeClient();
    const storage = new MemoryStorage();
    const c = createLabController(store, client, { debounceMs: 1, storage });
    const path = { from: 'node/cp-1', to: 'vip:22' };
    store.actions.loadScenario(TWO, { path });
    await tick();
    store.actions.setStep(3);
    const before = client.inputs.length;
    store.actions.setMode('nftables');
    await tick();
    const last = client.inputs.at(-1);
    expect(client.inputs.length).toBe(before + 1);
    expect(last?.mode).toBe('nftables');
    expect(last?.path).toEqual(path);
    expect(store.getState().doc).toMatchObject({ mode: 'nftables', step: 0, path });
    // The next visit opens in the same mode.
    expect(loadLast(storage)).toMatchObject({ scenarioId: 'two', mode: 'nftables' });
    const again = startingPoint([TWO, ONE], readFlags('', ''), storage);
    expect(again?.restore.mode).toBe('nftables');
    expect(firstInput(files, readFlags('', ''), storage)?.mode).toBe('nftables');
    c.dispose();
  });

  it('to the default, or to a mode the scenario does not run in, asks nothing new', async () => {
    const store = createLabStore();
    const client = fakeClient();
    const c = createLabController(store, client, { debounceMs: 1 });
    store.actions.loadScenario(TWO);
    await tick();
    const before = client.inputs.length;
    store.actions.setMode('iptables');
    store.actions.setMode('ipvs');
    await tick();
    expect(client.inputs.length).toBe(before);
    expect(store.getState().doc.mode).toBeNull();
    expect(client.inputs.at(-1)?.mode).toBeUndefined();
    c.dispose();
  });

  it('is not carried to a scenario that does not run in it', () => {
    const store = createLabStore();
    store.actions.loadScenario(TWO, { mode: 'nftables' });
    expect(store.getState().doc.mode).toBe('nftables');
    store.actions.loadScenario(ONE, { mode: 'nftables' });
    expect(store.getState().doc.mode).toBeNull();
  });
});

describe('the mode in links', () => {
  const doc = {
    scenarioId: 'two',
    variant: null,
    mode: 'nftables' as const,
    manifests: 'kind: Service',
    path: null,
    run: 0,
    step: 2,
  };

  it('a share link carries it; a link of an unknown mode opens in the default', () => {
    expect(decodeShare(encodeShare(doc, 'kind: Service'))?.mode).toBe('nftables');
    expect(decodeShare(encodeShare({ ...doc, mode: null }, 'kind: Service'))?.mode).toBeNull();
  });

  it('the embed and Open in Hookpath addresses say it in readable parameters', () => {
    const place = { doc, original: 'kind: Service', defaultPath: null, steps: [] };
    const url = embedUrl('https://x/', place, {
      step: 'end',
      theme: 'auto',
      lang: 'en',
      autoplay: false,
      verdictAfter: false,
      editor: 'hidden',
      pickers: 'none',
    });
    expect(readParams(new URL(url).search).params.mode).toBe('nftables');
    expect(fullLabUrl('https://x/', place, { lang: null, theme: null })).toContain(
      '?scenario=two&mode=nftables',
    );
    const plain = fullLabUrl(
      'https://x/',
      { ...place, doc: { ...doc, mode: null } },
      {
        lang: null,
        theme: null,
      },
    );
    expect(plain).not.toContain('mode=');
  });

  it('?mode= opens the lab in that mode; one the scenario does not run in is noted', () => {
    const ok = startingPoint([TWO, ONE], readFlags('?scenario=two&mode=nftables', ''), null);
    expect(ok?.restore.mode).toBe('nftables');
    expect(ok?.notes).toEqual([]);
    expect(firstInput(files, readFlags('?scenario=two&mode=nftables', ''), null)?.mode).toBe(
      'nftables',
    );
    const no = startingPoint([TWO, ONE], readFlags('?scenario=one&mode=nftables', ''), null);
    expect(no?.restore.mode).toBeNull();
    expect(no?.notes).toEqual([
      { kind: 'invalid', param: 'mode', value: 'nftables', hint: 'iptables' },
    ]);
    const flags = readFlags('?scenario=two&mode=nft', '');
    expect(startingPoint([TWO, ONE], flags, null)?.restore.mode ?? null).toBeNull();
    expect(flags.notes).toEqual([
      { kind: 'invalid', param: 'mode', value: 'nft', hint: 'iptables | nftables | ipvs' },
    ]);
  });
});
