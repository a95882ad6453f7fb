/**
 * Scrolls `el` into view inside `container` only. Element.scrollIntoView would also scroll the
 * page (and the blog post around an embed) every time the packet moves.
 */
export function scrollWithin(
  container: HTMLElement,
  el: HTMLElement,
  mode: 'nearest' | 'center',
): void {
  const c = container.getBoundingClientRect();
  const r = el.getBoundingClientRect();
  const top = r.top - c.top + container.scrollTop;
  const sticky = container.querySelector('thead')?.getBoundingClientRect().height ?? 0;
  if (mode === 'center') {
    container.scrollTop = top - (container.clientHeight - r.height) / 2;
    return;
  }
  if (r.top < c.top + sticky) container.scrollTop = top - sticky;
  else if (r.bottom > c.bottom) container.scrollTop = top - container.clientHeight + r.height;
}
