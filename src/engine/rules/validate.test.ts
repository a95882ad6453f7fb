import { describe, expect, it } from 'vitest';
import { sketchTarget } from './validate.ts';

describe('sketchTarget: the target of a deferred rule line, without compiling it', () => {
  it('is the word after the last target option', () => {
    expect(sketchTarget('-A KUBE-SVC-X -m comment --comment "a -> b" -j KUBE-SEP-Y')).toBe(
      'KUBE-SEP-Y',
    );
    expect(sketchTarget('-A X -p tcp -j DNAT --to-destination 10.0.0.1:80')).toBe('DNAT');
    expect(sketchTarget('-A X -g Y')).toBe('Y');
    expect(sketchTarget('-A X --jump Y')).toBe('Y');
    expect(sketchTarget('-A X -s 10.0.0.0/8')).toBeNull();
  });

  it('skips an option inside a quoted comment, to the real one before it', () => {
    expect(sketchTarget('-A X -j Y -m comment --comment "not -j Z here"')).toBe('Y');
    expect(sketchTarget('-A X -m comment --comment "say \\"-j Z\\" -j W" -j V')).toBe('V');
    expect(sketchTarget('-A X -m comment --comment "only -j Z"')).toBeNull();
  });
});
