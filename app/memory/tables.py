"""The memory's tables, on the store's `metadata` (so `create_all` and the migrations see them).

State is kept per learner incrementally, in the transaction that writes each attempt batch: pages
read a handful of rows and never rescan the attempt history.
"""

from sqlalchemy import JSON, BigInteger, Boolean, Column, DateTime, Float, Index, Integer, String, Table, Text

from ..db.tables import metadata

learners = Table(
    "learners",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("name", String(40)),
    Column("class_code", String(32)),
    Column("link_gen", Integer, nullable=False, default=0),  # bumping it voids the device link
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("class_joined_at", DateTime(timezone=True)),  # NULL: joined before migration 0014, unknown
)

# One FSRS card per (learner, snippet, item): item "" is the code, "q0", "q1", … its questions.
cards = Table(
    "memory_cards",
    metadata,
    Column("learner", String(64), primary_key=True),
    Column("snippet_id", String(64), primary_key=True),
    Column("item", String(8), primary_key=True),
    Column("version", String(12), nullable=False),  # the version its token memory lives on
    Column("fsrs", JSON, nullable=False),  # fsrs.Card.to_dict()
    Column("due", DateTime(timezone=True), nullable=False),
    Column("attempts", Integer, nullable=False, default=0),
    Column("recalls", Integer, nullable=False, default=0),  # attempts that count as recall tries
    Column("best", Float),
    Column("latest", Float),
    Column("seconds", Float, nullable=False, default=0.0),
    Column("days", JSON, nullable=False),  # ISO dates (UTC) practised, last DAYS_KEPT
    Column("history", JSON, nullable=False),  # [[unix time, accuracy]], last HISTORY_KEPT recalls
    Column("last_at", DateTime(timezone=True)),
    Index("ix_memory_cards_due", "learner", "due"),
)

# Memory of every eligible token a learner was tested on, per snippet version. Its times are unix
# seconds (UTC): pages read them for every token, and parsing SQLite's datetime text cost more
# than everything else `/me` does (bench/RESULTS.md).
tokens = Table(
    "memory_tokens",
    metadata,
    Column("learner", String(64), primary_key=True),
    Column("snippet_id", String(64), primary_key=True),
    Column("version", String(12), primary_key=True),
    Column("span", Integer, primary_key=True),
    Column("text", String(200), nullable=False),
    Column("state", Integer, nullable=False),  # fsrs.State
    Column("step", Integer),
    Column("stability", Float),
    Column("difficulty", Float),
    Column("due", Float),
    Column("last_review", Float),
    Column("seen", Integer, nullable=False, default=0),
    Column("misses", Integer, nullable=False, default=0),
    Column("heat", Float, nullable=False, default=0.0),  # misses, decayed with HEAT_HALF_LIFE
    Column("heat_at", Float),
    Column("wrong", JSON(none_as_null=True)),  # the last few wrong answers given here; NULL: none (no decoding)
    # Evidence for "known": when the token was last recalled at least a day after its previous
    # test (NULL: never, or missed since), and whether its last test was a miss.
    Column("spaced", Float),
    Column("missed", Boolean),
)

# Per learner: the desired retention they chose (NULL: the default) and the FSRS parameters
# fitted to their own token reviews in the background (NULL: FSRS's defaults). `reviews` counts
# their token reviews, kept in the attempt's transaction, so the fitter knows when to run.
models = Table(
    "memory_models",
    metadata,
    Column("learner", String(64), primary_key=True),
    Column("retention", Float),
    Column("reviews", Integer, nullable=False, default=0),
    Column("parameters", JSON(none_as_null=True)),
    Column("fitted_reviews", Integer, nullable=False, default=0),  # `reviews` when last fitted
    Column("fitted_at", DateTime(timezone=True)),
    Column("rate", Integer),  # the mask rate the learner last drilled at (NULL: none yet); reviews use it
    Column("calibration", JSON(none_as_null=True)),  # calibration.Calibration.to_json(); NULL: no blank yet
    Column("fitting_since", Float),  # unix time a worker claimed the learner's fit; NULL: nobody fits them
)

# Blanks a learner asked to see, per mask (reveals.py): a later submission of that mask counts
# them revealed whatever the page sends; the submission that counts them takes them away. One row a
# mask, a few masks a learner, none older than a day: a flood of reveals cannot fill the disk.
reveals = Table(
    "reveals",
    metadata,
    Column("learner", String(64), primary_key=True),
    Column("mask", String(32), primary_key=True),  # reveals.mask_key: snippet, version and blanks
    Column("blanks", Text, nullable=False),  # the blanks' keys, sorted, comma-separated
    Column("created_at", DateTime(timezone=True), nullable=False, index=True),  # the mask's last reveal
)

# Blanks judged 运行无法确认 (unproven: a passing run where the check cannot tell), with the token
# memory and code card as they were before that attempt reviewed them, so that a later verdict
# (the version's analysis completing, a teacher marking the answer's mutant equivalent) can
# review them again as accepted (corrections.py). `provisional`: judged before the version's
# analysis was complete.
unproven = Table(
    "unproven_blanks",
    metadata,
    Column("attempt_id", BigInteger, primary_key=True, autoincrement=False),
    Column("key", String(16), primary_key=True),
    Column("learner", String(64), nullable=False, index=True),
    Column("snippet_id", String(64), nullable=False),
    Column("version", String(12), nullable=False),
    Column("first", Integer, nullable=False),
    Column("last", Integer, nullable=False),
    Column("given", String(200), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("provisional", Boolean, nullable=False),
    Column("tokens", JSON),  # {span: token row before the attempt, or null (none yet)}
    Column("card", JSON),  # the code card before the attempt, or null
    Column("credited_at", DateTime(timezone=True)),  # when a later verdict accepted it
    Column("credited_by", String(60)),  # "analysis", or the teacher whose decision did
    Index("ix_unproven_blanks_version", "snippet_id", "version"),
)
