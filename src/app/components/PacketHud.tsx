import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import type { Step } from '../model/timeline.ts';
import { flagsOf, headerText, markText } from '../model/packet.ts';

/** The current header, large and readable, with the fields this step rewrote highlighted. */
export function PacketHud({ step }: { step: Step }) {
  const { t } = useTranslation();
  const p = step.event.packet;
  const ch = new Set(step.changed);
  const { src, dst } = headerText(p);
  const cls = (on: boolean) => (on ? 'changed' : undefined);
  return (
    <div className={`packet-hud ${step.direction}`} data-testid="packet-label">
      <span className="hud-dir">
        {t(step.direction === 'reply' ? 'controls.replyDir' : 'controls.request')}
      </span>
      <span className="hud-proto">{p.proto}</span>
      <span className={cls(ch.has('src') || ch.has('sport'))} data-testid="packet-src">
        {src}
      </span>
      <span className="hud-arrow">→</span>
      <span className={cls(ch.has('dst') || ch.has('dport'))} data-testid="packet-dst">
        {dst}
      </span>
      {flagsOf(p) && <span className="hud-flags">{flagsOf(p)}</span>}
      {(p.mark !== 0 || ch.has('mark')) && (
        <span className={cls(ch.has('mark'))}>mark {markText(p.mark)}</span>
      )}
    </div>
  );
}

/** The header in one line of text (the exported picture's caption). */
export function packetLine(step: Step, t: TFunction): string {
  const p = step.event.packet;
  const { src, dst } = headerText(p);
  const dir = t(step.direction === 'reply' ? 'controls.replyDir' : 'controls.request');
  const flags = flagsOf(p);
  const mark = p.mark !== 0 ? ` mark ${markText(p.mark)}` : '';
  return `${dir.toUpperCase()}  ${p.proto} ${src} → ${dst}${flags ? ` ${flags}` : ''}${mark}`;
}
