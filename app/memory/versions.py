"""Carrying token memory over a snippet edit: difflib on the two versions' token sequences.

A token keeps its memory when its text and its neighbourhood are unchanged: it lies in a block
that difflib matched, and so do the tokens on either side of it (a lone matched token between
edits is a different place in the code, so it starts fresh).
"""

import io
import tokenize
from difflib import SequenceMatcher
from functools import lru_cache

from sqlalchemy import select

from ..db.tables import snippet_versions
from ..engine.tokens import candidate_spans
from ..snippets.errors import SnippetInvalid
from ..snippets.parse import parse_snippet

# Comments and blank lines are not neighbours; line ends and indentation are.
_SKIPPED = {tokenize.NL, tokenize.COMMENT, tokenize.ENDMARKER}


def token_texts(code: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Every token's text, and for each the eligible span index it is (-1 if none)."""
    lines = [0]
    for line in code.splitlines(keepends=True):
        lines.append(lines[-1] + len(line))
    spans = {s.start: s.index for s in candidate_spans(code)}
    texts, index = [], []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type in _SKIPPED:
                continue
            texts.append(tok.string if tok.type != tokenize.DEDENT else "<dedent>")
            index.append(spans.get(lines[tok.start[0] - 1] + tok.start[1], -1))
    except (tokenize.TokenError, SyntaxError):
        pass
    return tuple(texts), tuple(index)


@lru_cache(maxsize=256)
def version_map(old_code: str, new_code: str) -> dict[int, int]:
    """Old eligible span index → new one, for tokens whose text and neighbours are unchanged."""
    old_texts, old_index = token_texts(old_code)
    new_texts, new_index = token_texts(new_code)
    mapping = {}
    matcher = SequenceMatcher(None, old_texts, new_texts, autojunk=False)
    for a, b, size in matcher.get_matching_blocks():
        for k in range(size):
            # a neighbour outside the block is an edit, unless the block reaches the edge of the code
            left_ok = k > 0 or a == 0 and b == 0
            right_ok = k < size - 1 or a + size == len(old_texts) and b + size == len(new_texts)
            if left_ok and right_ok and old_index[a + k] >= 0 and new_index[b + k] >= 0:
                mapping[old_index[a + k]] = new_index[b + k]
    return mapping


def stored_code(db, snippet_id: str, version: str) -> str | None:
    """The drill code of a version, from the archive of every version served."""
    source = db.execute(
        select(snippet_versions.c.source).where(
            snippet_versions.c.snippet_id == snippet_id, snippet_versions.c.version == version
        )
    ).scalar()
    return _code(snippet_id, source) if source else None


@lru_cache(maxsize=256)
def _code(snippet_id: str, source: str) -> str | None:
    try:
        return parse_snippet(source, snippet_id).code
    except SnippetInvalid:
        return None
