/*!
 * Hookpath embed.js: sizes every <iframe data-hookpath> on the page to its content.
 *
 * Usage (the lab's Embed button writes it for you):
 *   <iframe data-hookpath src="https://…/hookpath/?scenario=…&embed=1" title="…"
 *           width="100%" height="560" style="border:0;width:100%"></iframe>
 *   <script src="https://…/hookpath/embed.js" async></script>
 *
 * An embedded lab posts { type: 'hookpath:resize', height } (CSS pixels of its content) to its
 * parent on load and whenever its layout changes. This script sets the height of the iframe that
 * sent it: the message's source must be that iframe's window, and its origin the origin of the
 * iframe's src. Iframes added later are sized too; loading the script twice is harmless.
 * Nothing is ever sent to the iframes. No dependencies; Apache-2.0, part of Hookpath.
 */
(function () {
  'use strict';
  if (window.__hookpathEmbed) return;
  window.__hookpathEmbed = true;

  var MIN = 120;
  var MAX = 10000;

  function originOf(src) {
    try {
      return new URL(src, document.baseURI).origin;
    } catch {
      return null;
    }
  }

  window.addEventListener('message', function (event) {
    var data = event.data;
    if (!data || data.type !== 'hookpath:resize') return;
    var height = Number(data.height);
    if (!isFinite(height)) return;
    var frames = document.querySelectorAll('iframe[data-hookpath]');
    for (var i = 0; i < frames.length; i++) {
      var frame = frames[i];
      if (frame.contentWindow !== event.source) continue;
      if (originOf(frame.src) !== event.origin) return;
      var px = Math.round(Math.min(MAX, Math.max(MIN, height))) + 'px';
      if (frame.style.height !== px) frame.style.height = px;
      frame.setAttribute('data-hookpath-height', String(Math.round(height)));
      return;
    }
  });
})();
