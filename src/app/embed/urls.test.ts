import { describe, expect, it } from 'vitest';
import { embedUrl, fullLabUrl, iframeSnippet, type EmbedOptions, type PlaceState } from './urls.ts';
import { buildTimeline } from '../model/timeline.ts';
import { podResult } from '../testing/lab-fixtures.ts';
import { countedSteps } from './apply.ts';
import { readParams } from './params.ts';
import { readShare } from '../store/share.ts';

const SITE = 'https://me.github.io/hookpath/';
const run = podResult().runs[0];
if (!run) throw new Error('no run');
const steps = buildTimeline(run);
const state = (doc: Partial<PlaceState['doc']> = {}): PlaceState => ({
  doc: {
    scenarioId: 'vip22-sshd-or-service',
    variant: 'lb-service',
    mode: null,
    manifests: 'orig',
    path: { from: 'client/laptop', to: 'vip:22' },
    run: 0,
    step: 0,
    ...doc,
  },
  original: 'orig',
  defaultPath: { from: 'client/laptop', to: 'vip:22' },
  steps,
});
const opts: EmbedOptions = {
  step: 'current',
  theme: 'auto',
  lang: 'en',
  autoplay: false,
  verdictAfter: false,
  editor: 'hidden',
  pickers: 'none',
};

describe('Open in Hookpath', () => {
  it('says the place in readable parameters, paths unescaped', () => {
    const fifth = countedSteps(steps)[4] ?? 0;
    const url = fullLabUrl(
      SITE,
      state({ step: fifth, path: { from: 'client/laptop', to: 'svc/web:80' } }),
      { lang: 'zh', theme: null },
    );
    expect(url).toBe(
      `${SITE}?scenario=vip22-sshd-or-service&variant=lb-service&from=client/laptop&to=svc/web:80&step=5&lang=zh`,
    );
    const back = readParams(new URL(url).search);
    expect(back.notes).toEqual([]);
    expect(back.params).toMatchObject({ step: 5, from: 'client/laptop', to: 'svc/web:80' });
  });

  it('adds the share hash when the parameters cannot say it all', () => {
    const miss = steps.find((s) => s.miss)?.index ?? -1;
    for (const doc of [{ manifests: 'edited' }, { run: 1 }, { step: miss }]) {
      const url = new URL(fullLabUrl(SITE, state(doc), { lang: null, theme: null }));
      const shared = readShare(url.hash.replace(/^#lab=/, ''));
      expect(shared.ok && shared.doc).toMatchObject({ scenarioId: 'vip22-sshd-or-service' });
    }
    const edited = new URL(
      fullLabUrl(SITE, state({ manifests: 'x: 1' }), { lang: null, theme: null }),
    );
    const r = readShare(edited.hash.replace(/^#lab=/, ''));
    expect(r.ok && r.doc.manifests).toBe('x: 1');
    expect(fullLabUrl(SITE, state(), { lang: null, theme: null })).not.toContain('#');
  });
});

describe('the embed snippet', () => {
  it('carries only the choices that differ from the defaults', () => {
    expect(embedUrl(SITE, state({ step: 3 }), { ...opts, step: 'start' })).toBe(
      `${SITE}?scenario=vip22-sshd-or-service&variant=lb-service&embed=1&lang=en`,
    );
    const chosen: EmbedOptions = {
      step: 'end',
      theme: 'dark',
      lang: 'zh',
      autoplay: true,
      verdictAfter: true,
      editor: 'readonly',
      pickers: 'path',
    };
    const p = readParams(new URL(embedUrl(SITE, state(), chosen)).search);
    expect(p.notes).toEqual([]);
    // Every choice reads back as the parameter of the same name.
    expect(p.params).toMatchObject({ ...chosen, embed: true });
  });

  it('escapes what HTML needs escaped, and adds embed.js on request', () => {
    const s = iframeSnippet('https://x/?a=1&b="2"', {
      title: 'VIP <22>',
      height: 612.4,
      script: 'https://x/embed.js',
    });
    expect(s).toBe(
      '<iframe data-hookpath src="https://x/?a=1&amp;b=&quot;2&quot;" title="VIP &lt;22&gt;" width="100%" height="612" style="border:0;width:100%;max-width:900px" loading="lazy"></iframe>\n' +
        '<script src="https://x/embed.js" async></script>',
    );
    expect(iframeSnippet('u', { title: 't', height: 500, script: null })).not.toContain('script');
  });
});
