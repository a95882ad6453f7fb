import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const heapModule = fileURLToPath(new URL('./heap.ts', import.meta.url));

/** The young generation's size (MB) in a Node process that keeps 60 MB of small objects. */
function newSpaceAfterKeeping(tuned: boolean): number {
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    ${tuned ? `const { keepNurserySmall } = await import(${JSON.stringify(heapModule)}); keepNurserySmall();` : ''}
    const kept = [];
    for (let i = 0; i < 1_000_000; i++) kept.push({ i, name: 'rule ' + i });
    const s = getHeapSpaceStatistics().find((x) => x.space_name === 'new_space');
    process.stdout.write(String(s.space_size / 1048576) + ' ' + kept.length);
  `;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  expect(r.stderr).toBe('');
  return Number(r.stdout.split(' ')[0]);
}

describe('keepNurserySmall', () => {
  it('keeps the young generation at its first size while a process keeps what it allocates', () => {
    const untuned = newSpaceAfterKeeping(false);
    const tuned = newSpaceAfterKeeping(true);
    // Untuned, V8 doubles the nursery up to 16 MB semi-spaces (32 MB); tuned, it stays at the
    // size it had when the process called keepNurserySmall (here, after tsx loaded: 4 MB).
    expect(untuned).toBeGreaterThanOrEqual(16);
    expect(tuned).toBeLessThanOrEqual(4);
  });
});
