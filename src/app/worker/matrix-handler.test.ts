import { describe, expect, it } from 'vitest';
import type { MatrixCell, MatrixLayout, MatrixOpen } from '../../cluster/matrix.ts';
import { createMatrixHandler } from './matrix-handler.ts';
import type { MatrixInput, MatrixResponse } from './matrix-protocol.ts';

/** A fake matrix of `n` cells; each cell costs 10 ms of the fake clock. */
function setup(n = 10, sliceMs = 25) {
  let clock = 0;
  const computed: string[] = [];
  const open = (input: MatrixInput): MatrixOpen => {
    if (input.scenario === 'bad')
      return {
        ok: false,
        diagnostics: [
          {
            severity: 'error',
            source: 'scenario',
            line: 1,
            column: 1,
            endLine: 1,
            endColumn: 2,
            field: 'title',
            message: 'broken',
          },
        ],
      };
    const layout = {
      senders: [],
      columns: [],
      pairs: Array.from({ length: n }, (_, i) => ({
        row: i,
        col: 0,
        from: `s${i}`,
        to: 'd',
        proto: 'tcp' as const,
      })),
      limited: null,
      unplaced: [],
    } satisfies MatrixLayout;
    return {
      ok: true,
      diagnostics: [],
      layout,
      cell: (i) => {
        clock += 10;
        computed.push(`${input.scenario}:${i}`);
        return { row: i, from: `s${i}` } as unknown as MatrixCell;
      },
    };
  };
  const posted: MatrixResponse[] = [];
  const tasks: (() => void)[] = [];
  const handler = createMatrixHandler(
    open,
    (r) => posted.push(r),
    (fn) => tasks.push(fn),
    sliceMs,
    () => clock,
  );
  const flush = () => {
    while (tasks.length) tasks.splice(0).forEach((t) => t());
  };
  const one = () => tasks.splice(0).forEach((t) => t());
  return { handler, posted, flush, one, computed };
}

const summary = (posted: MatrixResponse[]) =>
  posted.map((p) =>
    p.type === 'cells' ? `cells:${p.id}:${p.from}+${p.cells.length}` : `${p.type}:${p.id}`,
  );

describe('matrix worker handler', () => {
  it('sends the layout, then the cells in slices of about the time budget, then done', () => {
    const { handler, posted, flush } = setup(10, 25);
    handler.receive({ type: 'matrix', id: 1, slot: 'a', input: { scenario: 'x' } });
    flush();
    expect(summary(posted)).toEqual([
      'layout:1',
      'cells:1:0+3',
      'cells:1:3+3',
      'cells:1:6+3',
      'cells:1:9+1',
      'done:1',
    ]);
  });

  it('a newer request on the slot stops the older between two slices', () => {
    const { handler, posted, one, flush, computed } = setup(10, 25);
    handler.receive({ type: 'matrix', id: 1, slot: 'a', input: { scenario: 'old' } });
    one();
    handler.receive({ type: 'matrix', id: 2, slot: 'a', input: { scenario: 'new' } });
    flush();
    expect(computed.filter((c) => c.startsWith('old'))).toHaveLength(3);
    expect(summary(posted).slice(0, 4)).toEqual([
      'layout:1',
      'cells:1:0+3',
      'cancelled:1',
      'layout:2',
    ]);
    expect(summary(posted).at(-1)).toBe('done:2');
  });

  it('two slots fill in side by side', () => {
    const { handler, posted, flush } = setup(4, 20);
    handler.receive({ type: 'matrix', id: 1, slot: 'a', input: { scenario: 'a' } });
    handler.receive({ type: 'matrix', id: 2, slot: 'b', input: { scenario: 'b' } });
    flush();
    expect(summary(posted)).toEqual([
      'layout:1',
      'layout:2',
      'cells:1:0+1',
      'cells:2:0+1',
      'cells:1:1+1',
      'cells:2:1+1',
      'cells:1:2+1',
      'cells:2:2+1',
      'cells:1:3+1',
      'done:1',
      'cells:2:3+1',
      'done:2',
    ]);
  });

  it('cancel stops a matrix; a scenario with errors answers its diagnostics', () => {
    const { handler, posted, one, flush } = setup(10);
    handler.receive({ type: 'matrix', id: 1, slot: 'a', input: { scenario: 'x' } });
    one();
    handler.receive({ type: 'cancel', id: 1 });
    handler.receive({ type: 'matrix', id: 2, slot: 'b', input: { scenario: 'bad' } });
    flush();
    expect(summary(posted)).toEqual(['layout:1', 'cells:1:0+3', 'cancelled:1', 'invalid:2']);
  });
});
