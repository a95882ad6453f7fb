import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { useLab } from '../components/context.tsx';
import { usePrefs } from '../components/prefs.tsx';
import { stepsOf, type LabState } from '../store/lab-store.ts';
import { fullLabUrl } from './urls.ts';
import type { LinkParams } from './params.ts';

/** The site's address: the page's directory, without its query and hash. */
export const siteUrl = (): string => new URL('./', globalThis.location.href).href;

const openUrl = (s: LabState, carry: Pick<LinkParams, 'lang' | 'theme'>) =>
  s.scenario
    ? fullLabUrl(
        siteUrl(),
        {
          doc: s.doc,
          original: s.original,
          defaultPath: s.scenario.defaultPath,
          steps: stepsOf(s),
        },
        carry,
      )
    : siteUrl();

/**
 * The embed's one thin bar: what this is (the scenario and variant, cut to one line) and the way
 * to the full lab at the same place, in a new tab.
 */
export function EmbedBar({ params }: { params: LinkParams }) {
  const { t } = useTranslation();
  const { lang } = usePrefs();
  const scenario = useLab((s) => s.scenario);
  const variant = useLab((s) => s.doc.variant);
  const href = useLab((s) => openUrl(s, params));
  const title = scenario?.title[lang] ?? 'Hookpath';
  const v = scenario?.variants.find((x) => x.id === variant) ?? scenario?.variants[0];
  const full = v ? `${title} · ${v.title[lang]}` : title;
  const id = useId();
  return (
    // Named by its title: on a page around the iframe, its landmarks stay distinguishable.
    <header className="embed-bar" aria-labelledby={id} data-testid="embed-bar">
      <span className="logo" aria-hidden="true">
        ⤳
      </span>
      <h1 className="embed-title" id={id} title={full} data-testid="embed-title">
        {title}
        {v && <span className="embed-variant"> · {v.title[lang]}</span>}
      </h1>
      <a
        className="embed-open"
        href={href}
        target="_blank"
        rel="noopener"
        title={t('embed.openTitle')}
        data-testid="open-full"
      >
        {t('app.open')} <span aria-hidden="true">↗</span>
      </a>
    </header>
  );
}
