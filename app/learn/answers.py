"""The answers of a submission: one per blank of the drill, each a line of bounded length, and an
exercise's written responses."""

import re

from app.engine.score import Hole
from app.engine.tokens import has_comment
from app.errors import UserError
from app.i18n import _

ANSWER_KEY = re.compile(r"^[sc]\d+$")


def answers_for(holes: tuple[Hole, ...], fields: dict[str, str], max_chars: int) -> dict[str, str]:
    """The answer to every hole, or a UserError naming the blanks that are missing, foreign or too long."""
    answers = {h.key: fields.get(h.key) for h in holes}
    foreign = sorted(k for k in fields.keys() - answers.keys() if ANSWER_KEY.match(k))
    if foreign:
        raise UserError(_("提交里有不属于这次遮盖的空：%(keys)s。请刷新页面后重新作答。", keys=", ".join(foreign[:10])))
    if None in answers.values():
        missing = [h.label for h in holes if answers[h.key] is None]
        raise UserError(_("缺少这些空的答案：%(labels)s。", labels=", ".join(missing[:10])))
    # One look at all answers at once; the loop below only runs to name the culprit.
    text = "".join(answers.values())
    if "\n" in text or "\r" in text or max(map(len, answers.values()), default=0) > max_chars:
        for hole in holes:
            answer = answers[hole.key]
            if len(answer) > max_chars:
                raise UserError(
                    _(
                        "%(label)s 的答案太长（%(n)s 个字符，上限 %(max)s）。",
                        label=hole.label,
                        n=len(answer),
                        max=max_chars,
                    ),
                )
            if "\n" in answer or "\r" in answer:
                raise UserError(_("%(label)s 的答案只能有一行。", label=hole.label))
    if "#" in text:
        _refuse_comments(holes, answers)
    return answers


def _refuse_comments(holes: tuple[Hole, ...], answers: dict[str, str]) -> None:
    """A comment in an answer would swallow the rest of its line once spliced: refused, never scored."""
    for hole in holes:
        if has_comment(answers[hole.key]):
            raise UserError(
                _(
                    "%(label)s 的答案含有注释（#）：放进代码后，它会把这一行其余的代码变成注释。请去掉注释再提交。",
                    label=hole.label,
                ),
            )


def responses_for(question_count: int, fields: dict[str, str], limit: int) -> dict[int, str]:
    """An exercise's written answers to its short-answer questions, by question number."""
    texts = {i: fields.get(f"q{i}", "").strip() for i in range(question_count)}
    if any(len(t) > limit for t in texts.values()):
        raise UserError(_("简答题的回答太长（上限 %(max)s 个字符）。", max=limit))
    return texts
