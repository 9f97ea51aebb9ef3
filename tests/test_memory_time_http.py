"""Memory words a learner can trust, through a real uvicorn whose clock moves (libfaketime):
missed blanks come back in a retry and in the next review, "known" needs spaced recalls, a
learner who follows the due list clears it, the review page says what it chose (and a learner who
remembers by lines gets reviews spread over the lines), and times are the learner's own."""

import re
import sqlite3
from datetime import UTC, datetime, timedelta

import pytest
from fsrs import Scheduler

from app.memory.review import FRESH_SHARE, span_lines
from tests.faketime_server import Learner, blanks, faked_server, retry_link, snippet

SNIPPET = "mlm-online-softmax"
EXERCISE = "ex5-flash-backward"  # it has short-answer questions
pytestmark = pytest.mark.server
NOTE = re.compile(r'<p class="review-note" role="note">(.*?)</p>', re.S)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("faked")
    with faked_server(folder / "data", datetime(2027, 1, 4, 9, tzinfo=UTC)) as (url, clock):
        yield url, clock, folder / "data" / "codecloze.db"


def note_of(page: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", NOTE.search(page).group(1)).split())


def test_a_missed_token_comes_back_in_a_retry_at_once(served):
    url, clock, _db = served
    clock.set(datetime(2027, 1, 4, 9, tzinfo=UTC))
    learner = Learner(url)
    shown, missed = learner.drill(SNIPPET, 30, 7, miss_first=3)
    link = retry_link(learner.last_result)
    assert link and "再练一次没答出的空 (3)" in learner.last_result
    page = learner.get(link).text
    assert blanks(page) == sorted(missed)  # exactly the missed tokens
    assert "只挖掉了你刚才没答出的 3 个空" in note_of(page)
    assert blanks(Learner(url).get(link).text) == sorted(missed)  # shareable: the same mask for anyone
    forged = link.replace(f"miss={'.'.join(map(str, sorted(missed)))}", f"miss={shown[-1]}")
    refused = learner.http.get(forged)
    assert refused.status_code == 403 and "不是本站为你的作答生成的" in refused.text
    result = learner.answer(page, SNIPPET)  # recalled now: nothing left to retry
    assert retry_link(result) is None and "3 / 3" in result
    assert learner.progress(SNIPPET)["tokens"][str(missed[0])]["seen"] == 2


# The review policy gives tokens missed 20 hours or more before up to a sixth of the tested tokens'
# blanks (at least one), first: whatever the seed, the three come back a day later.
def test_a_missed_token_comes_back_in_the_next_review_mask(served):
    url, clock, _db = served
    clock.set(datetime(2027, 1, 11, 9, tzinfo=UTC))
    learner = Learner(url)
    _shown, missed = learner.drill(SNIPPET, 30, 8, miss_first=3)
    clock.advance(days=1)
    for _ in range(5):  # whatever the review's seed draws
        review = learner.get(f"/s/{SNIPPET}/review")
        assert "rate=30" in str(review.url)  # the rate this learner drills at, not 15 %
        assert set(missed) <= set(blanks(review.text)), (missed, blanks(review.text))


def test_known_is_zero_after_a_first_attempt_and_grows_only_after_spaced_successes(served):
    url, clock, _db = served
    clock.set(datetime(2027, 2, 1, 9, tzinfo=UTC))
    learner = Learner(url)
    shown, _ = learner.drill(SNIPPET, 30, 1)  # every blank right
    assert learner.progress(SNIPPET)["known"] == 0
    clock.advance(hours=3)
    learner.drill(SNIPPET, 30, 1)  # the same blanks again, right, the same day
    assert learner.progress(SNIPPET)["known"] == 0
    clock.advance(days=1)
    learner.drill(SNIPPET, 30, 1)  # right again a day later: evidence
    assert learner.progress(SNIPPET)["known"] == len(shown)
    page = learner.get("/me").text
    assert f"个记号里 {len(shown)} 个已经记牢" in page
    clock.advance(hours=1)
    learner.drill(SNIPPET, 30, 1, miss_first=2)  # a miss takes the evidence away
    assert learner.progress(SNIPPET)["known"] == len(shown) - 2
    clock.advance(days=200)  # long after: predicted below the desired retention, no longer known
    assert learner.progress(SNIPPET)["known"] == 0


def test_a_learner_who_follows_the_due_list_daily_empties_it(served):
    url, clock, _db = served
    clock.set(datetime(2027, 3, 1, 9, tzinfo=UTC))
    learner = Learner(url)
    learner.drill(SNIPPET, 15, 3, miss_first=2)
    learner.drill("mlm-blocked-attention", 15, 3)
    clock.advance(minutes=10)
    assert all(d["overdue"] is None for d in learner.me()["due"])  # nothing due again minutes later
    mornings, reviews = [], []
    for _day in range(6):
        clock.advance(days=1)  # every morning at nine: whatever today's list holds, reviewed
        due = learner.me()["due"]
        mornings.append(len(due))
        done = 0
        while due and done < 8:
            page = learner.get(due[0]["url"])
            learner.answer(page.text, due[0]["snippet"])
            done += 1
            due = learner.me()["due"]
        reviews.append(done)
        assert all(d["overdue"] is None for d in due), (mornings, reviews, due)  # nothing left due now
    assert mornings[0] >= 1 and mornings[-1] == 0, (mornings, reviews)  # a morning came with nothing due


def test_a_question_rated_good_is_not_due_minutes_later(served):
    url, clock, _db = served
    clock.set(datetime(2027, 3, 20, 9, tzinfo=UTC))
    learner = Learner(url)
    page = learner.get(f"/s/{EXERCISE}").text
    form = {name: value for name, value in re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', page)}
    form.update({key: "x" for key in re.findall(r'<input class="blank[^"]*" name="(c\d+)"', page)})
    result = learner.http.post(f"/s/{EXERCISE}", data={**form, "q0": "it recomputes the tiles"}).text
    attempt = re.search(r'action="/attempts/(\d+)/rating"', result).group(1)
    assert learner.http.post(f"/attempts/{attempt}/rating", data={"question": "0", "rating": "good"}).status_code == 200
    clock.advance(minutes=15)
    assert [d for d in learner.me()["due"] if d["kind"] == "question"] == []
    clock.advance(days=30)
    due = [d for d in learner.me()["due"] if d["kind"] == "question"]
    assert [d["item"] for d in due] == ["q0"]
    # the review lands on that question, marked, and the outcome repeats it, marked too
    assert due[0]["url"] == f"/s/{EXERCISE}?due=q0#question-0"
    page = learner.get(due[0]["url"]).text
    assert re.search(r'<fieldset class="question due" id="question-0">', page)
    assert '<fieldset class="question" id="question-1">' in page
    action = re.search(r'<form class="drill" method="post" action="([^"]+)"', page).group(1)
    assert action == f"/s/{EXERCISE}?due=q0"
    result = learner.http.post(action, data={**form, "q0": "it recomputes the tiles"}).text
    review = re.search(r'<div class="question-review due" id="review-question-0">(.*?)<form', result, re.S).group(1)
    assert "为什么 Flash Attention 反向传播选择重新计算" in review  # the question's prompt
    assert learner.get(f"/s/{EXERCISE}?due=q99").status_code == 200  # a question it does not have: no mark
    assert learner.http.get(f"/s/{EXERCISE}?due=x").status_code == 422


def test_the_review_page_says_what_it_chose(served):
    url, clock, db = served
    clock.set(datetime(2027, 4, 1, 9, tzinfo=UTC))
    learner = Learner(url)
    learner.drill(SNIPPET, 30, 3, miss_first=4)
    clock.advance(hours=1)
    learner.drill(SNIPPET, 30, 4, miss_first=1)
    clock.advance(days=1)
    page = learner.get(f"/s/{SNIPPET}/review").text
    chosen = blanks(page)
    note = note_of(page)
    assert "还没有练过" not in note
    missed = learner.missed_last_time(SNIPPET)
    asked = {i for s, i in learner.asked if s == SNIPPET}
    rows = _memory(db, learner, clock.now)
    expected = {
        "missed": sum(i in missed for i in chosen),
        "due": sum(i in asked and i not in missed and rows[i] < 0.9 for i in chosen),
        "kept": sum(i in asked and i not in missed and rows[i] >= 0.9 for i in chosen),
        "new": sum(i not in asked for i in chosen),
    }
    words = {
        "missed": "个上次没答出",
        "due": "个已低于你的目标记忆率（到期）",
        "kept": "个还记得，趁快忘之前再测",
        "new": "个还没测过（新的）",
    }
    assert f"挑了 {len(chosen)} 个空" in note and "2027-04-02 10:00 UTC" in note
    assert "按行记忆" not in note  # nothing in these answers says "by lines"
    for kind, n in expected.items():
        assert (f"{n} {words[kind]}" in note) == (n > 0), (kind, n, note)
    assert sum(expected.values()) == len(chosen) and expected["missed"] + expected["new"] > 0


def test_a_learner_who_remembers_by_lines_gets_reviews_spread_over_the_lines(served):
    """Each morning a 30 % drill, a blank recalled exactly when its line had a token tested the
    morning before: a line remembered as one unit. The review then says so, and spreads its blanks."""
    url, clock, _db = served
    clock.set(datetime(2027, 5, 3, 9, tzinfo=UTC))
    learner, lines = Learner(url), span_lines(snippet(SNIPPET).code)
    fresh: set[int] = set(lines.values())  # the first reading: every line seen
    for day in range(8):
        page = learner.get(f"/s/{SNIPPET}/drill?rate=30&seed={day + 1}").text
        shown = blanks(page)
        learner.answer(page, SNIPPET, {i for i in shown if lines[i] not in fresh})
        fresh = {lines[i] for i in shown}
        clock.advance(days=1)
    page = learner.get(f"/s/{SNIPPET}/review").text
    assert "按行记忆" in note_of(page) and "均匀地撒在各行" in note_of(page)
    chosen = blanks(page)  # after the fresh share (drawn uniformly), one blank per line while lines are left
    spread = len(chosen) - round(len(chosen) * FRESH_SHARE)
    assert len({lines[i] for i in chosen}) >= min(spread, len(set(lines.values()))), chosen


def _memory(db_path, learner, now: datetime) -> dict[int, float]:
    """Predicted recall now of each tested token, from the served database and FSRS's curve."""
    learner_id = learner.http.cookies.get("cc_learner").strip('"').split(".")[0]
    decay = -Scheduler().parameters[20]  # FSRS-6: R(t, S) = (1 + F·t/S)^(−w20), R(S, S) = 0.9
    factor = 0.9 ** (1 / decay) - 1
    with sqlite3.connect(db_path) as db:
        rows = db.execute(
            "select span, stability, last_review from memory_tokens where learner = ? and snippet_id = ?",
            (learner_id, SNIPPET),
        ).fetchall()
    days = lambda last: (now.timestamp() - last) / 86400  # noqa: E731
    return {span: (1 + factor * days(last) / s) ** decay for span, s, last in rows}


def test_times_and_today_are_the_learners_own(served):
    url, clock, _db = served
    clock.set(datetime(2027, 5, 3, 23, 30, tzinfo=UTC))  # 07:30 on 4 May in Shanghai
    east, utc, odd = Learner(url, "Asia/Shanghai"), Learner(url), Learner(url, "Mars/Olympus_Mons")
    for learner in (east, utc, odd):
        learner.drill(SNIPPET, 15, 5, miss_first=2)  # missed tokens slip within hours: due about 04:30 UTC
    east_due, utc_due = east.get("/").text, utc.get("/").text
    assert '<span class="due-count">1</span>' in east_due  # by the end of 4 May, Shanghai time
    assert '<span class="due-count">0</span>' in utc_due  # by midnight UTC: not today
    clock.advance(hours=6)
    when = datetime.fromisoformat(east.me()["due"][0]["due"])
    assert f"{when.astimezone(UTC) + timedelta(hours=8):%Y-%m-%d %H:%M}</span>" in east.get("/me").text
    assert f"{when:%Y-%m-%d %H:%M} UTC</span>" in utc.get("/me").text
    assert " UTC</span>" in odd.get("/me").text  # a zone the tz database lacks: UTC, said so
    clock.set(datetime(2027, 5, 4, 0, 30, tzinfo=UTC))  # the same day in Shanghai, the next in UTC
    east.drill(SNIPPET, 15, 6)
    utc.drill(SNIPPET, 15, 6)
    assert east.progress(SNIPPET)["streak"] == 1 and utc.progress(SNIPPET)["streak"] == 2
