import html
import re
from html.parser import HTMLParser

import pytest
from markupsafe import Markup

from app.web.markdown import pygments_css, render_markdown

pytestmark = pytest.mark.unit

# Formulas as the Flash Attention course writes them.
INLINE = [
    r"S=Q{K}^T/\sqrt{d}\to P=\text{softmax}(S)\to O=PV",
    r"Q,K,V\in {\mathbb{R}}^{N\times d}",
    r"O(N^2{d}^2{M}^{-1})",
    r"\text{softmax}(x_i)=e^{x_i}/\sum _j{e}^{x_j}",
    r"P_{ij}=\text{diag}(l_i{)}^{-1}\cdot \exp (S_{ij}-m_i)",
    r"e^{m_{\text{old}}-m_{\text{new}}}",
    r"a*b*c_1 + d_2*e_3",
    r"x < y \& z > 1",
]
DISPLAY = [
    r"m_{\text{new}}=max(m_{\text{old}},x_j)",
    r"l_{\text{new}}=l_{\text{old}}\cdot e^{m_{\text{old}}-m_{\text{new}}}+e^{x_j-m_{\text{new}}}",
]


def math_of(rendered: str, kind: str) -> list[str]:
    pattern = rf'<(?:span|div) class="math math-{kind}" data-tex="([^"]*)">'
    return [html.unescape(tex) for tex in re.findall(pattern, rendered, re.S)]


@pytest.mark.parametrize("tex", INLINE)
def test_inline_math_keeps_exact_tex(tex):
    out = render_markdown(f"其中 ${tex}$，见上。")
    assert isinstance(out, Markup)
    assert math_of(out, "inline") == [tex]
    assert "$" not in out


def test_math_is_escaped_html():
    out = render_markdown(r"$x<y$ and $a>b$")
    assert '<span class="math math-inline" data-tex="x&lt;y"><math' in out
    assert "<mo>&lt;</mo>" in out and "<y" not in out


def test_emphasis_does_not_reach_into_math():
    # without math, "*b$ 与 $c*" and "_1$ 和 $x_" would pair up as emphasis
    out = render_markdown(r"$a*b$ 与 $c*d$，$a_1$ 和 $x_2$")
    assert "<em>" not in out
    assert math_of(out, "inline") == ["a*b", "c*d", "a_1", "x_2"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("其中 $m=max(x)$。", ["m=max(x)"]),
        ("当$N=4096$时各 64 MB", ["N=4096"]),
        ("维护 running max $m$ 和 running sum $l$，", ["m", "l"]),
        ("（$m_i$: 行最大值，$l_i$: 行 exp-sum）", ["m_i", "l_i"]),
    ],
)
def test_math_next_to_cjk_text(text, expected):
    out = render_markdown(text)
    assert math_of(out, "inline") == expected
    assert "$" not in out


def test_display_math_on_its_own_line():
    out = render_markdown(f"规则：\n\n$${DISPLAY[0]}$$\n\n后文")
    assert math_of(out, "display") == [DISPLAY[0]]
    assert '<div class="math math-display" data-tex="' in out and "<math xmlns" in out


def test_back_to_back_display_formulas_are_split():
    out = render_markdown(f"$${DISPLAY[0]}$$$${DISPLAY[1]}$$")
    assert math_of(out, "display") == DISPLAY
    assert "$" not in out


def test_display_math_inside_a_paragraph():
    out = render_markdown(f"其中\n$${DISPLAY[0]}$$ 即可")
    assert math_of(out, "display") == [DISPLAY[0]]
    assert "<div" not in out  # a div would break the enclosing <p>


def test_multiline_display_math():
    out = render_markdown("$$\na=1\\\\\nb=2\n$$")
    assert math_of(out, "display") == ["a=1\\\\\nb=2"]


def test_raw_html_is_escaped():
    out = render_markdown('<script>alert(1)</script>\n\nx <img src=x onerror="alert(1)">')
    assert "<script" not in out and "<img" not in out
    assert "&lt;script&gt;" in out


def test_javascript_links_are_not_links():
    out = render_markdown("[x](javascript:alert(1)) <javascript:alert(2)> [ok](https://example.org)")
    assert 'href="javascript' not in out.lower()
    assert out.count("<a ") == 1
    assert '<a href="https://example.org">ok</a>' in out


def test_code_fence_is_highlighted():
    out = render_markdown("```python\ndef f(x):\n    return x < 1  # $notmath$\n```")
    assert out.startswith('<div class="highlight"><pre>')
    assert '<span class="k">def</span>' in out
    assert '<span class="o">&lt;</span>' in out
    assert 'class="math' not in out


@pytest.mark.parametrize("info", ["text", "no-such-language", ""])
def test_plain_code_fence_is_escaped(info):
    out = render_markdown(f"```{info}\n<b>hi</b> $x$\n```")
    assert out.startswith('<div class="highlight"><pre>')
    assert "&lt;b&gt;hi&lt;/b&gt; $x$" in out
    assert 'class="k"' not in out


def test_info_string_words_after_the_language_are_ignored():
    out = render_markdown("```python check\nassert True\n```")
    assert '<span class="k">assert</span>' in out


def test_dollars_in_inline_code_stay_code():
    out = render_markdown("run `echo $HOME $PATH` now")
    assert "<code>echo $HOME $PATH</code>" in out
    assert 'class="math' not in out


def test_tables_and_strikethrough():
    out = render_markdown("| a | b |\n|---|---|\n| ~~old~~ | $x_1$ |")
    assert "<table>" in out and "<s>old</s>" in out
    assert math_of(out, "inline") == ["x_1"]


def test_pygments_css_is_scoped_to_highlight():
    css = pygments_css()
    assert ".highlight .k {" in css
    assert all(line.startswith(".highlight") for line in css.splitlines())


def test_pygments_css_colours_tokens_for_both_themes_and_leaves_the_background_to_the_page():
    css = pygments_css()
    # xcode's keyword purple in light, github-dark's keyword red in dark
    assert ".highlight .k { color: light-dark(#A90D91, #ff7b72) }" in css
    assert all("light-dark(" in line for line in css.splitlines())
    assert ".highlight {" not in css  # the block's background is --code-bg, which follows the theme


def test_the_bundled_course_writes_function_names_in_formulas_as_operators():
    """`max(m, x)` inside $…$ is typeset as the italic letters m·a·x; `\\max` is the operator."""
    import re

    from app.main import app

    named = re.compile(r"(?<![\\A-Za-z])(max|min|exp|log|sin|cos|tanh|sum|argmax)(?![A-Za-z])")
    checked = 0
    for snippet in app.state.library.all(include_hidden=True):
        texts = [s.text for s in snippet.segments if s.kind == "prose"]
        texts += [snippet.explanation, snippet.answers, *snippet.hints]
        texts += [part for q in snippet.questions for part in (q.prompt, q.answer)]
        for text in texts:
            for found in re.finditer(r"\$\$(.+?)\$\$|\$(.+?)\$", text, re.S):
                formula = re.sub(r"\\(?:text|mathrm|operatorname)\{[^}]*\}", "", found.group(1) or found.group(2))
                assert not named.search(formula), (snippet.id, formula)
                checked += 1
    assert checked > 20
    prose = "".join(s.text for s in app.state.library.get("ex2-online-softmax").segments if s.kind == "prose")
    assert r"m=\max(x)" in prose and r"=\max(m_{\text{old}},x_j)" in prose


def test_math_reads_without_script_as_mathml():
    out = render_markdown(r"复杂度 $O(N)$，而 $$m_i = \max(m_i, \tilde{m}_{ij})$$")
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">' in out
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">' in out
    assert "<mi>O</mi>" in out and "<msub>" in out


@pytest.mark.parametrize(
    "tex",
    [r"\text{<script>alert(1)</script>}", r"\href{javascript:alert(1)}{x}", r"\text{<img src=x onerror=alert(1)>}"],
)
def test_math_from_uploads_cannot_carry_markup(tex):
    class Tags(HTMLParser):
        found: list = []

        def handle_starttag(self, tag, attrs):
            self.found.append((tag, [name for name, _ in attrs]))

    parser = Tags()
    parser.found = []
    parser.feed(render_markdown(f"${tex}$"))
    tags = {tag for tag, _ in parser.found}
    attributes = {name for _, names in parser.found for name in names}
    assert not tags & {"script", "img", "a", "iframe"}, parser.found
    assert not {a for a in attributes if a.startswith("on") or a in ("href", "src", "style")}, parser.found


def test_a_formula_that_cannot_be_read_shows_its_tex():
    out = render_markdown(r"$\begin{cases}1\end{xx}$")
    assert ">\\begin{cases}1\\end{xx}</span>" in out and "<math" not in out


def test_every_formula_of_the_bundled_course_reads_as_mathml():
    from app.settings import PROJECT_DIR

    formulas = unreadable = 0
    for path in sorted((PROJECT_DIR / "snippets").rglob("*.md")):
        for match in re.finditer(r'class="math math-\w+" data-tex="[^"]*">(<math)?', render_markdown(path.read_text())):
            formulas += 1
            unreadable += match.group(1) is None
    assert formulas > 100 and unreadable == 0
