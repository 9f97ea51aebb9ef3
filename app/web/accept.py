"""What a client accepts: the `Accept` and `Accept-Language` headers as ranked choices.

The language is negotiated by Babel (`negotiate_locale`, which also falls back from "en-GB" to
"en"); Babel has no media types, so JSON or HTML is decided here from the same parsed header.
"""

from babel.core import negotiate_locale

MOST_ELEMENTS = 32  # a header is read no further than this many comma-separated elements


def qualities(header: str) -> list[tuple[str, float]]:
    """Each element of the header (lower case) with its q-value, in the header's order."""
    out = []
    for element in header.split(",")[:MOST_ELEMENTS]:
        value, *params = (part.strip() for part in element.split(";"))
        if value:
            out.append((value.lower(), q_value(params)))
    return out


def q_value(params: list[str]) -> float:
    """The `q=` of an element's parameters: 1 when absent, 0 when it is no number."""
    for param in params:
        key, _, value = param.partition("=")
        if key.strip().lower() == "q":
            try:
                return min(max(float(value), 0.0), 1.0)
            except ValueError:
                return 0.0
    return 1.0


def best_language(header: str, available: tuple[str, ...]) -> str | None:
    """The available language the header ranks highest (q=0 means "not this one"; ties keep the
    header's order)."""
    ranked = sorted((pair for pair in qualities(header) if pair[1] > 0), key=lambda pair: -pair[1])
    found = negotiate_locale([tag for tag, _q in ranked], available, sep="-")
    return found.lower() if found else None


def media_quality(ranges: list[tuple[str, float]], media: str) -> float:
    """The q-value the ranges give `media`: the most specific matching range's (0 if none)."""
    kind = media.partition("/")[0]
    specificity = {media: 2, f"{kind}/*": 1, "*/*": 0}
    best, q = -1, 0.0
    for name, quality in ranges:
        rank = specificity.get(name, -1)
        if rank > best:
            best, q = rank, quality
    return q


def prefers(header: str, media: str, over: str) -> bool:
    """Whether the header ranks `media` strictly above `over`."""
    ranges = qualities(header)
    return media_quality(ranges, media) > media_quality(ranges, over)
