import { useTranslation } from 'react-i18next';
import { useActions, useLab } from './context.tsx';
import { stepsOf } from '../store/lab-store.ts';
import { firstReplyStep } from '../model/timeline.ts';
import { HelpPopover } from './HelpPopover.tsx';
import { Icon } from './Icon.tsx';

const SPEEDS = [0.5, 1, 2, 4];

export function Controls() {
  const { t } = useTranslation();
  const steps = useLab(stepsOf);
  const step = useLab((s) => s.doc.step);
  const playing = useLab((s) => s.playing);
  const speed = useLab((s) => s.speed);
  const a = useActions();
  const n = steps.length;
  const reply = firstReplyStep(steps);
  const cur = steps[step];
  const disabled = n === 0;
  return (
    <div className="controls" data-testid="controls" role="toolbar" aria-label={t('controls.play')}>
      <button
        type="button"
        className="icon"
        disabled={disabled || step === 0}
        onClick={a.toStart}
        title={`${t('controls.start')} (Home)`}
        aria-label={t('controls.start')}
        data-testid="ctl-start"
      >
        <Icon name="start" />
      </button>
      <button
        type="button"
        className="icon"
        disabled={disabled || step === 0}
        onClick={() => a.stepBy(-1)}
        title={`${t('controls.back')} (←)`}
        aria-label={t('controls.back')}
        data-testid="ctl-back"
      >
        <Icon name="back" />
      </button>
      <button
        type="button"
        className="icon primary"
        disabled={disabled}
        onClick={() => a.setPlaying(!playing)}
        title={`${t(playing ? 'controls.pause' : 'controls.play')} (Space)`}
        aria-label={t(playing ? 'controls.pause' : 'controls.play')}
        data-testid="ctl-play"
      >
        <Icon name={playing ? 'pause' : 'play'} />
      </button>
      <button
        type="button"
        className="icon"
        disabled={disabled || step >= n - 1}
        onClick={() => a.stepBy(1)}
        title={`${t('controls.forward')} (→)`}
        aria-label={t('controls.forward')}
        data-testid="ctl-forward"
      >
        <Icon name="forward" />
      </button>
      <button
        type="button"
        className="icon"
        disabled={disabled || step >= n - 1}
        onClick={a.toEnd}
        title={`${t('controls.end')} (End)`}
        aria-label={t('controls.end')}
        data-testid="ctl-end"
      >
        <Icon name="end" />
      </button>
      <input
        className="scrubber"
        type="range"
        min={0}
        max={Math.max(0, n - 1)}
        value={step}
        disabled={disabled}
        aria-label={t('controls.step', { n: step + 1, total: n })}
        onChange={(e) => a.setStep(Number(e.target.value))}
        style={{
          ['--reply' as string]: reply > 0 && n > 1 ? `${(reply / (n - 1)) * 100}%` : '100%',
        }}
      />
      <span className="step-count" data-testid="step-count">
        {t('controls.step', { n: n ? step + 1 : 0, total: n })}
        {cur && (
          <span className={`dir-pill ${cur.direction}`}>
            {t(cur.direction === 'reply' ? 'controls.replyDir' : 'controls.request')}
          </span>
        )}
      </span>
      {reply > 0 && (
        <button
          type="button"
          className="text"
          onClick={() => a.setStep(reply)}
          title={`${t('controls.reply')} (R)`}
          data-testid="ctl-reply"
        >
          <Icon name="reply" /> {t('controls.reply')}
        </button>
      )}
      <label className="speed">
        <span>{t('controls.speed')}</span>
        <select
          value={speed}
          onChange={(e) => a.setSpeed(Number(e.target.value))}
          data-testid="ctl-speed"
        >
          {SPEEDS.map((s) => (
            <option key={s} value={s}>
              {s}×
            </option>
          ))}
        </select>
      </label>
      <HelpPopover />
    </div>
  );
}
