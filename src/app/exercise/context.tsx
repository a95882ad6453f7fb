/** The lab's exercise controller behind a React Context, and the `exercise` translations. */
import { createContext, useContext, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useStore } from 'zustand';
import type { ExerciseController } from './controller.ts';
import { EXERCISE_EN, EXERCISE_ZH } from './i18n.ts';
import type { ExerciseState } from './store.ts';

const Ctx = createContext<ExerciseController | null>(null);

export function ExerciseProvider({
  controller,
  children,
}: {
  controller: ExerciseController;
  children: ReactNode;
}) {
  const { i18n } = useTranslation();
  // Registered before the first render of any exercise text (synchronously, once).
  useState(() => {
    if (!i18n.hasResourceBundle('en', 'exercise')) {
      i18n.addResourceBundle('en', 'exercise', EXERCISE_EN);
      i18n.addResourceBundle('zh', 'exercise', EXERCISE_ZH);
    }
    return true;
  });
  return <Ctx.Provider value={controller}>{children}</Ctx.Provider>;
}

/** The controller, or null in a lab without exercises (component tests, embeds of old). */
export function useExercises(): ExerciseController | null {
  return useContext(Ctx);
}

/** State of the exercise store; only below a provider (components check useExercises first). */
export function useExercise<T>(
  controller: ExerciseController,
  selector: (s: ExerciseState) => T,
): T {
  return useStore(controller.store, selector);
}
