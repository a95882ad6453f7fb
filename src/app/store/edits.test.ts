/**
 * An edit never disappears without the user's say: a share link's version, another tab's writes,
 * a full storage and a saved edit with errors, through the real store, controller and boot code.
 */
import { describe, expect, it } from 'vitest';
import { createLabStore, type LabStore } from './lab-store.ts';
import { createLabController, type ControllerOptions } from './controller.ts';
import { encodeShare } from './share.ts';
import { editKey, formatEdit, loadEdit, readAside, readEdit, type KeyValue } from './persist.ts';
import { startingPoint, readFlags } from '../boot.ts';
import { MemoryStorage, fakeClient } from '../testing/fake-client.ts';
import { readScenario } from '../scenario/entry.ts';

const SCENARIO = `title: { en: VIP 22, zh: VIP 22 }
description: { en: d, zh: d }
manifests: |
  kind: Service
probes:
  - { from: client/laptop, to: vip:22, expect: { outcome: answered } }
`;
const entry = readScenario('000-vip22', SCENARIO);
const ORIGINAL = entry.manifests;
const MINE = `${ORIGINAL}# my LoadBalancer edit\n`;

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

function open(storage: KeyValue | null, hash = '', opts: Partial<ControllerOptions> = {}) {
  const store: LabStore = createLabStore();
  const events = new EventTarget();
  let cleared = 0;
  const client = fakeClient();
  const c = createLabController(store, client, {
    debounceMs: 1,
    saveMs: 1,
    storage,
    events,
    clearLink: () => void cleared++,
    ...opts,
  });
  const start = startingPoint([entry], readFlags('', hash), storage);
  if (start) store.actions.loadScenario(start.entry, start.restore, start.extra);
  return { store, c, client, events, cleared: () => cleared };
}

const linkOf = (manifests: string) => {
  const s = createLabStore();
  s.actions.loadScenario(entry);
  s.actions.setManifests(manifests);
  return `#lab=${encodeShare(s.getState().doc, s.getState().original)}`;
};

describe('a share link carries how the trace was shown', () => {
  it('"Every rule" on when the sender had it on, and only then', () => {
    const s = createLabStore();
    s.actions.loadScenario(entry);
    const doc = s.getState().doc;
    const every = open(null, `#lab=${encodeShare(doc, ORIGINAL, { everyRule: true })}`);
    expect(every.store.getState().hideMisses).toBe(false);
    every.c.dispose();
    const plain = open(null, `#lab=${encodeShare(doc, ORIGINAL)}`);
    expect(plain.store.getState().hideMisses).toBe(true);
    plain.c.dispose();
  });
});

describe('a share link for a scenario the user has edited', () => {
  it('shows the link, keeps the saved edit untouched and offers both', async () => {
    const kv = new MemoryStorage();
    kv.setItem(editKey('000-vip22', null), MINE);
    const lab = open(kv, linkOf(ORIGINAL));
    await tick(150);
    expect(lab.store.getState().doc.manifests).toBe(ORIGINAL);
    expect(lab.store.getState().conflict).toEqual({ kind: 'link', mine: MINE });
    expect(loadEdit(kv, '000-vip22', null)).toBe(MINE);
    lab.c.dispose();
    expect(loadEdit(kv, '000-vip22', null)).toBe(MINE);
  });

  it('"Open your edit" brings the saved edit back and drops the link from the address', async () => {
    const kv = new MemoryStorage();
    kv.setItem(editKey('000-vip22', null), MINE);
    const lab = open(kv, linkOf(`${ORIGINAL}# the link's LoadBalancer\n`));
    lab.c.edits.openMine();
    await tick(150);
    expect(lab.store.getState().doc.manifests).toBe(MINE);
    expect(lab.store.getState().conflict).toBeNull();
    expect(loadEdit(kv, '000-vip22', null)).toBe(MINE);
    expect(readAside(kv, '000-vip22', null)).toEqual([]);
    expect(lab.cleared()).toBe(1);
  });

  it('"Keep the link\'s version" replaces the saved edit, as chosen', async () => {
    const kv = new MemoryStorage();
    kv.setItem(editKey('000-vip22', null), MINE);
    const theirs = `${ORIGINAL}# the link's LoadBalancer\n`;
    const lab = open(kv, linkOf(theirs));
    lab.c.edits.keepLink();
    expect(loadEdit(kv, '000-vip22', null)).toBe(theirs);
    expect(readAside(kv, '000-vip22', null)).toEqual([]);
    expect(lab.store.getState().conflict).toBeNull();
  });

  it("typing in the link's version keeps the saved edit aside instead of overwriting it", async () => {
    const kv = new MemoryStorage();
    kv.setItem(editKey('000-vip22', null), MINE);
    const lab = open(kv, linkOf(ORIGINAL));
    lab.store.actions.setManifests(`${ORIGINAL}# typed over the link\n`);
    await tick(150);
    expect(loadEdit(kv, '000-vip22', null)).toBe(`${ORIGINAL}# typed over the link\n`);
    expect(readAside(kv, '000-vip22', null)).toMatchObject([{ text: MINE, why: 'link' }]);
    expect(lab.store.getState().aside).toHaveLength(1);
    // Opening the version kept aside swaps: nothing is lost either way.
    lab.c.edits.openAside(0);
    await tick(150);
    expect(lab.store.getState().doc.manifests).toBe(MINE);
    expect(readAside(kv, '000-vip22', null).map((e) => e.text)).toEqual([
      `${ORIGINAL}# typed over the link\n`,
    ]);
    expect(loadEdit(kv, '000-vip22', null)).toBe(MINE);
  });

  it('a link whose version equals the saved edit raises nothing', () => {
    const kv = new MemoryStorage();
    kv.setItem(editKey('000-vip22', null), MINE);
    const lab = open(kv, linkOf(MINE));
    expect(lab.store.getState().conflict).toBeNull();
  });
});

describe('storage that does not save', () => {
  it('says so when the storage is full, and clears once a save works again', async () => {
    const kv = new MemoryStorage();
    const lab = open(kv);
    kv.full = true;
    lab.store.actions.setManifests(MINE);
    lab.c.flush();
    expect(lab.store.getState().storageFailure).toBe('quota');
    kv.full = false;
    lab.store.actions.setManifests(`${MINE}# more\n`);
    lab.c.flush();
    expect(lab.store.getState().storageFailure).toBeNull();
    expect(loadEdit(kv, '000-vip22', null)).toBe(`${MINE}# more\n`);
  });

  it('says so when there is no storage at all (private mode, blocked iframe)', async () => {
    const lab = open(null);
    lab.store.actions.setManifests(MINE);
    lab.c.flush();
    expect(lab.store.getState().storageFailure).toBe('unavailable');
  });
});

describe('a big edit', () => {
  const BIG = `${MINE}${'# a long comment line to make the text big\n'.repeat(60)}`;

  it('is written when the page is hidden or left, not after each pause in typing', async () => {
    let hidden = false;
    const kv = new MemoryStorage();
    const lab = open(kv, '', { bigText: 1000, hidden: () => hidden });
    lab.store.actions.setManifests(BIG);
    await tick(20);
    expect(loadEdit(kv, '000-vip22', null)).toBeNull();
    // Another tab shown, the window minimised: the page is hidden, the edit is written.
    lab.events.dispatchEvent(new Event('visibilitychange'));
    expect(loadEdit(kv, '000-vip22', null)).toBeNull();
    hidden = true;
    lab.events.dispatchEvent(new Event('visibilitychange'));
    expect(loadEdit(kv, '000-vip22', null)).toBe(BIG);
    // Typing on, then leaving (reload, close): written on the way out.
    hidden = false;
    lab.store.actions.setManifests(`${BIG}# more\n`);
    await tick(20);
    expect(loadEdit(kv, '000-vip22', null)).toBe(BIG);
    lab.events.dispatchEvent(new Event('pagehide'));
    expect(loadEdit(kv, '000-vip22', null)).toBe(`${BIG}# more\n`);
  });

  it('is written before the lab switches to another scenario or goes away', async () => {
    const kv = new MemoryStorage();
    const lab = open(kv, '', { bigText: 1000, hidden: () => false });
    lab.store.actions.setManifests(BIG);
    await tick(20);
    lab.store.actions.loadScenario(readScenario('001-other', SCENARIO));
    expect(loadEdit(kv, '000-vip22', null)).toBe(BIG);
    lab.store.actions.loadScenario(entry);
    lab.store.actions.setManifests(`${BIG}# again\n`);
    lab.c.dispose();
    expect(loadEdit(kv, '000-vip22', null)).toBe(`${BIG}# again\n`);
  });
});

describe('two tabs on one scenario', () => {
  const storageEvent = (key: string, newValue: string | null) => {
    const e = new Event('storage') as Event & { key: string; newValue: string | null };
    Object.assign(e, { key, newValue });
    return e;
  };

  it("another tab's write is announced, never loaded over this tab's text", async () => {
    const kv = new MemoryStorage();
    const lab = open(kv);
    lab.store.actions.setManifests(MINE);
    await tick(150);
    const theirs = `${ORIGINAL}# other tab\n`;
    kv.setItem(editKey('000-vip22', null), formatEdit({ text: theirs, valid: false, good: null }));
    lab.events.dispatchEvent(
      storageEvent(editKey('000-vip22', null), kv.getItem(editKey('000-vip22', null))),
    );
    expect(lab.store.getState().doc.manifests).toBe(MINE);
    expect(lab.store.getState().conflict).toEqual({ kind: 'tab', theirs });
    // This tab keeps typing: the other tab's text is kept aside, not overwritten.
    lab.store.actions.setManifests(`${MINE}# still mine\n`);
    await tick(150);
    expect(loadEdit(kv, '000-vip22', null)).toBe(`${MINE}# still mine\n`);
    expect(readAside(kv, '000-vip22', null)).toMatchObject([{ text: theirs, why: 'tab' }]);
    expect(lab.store.getState().conflict).toBeNull();
  });

  it("loading the other tab's version keeps this tab's text aside", async () => {
    const kv = new MemoryStorage();
    const lab = open(kv);
    lab.store.actions.setManifests(MINE);
    await tick(150);
    const theirs = `${ORIGINAL}# other tab\n`;
    kv.setItem(editKey('000-vip22', null), theirs);
    lab.events.dispatchEvent(storageEvent(editKey('000-vip22', null), theirs));
    lab.c.edits.loadTheirs();
    await tick(150);
    expect(lab.store.getState().doc.manifests).toBe(theirs);
    expect(readAside(kv, '000-vip22', null)).toMatchObject([{ text: MINE, why: 'swap' }]);
    expect(loadEdit(kv, '000-vip22', null)).toBe(theirs);
  });
});

describe('a saved edit with errors (issue 7, point 5)', () => {
  it('shows the last version that worked, lists the errors and keeps the chosen path', async () => {
    const kv = new MemoryStorage();
    const good = `${ORIGINAL}# LoadBalancer that worked\n`;
    const bad = `${good}broken: [\n`;
    kv.setItem(editKey('000-vip22', null), formatEdit({ text: bad, valid: false, good }));
    kv.setItem(
      'hookpath:v1:last',
      JSON.stringify({
        scenarioId: '000-vip22',
        variant: null,
        path: { from: 'client/laptop', to: 'node/cp-1:22' },
      }),
    );
    const lab = open(kv);
    await tick(250);
    const st = lab.store.getState();
    expect(lab.client.inputs.map((i) => i.manifests)).toEqual([good, bad]);
    expect(st.doc.manifests).toBe(bad);
    expect(st.result?.runs[0]?.outcome).toMatchObject({ kind: 'answered', host: 'nettest' });
    expect(st.stale).toBe(true);
    expect(st.diagnostics[0]?.severity).toBe('error');
    expect(st.doc.path).toEqual({ from: 'client/laptop', to: 'node/cp-1:22' });
  });

  it('remembers the last good version beside the broken text', async () => {
    const kv = new MemoryStorage();
    const lab = open(kv);
    const good = `${ORIGINAL}# LoadBalancer\n`;
    lab.store.actions.setManifests(good);
    await tick(250);
    expect(readEdit(kv, '000-vip22', null)).toEqual({ text: good, valid: true, good: null });
    lab.store.actions.setManifests(`${good}broken`);
    await tick(250);
    expect(readEdit(kv, '000-vip22', null)).toEqual({
      text: `${good}broken`,
      valid: false,
      good,
    });
  });

  it('with no version that ever worked, shows the scenario as written', async () => {
    const kv = new MemoryStorage();
    kv.setItem(editKey('000-vip22', null), `${ORIGINAL}broken`);
    const lab = open(kv);
    await tick(250);
    expect(lab.client.inputs[0]?.manifests).toBeUndefined();
    expect(lab.store.getState().result?.runs[0]?.outcome).toMatchObject({ kind: 'answered' });
    expect(lab.store.getState().stale).toBe(true);
  });
});

describe('a path that cannot be used', () => {
  it("is replaced by the scenario's first probe, with a note, and not remembered", async () => {
    const kv = new MemoryStorage();
    kv.setItem(
      'hookpath:v1:last',
      JSON.stringify({
        scenarioId: '000-vip22',
        variant: null,
        path: { from: 'client/gone', to: 'vip:22' },
      }),
    );
    const lab = open(kv);
    await tick(250);
    const st = lab.store.getState();
    expect(st.note).toMatchObject({ kind: 'path', message: 'no sender named client/gone' });
    expect(st.doc.path).toEqual(entry.defaultPath);
    expect(st.result?.ok).toBe(true);
    expect(JSON.parse(kv.getItem('hookpath:v1:last') ?? '{}').path).toEqual(entry.defaultPath);
  });

  it('without probes of its own (only its variants have some), runLab picks the first one', async () => {
    const bare = readScenario('000-vip22', SCENARIO.replace(/probes:[\s\S]*$/, ''));
    expect(bare.defaultPath).toBeNull();
    const store = createLabStore();
    const client = fakeClient();
    createLabController(store, client, { debounceMs: 1 });
    store.actions.loadScenario(bare, { path: { from: 'client/gone', to: 'vip:22' } });
    await tick(50);
    const st = store.getState();
    expect(st.note).toMatchObject({ kind: 'path' });
    expect(st.doc.path).toBeNull();
    expect(client.inputs.at(-1)?.path).toBeUndefined();
    expect(st.result?.ok).toBe(true);
  });
});
