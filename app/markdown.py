"""Course prose (Markdown + $…$ math) to safe HTML. Math stays as escaped TeX in
.math elements for KaTeX to typeset in the browser (static/math.js); code is highlighted here."""
import re

from markdown_it import MarkdownIt
from markupsafe import Markup, escape
from mdit_py_plugins.dollarmath import dollarmath_plugin
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.lexers.special import TextLexer
from pygments.util import ClassNotFound

PYGMENTS_STYLE = "friendly"
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


def _math_inline(self, tokens, idx, options, env) -> str:
    return f'<span class="math math-inline">{escape(tokens[idx].content.strip())}</span>'


def _math_display_in_paragraph(self, tokens, idx, options, env) -> str:
    # a span, since a div would end the enclosing <p>; KaTeX's display output is a block
    return f'<span class="math math-display">{escape(tokens[idx].content.strip())}</span>'


def _math_block(self, tokens, idx, options, env) -> str:
    parts = _DISPLAY_SEPARATOR.split(tokens[idx].content)
    return "".join(
        f'<div class="math math-display">{escape(tex.strip())}</div>\n'
        for tex in parts
        if tex.strip()
    )


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
    """Token colours for `.highlight` blocks, for the page stylesheet."""
    formatter = HtmlFormatter(style=PYGMENTS_STYLE)
    # get_style_defs() would also restyle every <pre> on the page; keep it scoped
    rules = formatter.get_background_style_defs(".highlight")
    return "\n".join(rules + formatter.get_token_style_defs(".highlight"))
