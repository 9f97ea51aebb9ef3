"""Retry the missed blanks: a mask of exactly the blanks one submission missed, at once.

Missed tokens are re-tested soon, until recalled once (successive relearning). The mask travels
in its URL like a seeded one (shareable, the same page every time), signed by the server: a
retry URL whose blanks the server did not choose from a graded submission is refused.
"""

from itsdangerous import Signer

from app.engine.tokens import eligible_spans
from app.memory.pieces import valid_pieces
from app.memory.record import RECALLED
from app.memory.review import encode


class RetryLinks:
    def __init__(self, secret: str):
        self._signer = Signer(secret, salt="retry-mask")

    def url(self, snippet_id: str, version: str, rate: int, unit: str, at: int, missed: tuple) -> str:
        miss = encode(missed)
        sig = self._signer.get_signature(_signed(snippet_id, version, rate, unit, at, miss)).decode()
        unit_part = "" if unit == "token" else f"&unit={unit}"
        return f"/s/{snippet_id}/retry?rate={rate}{unit_part}&v={version}&at={at}&miss={miss}&sig={sig}"

    def made_here(self, snippet_id: str, version: str, rate: int, unit: str, at: int, miss: str, sig: str) -> bool:
        value = _signed(snippet_id, version, rate, unit, at, miss)
        return self._signer.verify_signature(value, sig.encode("ascii", "replace"))


def _signed(snippet_id: str, version: str, rate: int, unit: str, at: int, miss: str) -> str:
    return f"{snippet_id}|{version}|{rate}|{unit}|{at}|{miss}"


def missed_blanks(drill, result) -> tuple:
    """The blanks of a random or review mask the submission did not recall, as a review mask
    names them (span indices, or (first, last) pieces); only those a review mask can show."""
    if drill.mode != "random" or not drill.rate:
        return ()
    spans = [h.span for h, state in zip(drill.holes, result.states()) if state not in RECALLED and h.span]
    if drill.unit == "token":
        shown = {s.index for s in eligible_spans(drill.snippet.code)}
        return tuple(sorted({first for first, last in spans if first == last and first in shown}))
    valid = valid_pieces(drill.snippet.code, drill.unit)
    return tuple(sorted({tuple(span) for span in spans if tuple(span) in valid}))
