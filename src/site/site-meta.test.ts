import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { absolutizeSocialMeta, siteBase } from './site-meta.ts';

const html = readFileSync(new URL('../../index.html', import.meta.url), 'utf8');
const meta = (doc: string, key: string) =>
  new RegExp(`(?:property|name)="${key}"\\s+content="([^"]*)"`).exec(doc)?.[1];

describe('social meta of index.html', () => {
  it('stays relative without a site address, so any host and subpath works', () => {
    expect(absolutizeSocialMeta(html, undefined)).toBe(html);
    expect(absolutizeSocialMeta(html, '')).toBe(html);
    expect(meta(html, 'og:image')).toBe('./og-image.png');
  });

  it('is absolute for crawlers when the Pages address is known', () => {
    const out = absolutizeSocialMeta(html, 'https://octo.github.io/hookpath');
    expect(meta(out, 'og:image')).toBe('https://octo.github.io/hookpath/og-image.png');
    expect(meta(out, 'twitter:image')).toBe('https://octo.github.io/hookpath/og-image.png');
    expect(meta(out, 'og:url')).toBe('https://octo.github.io/hookpath/');
    // Everything the page itself loads stays relative.
    expect(out).toContain('href="./favicon.svg"');
  });

  it('works for a custom domain at the root', () => {
    const out = absolutizeSocialMeta(html, 'https://lab.example.org');
    expect(meta(out, 'og:image')).toBe('https://lab.example.org/og-image.png');
  });

  it('rejects an address a crawler could not fetch, saying what to write', () => {
    expect(() => siteBase('octo.github.io/hookpath')).toThrow(/HOOKPATH_SITE_URL.*https:\/\//);
    expect(() => siteBase('ftp://octo.github.io/')).toThrow(/must start with https/);
  });
});
