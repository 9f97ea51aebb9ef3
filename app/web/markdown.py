"""Course prose (Markdown + $…$ math) to safe HTML. Math is rendered here as MathML (readable
without script) in .math elements that keep their TeX in `data-tex`, for KaTeX to typeset in the
browser where script runs (static/math.js); code is highlighted here."""

import re

from markdown_it import MarkdownIt
from markupsafe import Markup, escape
from mdit_py_plugins.dollarmath import dollarmath_plugin
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.lexers.special import TextLexer
from pygments.styles import get_style_by_name
from pygments.token import STANDARD_TYPES
from pygments.util import ClassNotFound

from app.web.mathml import mathml

# Two styles whose token colours pass WCAG AA on the page's code backgrounds (static/app.css),
# light and dark; the page's color-scheme picks one per token through light-dark().
PYGMENTS_STYLES = ("xcode", "github-dark")
_FORMATTER = HtmlFormatter(cssclass="highlight")
# Display formulas written back to back ($$a$$$$b$$) arrive as one block.
_DISPLAY_SEPARATOR = re.compile(r"(?<!\\)\$\$")


def _lexer_for(info: str):
    name = info.split(maxsplit=1)[0] if info.strip() else "text"
    try:
        return get_lexer_by_name(name)
    except ClassNotFound:
        return TextLexer()


def highlighted_code(code: str, info: str = "") -> str:
    """`<div class="highlight"><pre>…` for a fence's code; unknown languages as plain text."""
    return highlight(code, _lexer_for(info), _FORMATTER)


def formula(tex: str, display: bool, tag: str = "span") -> str:
    """A formula's element: MathML inside, its TeX in data-tex (the TeX itself when it cannot be
    read as MathML, so a learner still sees what was written)."""
    tex = tex.strip()
    kind = "display" if display else "inline"
    shown = mathml(tex, display)
    return f'<{tag} class="math math-{kind}" data-tex="{escape(tex)}">{shown if shown else escape(tex)}</{tag}>'


def _math_inline(self, tokens, idx, options, env) -> str:
    return formula(tokens[idx].content, display=False)


def _math_display_in_paragraph(self, tokens, idx, options, env) -> str:
    # a span, since a div would end the enclosing <p>; KaTeX's display output is a block
    return formula(tokens[idx].content, display=True)


def _math_block(self, tokens, idx, options, env) -> str:
    parts = _DISPLAY_SEPARATOR.split(tokens[idx].content)
    return "".join(formula(tex, display=True, tag="div") + "\n" for tex in parts if tex.strip())


def _fence(self, tokens, idx, options, env) -> str:
    token = tokens[idx]
    return highlighted_code(token.content, token.info)


def _code_block(self, tokens, idx, options, env) -> str:
    return highlighted_code(tokens[idx].content)


def _parser() -> MarkdownIt:
    # html=False: raw HTML in uploads is shown escaped; links keep markdown-it's
    # validation, which drops javascript:, vbscript:, file: and non-image data: URLs.
    md = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    # Defaults put no restriction on what touches a $, so 当$N=4096$时 works;
    # double_inline lets $$…$$ sit inside a paragraph.
    dollarmath_plugin(md, allow_labels=False, double_inline=True)
    md.add_render_rule("math_inline", _math_inline)
    md.add_render_rule("math_inline_double", _math_display_in_paragraph)
    md.add_render_rule("math_block", _math_block)
    md.add_render_rule("fence", _fence)
    md.add_render_rule("code_block", _code_block)
    return md


_MD = _parser()


def render_markdown(text: str) -> Markup:
    return Markup(_MD.render(text))


def pygments_css() -> str:
    """Token colours for `.highlight` blocks in both themes, one rule per token class. The
    background stays the page's own (--code-bg), so the code block follows the theme too."""
    light, dark = (get_style_by_name(name) for name in PYGMENTS_STYLES)
    rules = []
    for ttype, css_class in sorted(STANDARD_TYPES.items(), key=lambda item: item[1]):
        decl = _token_decl(light.style_for_token(ttype), dark.style_for_token(ttype))
        if css_class and decl:
            rules.append(f".highlight .{css_class} {{ {decl} }}")
    return "\n".join(rules)


def _token_decl(light: dict, dark: dict) -> str:
    """`color: light-dark(…)` and the like; a colour one style leaves unset is the text's own."""
    parts = []
    for prop, key, unset in (("color", "color", "currentColor"), ("background-color", "bgcolor", "transparent")):
        if light[key] or dark[key]:
            pick = [f"#{s[key]}" if s[key] else unset for s in (light, dark)]
            parts.append(f"{prop}: light-dark({pick[0]}, {pick[1]})")
    # weight and slant from the light style only, so a token keeps its shape when the theme flips
    parts += ["font-weight: bold"] if light["bold"] else []
    parts += ["font-style: italic"] if light["italic"] else []
    return "; ".join(parts)
