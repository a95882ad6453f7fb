import { describe, expect, it } from 'vitest';
import { namesPlace, readParams } from './params.ts';
import { readFlags } from '../boot.ts';

describe('readable URL parameters', () => {
  it('reads every parameter of the README table', () => {
    const { params, notes } = readParams(
      '?scenario=vip22&variant=lb-service&mode=nftables&from=client/laptop&to=vip:22&step=7&theme=dark' +
        '&lang=zh&embed=1&autoplay=1&verdict=after&editor=readonly&pickers=1&compare=deleted&view=matrix',
    );
    expect(notes).toEqual([]);
    expect(params).toEqual({
      scenario: 'vip22',
      variant: 'lb-service',
      mode: 'nftables',
      from: 'client/laptop',
      to: 'vip:22',
      step: 7,
      theme: 'dark',
      lang: 'zh',
      embed: true,
      autoplay: true,
      verdictAfter: true,
      editor: 'readonly',
      plainEditor: false,
      pickers: 'path',
      compare: 'deleted',
      view: 'matrix',
    });
  });

  it('mode is a kube-proxy mode; anything else is said and the default used', () => {
    const { params } = readParams('?mode=NFTables');
    expect(params.mode).toBe('nftables');
    expect(namesPlace(params)).toBe(true);
    const bad = readParams('?mode=nft');
    expect(bad.params.mode).toBeNull();
    expect(bad.notes).toEqual([
      { kind: 'invalid', param: 'mode', value: 'nft', hint: 'iptables | nftables | ipvs' },
    ]);
  });

  it('view is diagram, matrix or host; anything else is said and ignored', () => {
    const { params, notes } = readParams('?view=table&compare=etp-local');
    expect(params.view).toBeNull();
    expect(params.compare).toBe('etp-local');
    expect(notes).toEqual([
      { kind: 'invalid', param: 'view', value: 'table', hint: 'diagram | matrix | host' },
    ]);
    expect(readParams('?view=host').params.view).toBe('host');
  });

  it('takes step=end, pickers=all, embed without a value, and editor=plain as an editable textarea', () => {
    const { params, notes } = readParams('?step=END&pickers=all&embed&editor=plain');
    expect(notes).toEqual([]);
    expect(params.step).toBe('end');
    expect(params.pickers).toBe('all');
    expect(params.embed).toBe(true);
    expect(params.editor).toBe('edit');
    expect(params.plainEditor).toBe(true);
  });

  it('says what it could not use, and falls back to the default', () => {
    const { params, notes } = readParams(
      '?step=0&theme=blue&lang=fr&embed=maybe&verdict=later&editor=x&pickers=2&varient=lb&utm_source=blog&scenario=',
    );
    expect(params.step).toBeNull();
    expect(params.theme).toBeNull();
    expect(params.lang).toBeNull();
    expect(params.embed).toBe(false);
    expect(params.verdictAfter).toBe(false);
    expect(params.editor).toBeNull();
    expect(params.pickers).toBe('none');
    expect(params.scenario).toBeNull();
    expect(notes.map((n) => `${n.kind}:${n.param}=${n.value}`)).toEqual([
      'unknown:varient=lb',
      'invalid:scenario=',
      'invalid:step=0',
      'invalid:theme=blue',
      'invalid:lang=fr',
      'invalid:embed=maybe',
      'invalid:verdict=later',
      'invalid:editor=x',
      'invalid:pickers=2',
    ]);
    expect(notes.find((n) => n.param === 'theme')?.hint).toBe('light | dark | auto');
  });

  it('notes a parameter given twice (the first one counts) and cuts long values short', () => {
    const long = 'x'.repeat(500);
    const { params, notes } = readParams(`?step=2&step=3&variant=${long}`);
    expect(params.step).toBe(2);
    expect(params.variant).toBeNull();
    expect(notes[0]).toMatchObject({ kind: 'duplicate', param: 'step', value: '3' });
    expect(notes[1]?.value.length).toBeLessThanOrEqual(40);
  });

  it('a place (variant, path or step) makes the address a link', () => {
    expect(namesPlace(readParams('?scenario=a').params)).toBe(false);
    expect(namesPlace(readParams('?scenario=a&step=3').params)).toBe(true);
    expect(namesPlace(readParams('?to=vip:22').params)).toBe(true);
  });

  it('the layout decides the editor when the address does not', () => {
    expect(readFlags('?embed=1', '').editorMode).toBe('hidden');
    expect(readFlags('', '').editorMode).toBe('edit');
    expect(readFlags('?embed=1&editor=edit', '').editorMode).toBe('edit');
    expect(readFlags('?editor=hidden', '').editorMode).toBe('hidden');
    expect(readFlags('?editor=plain', '').editor).toBe('plain');
  });
});
