"""Settings are checked where they are built: a wrong value is refused with its variable and what
to fix, and a server given one stops with those lines, not a traceback."""

import os
import subprocess
import sys

import pytest
from pydantic import ValidationError

from app.settings import PROJECT_DIR, Settings, wrong_settings

pytestmark = pytest.mark.unit

REFUSED = [
    ({"language": "fr"}, "CODECLOZE_LANGUAGE='fr': not one of zh, en"),
    (
        {"trusted_proxies": "10.0.0.1, nonsense"},
        "CODECLOZE_TRUSTED_PROXIES='10.0.0.1, nonsense': 'nonsense' is not an address or network",
    ),
    (
        {"sandbox_packages": "torch,no-such-distribution"},
        "CODECLOZE_SANDBOX_PACKAGES='torch,no-such-distribution': 'no-such-distribution': not installed in the "
        "app's environment",
    ),
    (
        {"sandbox_packages": "torch numpy"},
        "CODECLOZE_SANDBOX_PACKAGES='torch numpy': 'torch numpy': not a distribution name (comma-separated names)",
    ),
    ({"log_level": "loud"}, "CODECLOZE_LOG_LEVEL='loud': not one of DEBUG, INFO, WARNING, ERROR, CRITICAL"),
    ({"log_format": "xml"}, "CODECLOZE_LOG_FORMAT='xml': Input should be 'json' or 'text'"),
    (
        {"database_url": "not a url"},
        "CODECLOZE_DATABASE_URL / DATABASE_URL: not a database URL; e.g. postgresql+psycopg://user:pass@host/db, "
        "or unset for SQLite",
    ),
    ({"cpu_seconds": 0}, "CODECLOZE_CPU_SECONDS=0: Input should be greater than 0"),
    ({"wall_seconds": -1}, "CODECLOZE_WALL_SECONDS=-1: Input should be greater than 0"),
    ({"memory_mb": 0}, "CODECLOZE_MEMORY_MB=0: Input should be greater than 0"),
    ({"workers": 0}, "CODECLOZE_WORKERS=0: Input should be greater than or equal to 1"),
    ({"queue": -1}, "CODECLOZE_QUEUE=-1: Input should be greater than or equal to 0"),
    (
        {"new_learners_per_minute": -1},
        "CODECLOZE_NEW_LEARNERS_PER_MINUTE=-1: Input should be greater than or equal to 0",
    ),
    ({"address_jobs": -1}, "CODECLOZE_ADDRESS_JOBS=-1: Input should be greater than or equal to 0"),
    ({"jobs_at_once": -2}, "CODECLOZE_JOBS_AT_ONCE=-2: Input should be greater than or equal to 0"),
    ({"session_hours": 0}, "CODECLOZE_SESSION_HOURS=0: Input should be greater than 0"),
    (
        {"login_attempts_per_minute": -1},
        "CODECLOZE_LOGIN_ATTEMPTS_PER_MINUTE=-1: Input should be greater than or equal to 0",
    ),
    ({"db_busy_ms": -1}, "CODECLOZE_DB_BUSY_MS=-1: Input should be greater than or equal to 0"),
    ({"sync_seconds": 0}, "CODECLOZE_SYNC_SECONDS=0: Input should be greater than 0"),
    ({"fit_reviews": -1}, "CODECLOZE_FIT_REVIEWS=-1: Input should be greater than or equal to 0"),
    ({"max_answer_chars": 0}, "CODECLOZE_MAX_ANSWER_CHARS=0: Input should be greater than or equal to 1"),
    ({"max_form_bytes": 0}, "CODECLOZE_MAX_FORM_BYTES=0: Input should be greater than or equal to 1"),
]


@pytest.mark.parametrize("given, line", REFUSED, ids=[next(iter(g)) for g, _ in REFUSED])
def test_a_wrong_value_is_refused_with_its_variable_and_what_to_fix(given, line):
    with pytest.raises(ValidationError) as refused:
        Settings(**given)
    assert wrong_settings(refused.value) == [line]


def test_a_secret_is_never_echoed():
    with pytest.raises(ValidationError) as refused:
        Settings(teacher_token="tiny-secret", database_url="postgresql+psycopg://u:hunter2@")
    lines = wrong_settings(refused.value)
    assert lines[0].startswith("CODECLOZE_TEACHER_TOKEN: has 11 characters; it must have at least 16")
    assert "tiny-secret" not in "".join(lines) and "hunter2" not in "".join(lines)


def test_accepted_values_are_kept_in_one_form():
    settings = Settings(language="en-GB", log_level="warning", teacher_token="", secret_key="", database_url="")
    assert (settings.language, settings.log_level) == ("en", "WARNING")
    assert settings.teacher_token is settings.secret_key is settings.database_url is None  # empty means unset
    assert Settings(sandbox_packages="Torch, NumPy").package_names == ("torch", "numpy")
    assert Settings(sandbox_packages="").package_names == ()


def test_several_workers_need_a_shared_secret(monkeypatch):
    monkeypatch.setenv("WEB_CONCURRENCY", "2")
    with pytest.raises(ValidationError) as refused:
        Settings()
    (line,) = wrong_settings(refused.value)
    assert line.startswith("several workers are starting without CODECLOZE_SECRET_KEY")
    assert Settings(secret_key="k" * 40).secret_key == "k" * 40


def test_the_environment_is_read_under_the_same_names(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "sqlite:///elsewhere.db")
    monkeypatch.setenv("CODECLOZE_QUEUE", "7")
    settings = Settings()
    assert (settings.database_url, settings.queue) == ("sqlite:///elsewhere.db", 7)


def test_every_setting_is_described_for_operators():
    assert [name for name, field in Settings.model_fields.items() if not field.description] == []


@pytest.mark.server
def test_a_server_with_wrong_settings_stops_with_one_line_each(tmp_path):
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CODECLOZE_")},
        "CODECLOZE_DATA_DIR": str(tmp_path / "d"),
        "CODECLOZE_LANGUAGE": "fr",
        "CODECLOZE_QUEUE": "-1",
        "CODECLOZE_TEACHER_TOKEN": "short",
    }
    done = subprocess.run(
        [sys.executable, "-m", "uvicorn", "app.main:app", "--port", "0", "--no-proxy-headers"],
        cwd=PROJECT_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-4:] == [
        "codecloze: cannot start, a setting is wrong:",
        "CODECLOZE_LANGUAGE='fr': not one of zh, en",
        "CODECLOZE_QUEUE='-1': Input should be greater than or equal to 0",
        "CODECLOZE_TEACHER_TOKEN: has 5 characters; it must have at least 16 (e.g. from "
        "`python -c 'import secrets; print(secrets.token_urlsafe(24))'`), or leave it unset to have one made",
    ]
