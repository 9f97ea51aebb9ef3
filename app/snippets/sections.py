"""The Markdown structure of a snippet body: code fences and reserved sections, by line."""

from dataclasses import dataclass

from markdown_it import MarkdownIt

_MD = MarkdownIt("commonmark")
CODE_INFOS = {"python": "code", "python setup": "setup", "python check": "check"}
RESERVED = {
    "hints": ("提示", "hints"),
    "answers": ("参考答案", "reference answer"),
    "explanation": ("解析", "explanation"),
    "question": ("问题", "question"),
}
ANSWER_HEADINGS = ("参考答案", "answer", "reference answer")


@dataclass(frozen=True)
class Fence:
    kind: str
    first: int  # 0-based line of the opening ``` in the parsed text
    last: int  # exclusive
    content: str


@dataclass(frozen=True)
class Heading:
    line: int
    level: int
    text: str


def reserved_kind(heading: str) -> str | None:
    lowered = heading.strip().lower()
    for kind, words in RESERVED.items():
        if any(lowered.startswith(w) for w in words):
            return kind
    return None


def structure(text: str) -> tuple[list[Fence], list[Heading]]:
    """Top-level code fences (known info strings only) and headings of a Markdown text."""
    tokens = _MD.parse(text)
    fences, headings = [], []
    for i, tok in enumerate(tokens):
        if tok.type == "fence" and tok.level == 0 and tok.info.strip() in CODE_INFOS:
            fences.append(Fence(CODE_INFOS[tok.info.strip()], tok.map[0], tok.map[1], tok.content))
        elif tok.type == "heading_open" and tok.level == 0:
            headings.append(Heading(tok.map[0], int(tok.tag[1]), tokens[i + 1].content))
    return fences, headings


def list_items(text: str) -> list[str]:
    """The raw Markdown of each top-level list item (marker removed)."""
    lines = text.split("\n")
    items = []
    for tok in _MD.parse(text):
        if tok.type == "list_item_open" and tok.level == 1:
            first, last = tok.map
            head = lines[first].lstrip()
            marker = len(head) - len(head.lstrip("-*+0123456789.)"))
            body = [head[marker:].strip(), *(ln.strip() for ln in lines[first + 1 : last])]
            items.append("\n".join(body).strip())
    return items
