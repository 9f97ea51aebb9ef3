"""Which language a piece of snippet content is in, as far as a page needs to say it: the course
is Chinese while the UI may be English, and a page marks each piece (`lang`) so fonts, screen
readers and the English pages' check know what is content and what is the UI."""

import re

CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


def lang_attribute(text: str) -> str:
    """` lang="zh-CN"` for Chinese text, else nothing (the page's own language applies)."""
    return ' lang="zh-CN"' if CJK.search(text or "") else ""
