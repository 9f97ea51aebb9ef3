"""WCAG contrast of what a page shows, measured from the browser's computed styles: every visible
piece of text (and typed value, and line number) against the background composed behind it, and
the boundaries a control is recognised by (a blank's underline, the focus ring, field borders)."""

from playwright.sync_api import Page

# Runs in the page: returns one row per visible text and per control boundary.
_MEASURE = r"""
(within) => {
  const rgba = (text) => {
    const m = /rgba?\(([^)]*)\)/.exec(text || "");
    if (!m) return null;
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, under) => [0, 1, 2].map(i => top[i] * top[3] + under[i] * (1 - top[3])).concat(1);
  const lum = (c) => {
    const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const canvas = [255, 255, 255, 1];
  // the element's own background and its ancestors', composed from the canvas up
  const backdrop = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] === 1) break; }
    }
    return layers.reverse().reduce((under, top) => over(top, under), canvas);
  };
  const opacity = (el) => { let o = 1; for (let e = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity); return o; };
  const shown = (el) => {
    if (!el.getClientRects().length) return false;
    const s = getComputedStyle(el);
    if (s.visibility !== "visible") return false;
    const box = el.getBoundingClientRect();
    return box.width > 1 && box.height > 1 && !el.closest(".katex-mathml, [hidden]");
  };
  const exempt = (el) => el.closest("[disabled], [aria-disabled=true]") !== null;
  const large = (s) => { const px = parseFloat(s.fontSize), w = Number(s.fontWeight); return px >= 24 || (px >= 18.66 && w >= 700); };
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\s+/).join(".") : "");
  const rows = [];
  const text = (el, what, style, label, own = null) => {
    const fg = rgba(style.color), under = backdrop(el), bg = own && own[3] > 0 ? over(own, under) : under;
    const seen = over([fg[0], fg[1], fg[2], fg[3] * opacity(el)], bg);
    rows.push({kind: "text", what: name(el) + what, text: label.slice(0, 30), ratio: ratio(seen, bg), need: large(style) ? 3 : 4.5});
  };
  const edge = (el, what, colour, against) => {
    const c = rgba(colour);
    if (!c || c[3] === 0) return;
    const bg = backdrop(against);
    rows.push({kind: "edge", what: name(el) + what, text: "", ratio: ratio(over(c, bg), bg), need: 3});
  };
  for (const el of document.querySelector(within).querySelectorAll("*")) {
    if (!shown(el) || exempt(el) || ["SCRIPT", "STYLE", "OPTION"].includes(el.tagName)) continue;
    const own = Array.from(el.childNodes).filter(n => n.nodeType === 3).map(n => n.textContent).join("").trim();
    const style = getComputedStyle(el);
    if (own) text(el, "", style, own);
    if ((el.tagName === "INPUT" && el.type !== "hidden" && el.type !== "file") || el.tagName === "TEXTAREA") {
      if (el.value) text(el, "[value]", style, el.value);
      const side = style.borderBottomStyle !== "none" ? "Bottom" : style.borderTopStyle !== "none" ? "Top" : null;
      if (side) edge(el, "[border]", style[`border${side}Color`], el.parentElement);
    }
    for (const pseudo of ["::before", "::after"]) {  // line numbers, tooltips
      const generated = getComputedStyle(el, pseudo);
      if (generated.content && !["none", "normal", '""'].includes(generated.content))
        text(el, pseudo, generated, generated.content, rgba(generated.backgroundColor));
    }
  }
  return rows;
}
"""


def measure(page: Page, within: str = "body") -> list[dict]:
    """A row per visible text and control edge inside `within`, with its ratio and the ratio it needs."""
    return page.evaluate(_MEASURE, within)


def focus_ring(page: Page, selector: str) -> dict:
    """The contrast of the focus indicator of the first `selector`, focused from the keyboard: the
    outline against what is behind it (or, for a blank, its underline against its own background)."""
    page.focus(selector)
    return page.evaluate(
        r"""(selector) => {
      const el = document.querySelector(selector), s = getComputedStyle(el);
      const rgb = t => t.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number);
      const lum = c => 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
      function f(v) { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }
      const blank = el.matches("input.blank");
      if (!blank && s.outlineStyle === "none") return {what: selector, ratio: 0, need: 3};  // no ring at all
      const ring = blank ? s.borderBottomColor : s.outlineColor;
      let back = blank ? el : el.parentElement;
      while (back && getComputedStyle(back).backgroundColor === "rgba(0, 0, 0, 0)") back = back.parentElement;
      const [x, y] = [lum(rgb(ring)), lum(rgb(getComputedStyle(back).backgroundColor))].sort((a, b) => b - a);
      return {what: selector, ratio: (x + 0.05) / (y + 0.05), need: 3};
    }""",
        selector,
    )


def failures(rows: list[dict]) -> list[dict]:
    return [row for row in rows if row["ratio"] < row["need"]]
