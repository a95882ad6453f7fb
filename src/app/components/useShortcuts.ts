import { useEffect, type RefObject } from 'react';
import type { LabStore } from '../store/lab-store.ts';
import { stepsOf } from '../store/lab-store.ts';
import { firstReplyStep } from '../model/timeline.ts';
import { HELP_EVENT } from './HelpPopover.tsx';
import { DIAGRAM_EVENT, type DiagramCommand } from './DiagramPanel.tsx';

const DIAGRAM_KEYS: Readonly<Record<string, DiagramCommand>> = {
  f: 'follow',
  o: 'overview',
  '+': 'zoom-in',
  '=': 'zoom-in',
  '-': 'zoom-out',
  c: 'ct',
  l: 'legend',
};

const TYPING = 'input, textarea, select, [contenteditable="true"], .monaco-editor';

/**
 * Space, arrows, Home/End, R, ? and the diagram's keys (F, O, +, −, C, L) for the lab under the keyboard focus (or the page's first lab
 * when nothing has focus), never while typing in the editor or a field.
 */
export function useShortcuts(root: RefObject<HTMLElement | null>, store: LabStore): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const el = root.current;
      if (!el || e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
      const target = e.target instanceof Element ? e.target : null;
      if (target?.closest(TYPING)) return;
      const mine = target ? el.contains(target) : false;
      const nobody = !target || target === document.body;
      if (!mine && !(nobody && document.querySelector('.lab') === el)) return;
      const a = store.actions;
      const s = store.getState();
      switch (e.key) {
        case ' ':
          if (target?.closest('button')) return; // Space on a button presses it
          a.setPlaying(!s.playing);
          break;
        case 'ArrowRight':
          a.setPlaying(false);
          a.stepBy(1);
          break;
        case 'ArrowLeft':
          a.setPlaying(false);
          a.stepBy(-1);
          break;
        case 'Home':
          a.toStart();
          break;
        case 'End':
          a.toEnd();
          break;
        case 'r':
        case 'R': {
          const i = firstReplyStep(stepsOf(s));
          if (i < 0) return;
          a.setPlaying(false);
          a.setStep(i);
          break;
        }
        case '?':
          el.dispatchEvent(new Event(HELP_EVENT));
          break;
        default: {
          const c = DIAGRAM_KEYS[e.key.toLowerCase()];
          if (!c) return;
          el.dispatchEvent(new CustomEvent(DIAGRAM_EVENT, { detail: c }));
        }
      }
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [root, store]);
}
