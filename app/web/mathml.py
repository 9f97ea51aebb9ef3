"""TeX formulas as MathML, rendered here so a page reads without script (browsers display MathML
natively; static/math.js typesets the same TeX with KaTeX where script runs).

latex2mathml passes some input through as markup (`\\text{<b>}` becomes elements, `\\href` an
attribute), and course prose comes from uploads: its output is rebuilt from a whitelist of
MathML Core elements and presentational attributes, every text escaped. A formula it cannot read
is left to the caller to show as TeX.
"""

import xml.etree.ElementTree as ET

from latex2mathml.converter import convert

NS = "{http://www.w3.org/1998/Math/MathML}"
ELEMENTS = frozenset(
    "math mrow mi mn mo ms mtext mspace msub msup msubsup munder mover munderover mfrac msqrt mroot "
    "mstyle merror mpadded mphantom mtable mtr mtd mmultiscripts mprescripts none menclose semantics".split()
)
ATTRIBUTES = frozenset(
    "display displaystyle mathvariant stretchy fence separator form lspace rspace largeop movablelimits "
    "accent accentunder linethickness scriptlevel columnalign rowalign columnspacing rowspacing width "
    "height depth notation".split()
)


def mathml(tex: str, display: bool) -> str | None:
    """Safe MathML for `tex`, or None when it cannot be read."""
    try:
        tree = ET.fromstring(convert(tex, display="block" if display else "inline"))
    except Exception:  # latex2mathml raises many kinds on bad TeX; the caller shows the source
        return None
    return _rebuilt(tree)


def _rebuilt(node: ET.Element) -> str:
    tag = node.tag.removeprefix(NS)
    inner = _text(node.text) + "".join(_rebuilt(child) + _text(child.tail) for child in node)
    if tag not in ELEMENTS:
        return inner  # an element of no MathML (script, a, …): only its text, escaped
    attrs = "".join(f' {name}="{_quoted(value)}"' for name, value in sorted(node.attrib.items()) if name in ATTRIBUTES)
    if tag == "math":
        attrs = ' xmlns="http://www.w3.org/1998/Math/MathML"' + attrs
    return f"<{tag}{attrs}>{inner}</{tag}>"


def _text(text: str | None) -> str:
    return (text or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _quoted(value: str) -> str:
    return _text(value).replace('"', "&quot;")
