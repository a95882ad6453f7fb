/** A labelled input whose problem (from the worker's answer) is said under it and to screen readers. */
import { useId, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { FieldProblem } from '../../cluster/own-host/types.ts';
import { useOwn } from './context.tsx';
import { ownText } from './said.ts';

/** The problem of a field, in the user's language (null: none). */
export function useProblem(field: FieldProblem['field']): string | null {
  const { t } = useTranslation();
  const problem = useOwn((s) => s.result?.problems.find((p) => p.field === field) ?? null);
  return problem ? ownText(t, problem, problem.message) : null;
}

export function Field({
  label,
  field,
  children,
}: {
  label: string;
  field: FieldProblem['field'];
  children: (props: {
    id: string;
    'aria-invalid': boolean;
    'aria-describedby'?: string;
  }) => ReactNode;
}) {
  const id = useId();
  const problem = useProblem(field);
  return (
    <div className={`own-field${problem ? ' has-problem' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        'aria-invalid': !!problem,
        ...(problem ? { 'aria-describedby': `${id}-p` } : {}),
      })}
      {problem && (
        <span className="own-problem" id={`${id}-p`} data-testid={`own-problem-${field}`}>
          {problem}
        </span>
      )}
    </div>
  );
}
