/**
 * Social-card URLs at build time. index.html carries them relative (`./og-image.png`) so the
 * build works on any host and subpath; link-preview crawlers (Facebook, LinkedIn, X, Slack) only
 * honour absolute `og:image` URLs, so when the site's public address is known at build time
 * (`HOOKPATH_SITE_URL`, set by the Pages workflow from actions/configure-pages) they are made
 * absolute and `og:url` is added. Without it the build stays host-neutral.
 */
import type { Plugin } from 'vite';

/** Meta tags whose `content` is a URL a crawler fetches. */
const URL_META = /(<meta\s+(?:property|name)="(?:og:image|twitter:image)"\s+content=")([^"]*)(")/g;

/** `https://owner.github.io/repo` (any path, trailing slash or not) → a directory URL. */
export function siteBase(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(
      `HOOKPATH_SITE_URL: "${raw}" is not an absolute URL; write it like https://you.github.io/hookpath, or leave it unset.`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new Error(`HOOKPATH_SITE_URL: "${raw}" must start with https:// (or http://).`);
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

/** index.html with its crawler URLs made absolute against `site`, or unchanged without one. */
export function absolutizeSocialMeta(html: string, site: string | undefined): string {
  if (!site) return html;
  const base = siteBase(site);
  const out = html.replace(URL_META, (_m, head: string, href: string, tail: string) => {
    return `${head}${new URL(href, base).href}${tail}`;
  });
  const ogUrl = `<meta property="og:url" content="${base.href}" />`;
  return out.replace(/(<meta property="og:type"[^>]*>)/, `$1\n    ${ogUrl}`);
}

export function socialMeta(site = process.env.HOOKPATH_SITE_URL): Plugin {
  return {
    name: 'hookpath-social-meta',
    apply: 'build',
    transformIndexHtml: { order: 'post', handler: (html) => absolutizeSocialMeta(html, site) },
  };
}
