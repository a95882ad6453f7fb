import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useActions, useLab } from './context.tsx';
import { stepsOf } from '../store/lab-store.ts';
import { firstReplyStep, visibleSteps } from '../model/timeline.ts';
import { HelpPopover } from './HelpPopover.tsx';
import { Icon, type IconName } from './Icon.tsx';

const SPEEDS = [0.5, 1, 2, 4];

/** The transport row; `compact` (embeds): step back, play, step forward, scrubber and counter. */
// eslint-disable-next-line max-lines-per-function -- a React component: its hooks, handlers and one JSX tree, read top to bottom
export function Controls({ compact = false }: { compact?: boolean }) {
  const { t } = useTranslation();
  const steps = useLab(stepsOf);
  const step = useLab((s) => s.doc.step);
  const playing = useLab((s) => s.playing);
  const everyRule = useLab((s) => !s.hideMisses);
  const a = useActions();
  const n = steps.length;
  const reply = firstReplyStep(steps);
  const cur = steps[step];
  const disabled = n === 0;
  // The counter counts what the user sees: rules that did not match are not steps unless asked.
  const shown = useMemo(() => visibleSteps(steps, everyRule, step), [steps, everyRule, step]);
  const at = Math.max(0, shown.indexOf(step));
  const total = shown.length;
  const replyAt = shown.findIndex((i) => i >= reply);
  return (
    <div
      className={`controls${compact ? ' controls-compact' : ''}`}
      data-testid="controls"
      role="toolbar"
      aria-label={t('controls.play')}
    >
      {!compact && (
        <ControlButton
          disabled={disabled || step === 0}
          onClick={a.toStart}
          label={t('controls.start')}
          shortcut="Home"
          testid="ctl-start"
          icon="start"
        />
      )}
      <ControlButton
        disabled={disabled || step === 0}
        onClick={() => a.stepBy(-1)}
        label={t('controls.back')}
        shortcut="←"
        testid="ctl-back"
        icon="back"
      />
      <ControlButton
        primary
        disabled={disabled}
        onClick={() => a.setPlaying(!playing)}
        label={t(playing ? 'controls.pause' : 'controls.play')}
        shortcut="Space"
        testid="ctl-play"
        icon={playing ? 'pause' : 'play'}
      />
      <ControlButton
        disabled={disabled || step >= n - 1}
        onClick={() => a.stepBy(1)}
        label={t('controls.forward')}
        shortcut="→"
        testid="ctl-forward"
        icon="forward"
      />
      {!compact && (
        <ControlButton
          disabled={disabled || step >= n - 1}
          onClick={a.toEnd}
          label={t('controls.end')}
          shortcut="End"
          testid="ctl-end"
          icon="end"
        />
      )}
      <input
        className="scrubber"
        type="range"
        min={0}
        max={Math.max(0, total - 1)}
        value={at}
        disabled={disabled}
        aria-label={t('controls.step', { n: at + 1, total })}
        onChange={(e) => a.setStep(shown[Number(e.target.value)] ?? 0)}
        style={{
          ['--reply' as string]:
            reply > 0 && total > 1 ? `${(replyAt / (total - 1)) * 100}%` : '100%',
        }}
        data-testid="scrubber"
      />
      <span className="step-count" data-testid="step-count" data-n={at + 1} data-total={total}>
        {t(compact ? 'controls.stepShort' : 'controls.step', { n: total ? at + 1 : 0, total })}
        {cur && (
          <span className={`dir-pill ${cur.direction}`}>
            {t(cur.direction === 'reply' ? 'controls.replyDir' : 'controls.request')}
          </span>
        )}
      </span>
      {compact ? <HelpPopover /> : <FullControls reply={reply} />}
    </div>
  );
}

/** The full lab's extra controls: every rule, the reply, the speed, the shortcuts. */
function FullControls({ reply }: { reply: number }) {
  const { t } = useTranslation();
  const speed = useLab((s) => s.speed);
  const everyRule = useLab((s) => !s.hideMisses);
  const a = useActions();
  return (
    <>
      <label className="toggle every-rule" title={t('controls.everyRuleTitle')}>
        <input
          type="checkbox"
          checked={everyRule}
          onChange={(e) => a.setHideMisses(!e.target.checked)}
          data-testid="ctl-every-rule"
        />
        {t('controls.everyRule')}
      </label>
      {reply > 0 && (
        <button
          type="button"
          className="text"
          onClick={() => a.setStep(reply)}
          title={`${t('controls.reply')} (R)`}
          aria-label={t('controls.reply')}
          data-testid="ctl-reply"
        >
          <Icon name="reply" /> <span className="wide-only">{t('controls.reply')}</span>
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
    </>
  );
}

/** One icon button of the toolbar: its label also names the keyboard shortcut in the tooltip. */
function ControlButton(props: {
  readonly primary?: boolean;
  readonly disabled: boolean;
  readonly onClick: () => void;
  readonly label: string;
  readonly shortcut: string;
  readonly testid: string;
  readonly icon: IconName;
}) {
  return (
    <button
      type="button"
      className={props.primary ? 'icon primary' : 'icon'}
      disabled={props.disabled}
      onClick={props.onClick}
      title={`${props.label} (${props.shortcut})`}
      aria-label={props.label}
      data-testid={props.testid}
    >
      <Icon name={props.icon} />
    </button>
  );
}
