// Typesets the TeX that the server leaves in .math elements' data-tex (app/web/markdown.py) with
// KaTeX, over the MathML the server rendered for pages read without script, on the first page and
// in every piece of content htmx swaps in.
(function () {
  "use strict";

  function typesetOne(el) {
    if (el.dataset.typeset) return;  // rendering replaces the TeX source, so only once
    el.dataset.typeset = "1";
    // KaTeX keeps the TeX in its MathML annotation, for copy and screen readers
    window.katex.render(el.dataset.tex || el.textContent, el, {
      displayMode: el.classList.contains("math-display"),
      throwOnError: false,  // a bad formula shows red source instead of stopping the rest
    });
  }

  function typeset(root) {
    if (!window.katex || !root || !root.querySelectorAll) return;  // no KaTeX: the MathML stays
    if (root.matches && root.matches(".math")) typesetOne(root);
    root.querySelectorAll(".math").forEach(typesetOne);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { typeset(document.body); });
  } else {
    typeset(document.body);
  }
  // htmx fires htmx:load on each new element it swaps in (and on body at start-up).
  document.addEventListener("htmx:load", function (evt) { typeset(evt.target); });
})();
