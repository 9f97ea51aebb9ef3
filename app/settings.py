"""Runtime configuration: one object, passed in, overridable from CODECLOZE_* env vars.

Every value is checked here, when `Settings()` is built: a wrong one is refused with a message
naming its variable (`wrong_settings` gives one line per wrong value; app/main.py prints them and stops).
The descriptions are the operators' table of settings (docs/operators.md, generated with cog).
"""

import ipaddress
import logging
import multiprocessing
import os
import re
from importlib import metadata
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from app.i18n import LANGUAGES, supported

PROJECT_DIR = Path(__file__).resolve().parent.parent
ENV_PREFIX = "CODECLOZE_"
MIN_TOKEN_CHARS = 16  # the right teacher token always signs in, so its length is what defends against guessing
_SECRET = ("database_url", "teacher_token", "secret_key")  # never echoed in a message
_DISTRIBUTION = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore", populate_by_name=True)

    data_dir: Path = Field(
        Path("./data"),
        description="the SQLite database (attempts, uploaded snippets and every snippet version served) "
        "and the generated secret key",
    )
    snippets_dir: Path = Field(
        PROJECT_DIR / "snippets",
        description="the bundled snippet files; a file that does not parse stops start-up with its path, line "
        "and problem",
    )
    database_url: str | None = Field(
        None,
        validation_alias=AliasChoices("CODECLOZE_DATABASE_URL", "DATABASE_URL"),
        description="any SQLAlchemy URL, e.g. `postgresql+psycopg://user:pass@host/db` for several workers and "
        "hosts; unset: SQLite in the data dir",
    )
    # Off: every asset comes from static/ (works offline, never waits on a resolver). On: htmx and
    # KaTeX from their CDN with subresource integrity, the vendored copies as the fallback.
    use_cdn: bool = Field(
        False,
        description="`true` loads htmx and KaTeX from their CDN (pinned versions, subresource integrity), with "
        "the vendored copies in `static/vendor/` as the fallback; by default every asset is served from "
        "`static/`, so the app works fully offline",
    )
    language: str = Field(
        "zh",
        description="the default UI language, `zh` (中文) or `en`, for a browser that asks for neither and has "
        "not chosen one",
    )

    # Sandbox: turn off on hosts that must not run learner code (token match only).
    execution: bool = Field(True, description="run submissions in the sandbox; `false` scores by token match only")
    cpu_seconds: float = Field(5.0, gt=0, description="CPU time of one job, seconds")
    wall_seconds: float = Field(10.0, gt=0, description="wall-clock time of one job, seconds")
    memory_mb: int = Field(1024, gt=0, description="memory of one job, MiB")
    workers: int = Field(
        default_factory=lambda: os.cpu_count() or 1,
        ge=1,
        description="job processes kept ready (the CPUs jobs share)",
        json_schema_extra={"shown_default": "the CPU count"},  # the docs' table, the same on every host
    )
    queue: int = Field(
        256,
        ge=0,
        description='jobs waiting at most, whatever their wait; beyond them a submission gets "busy, retry" (503)',
    )
    queue_seconds: float = Field(
        10.0,
        ge=0,
        description="a submission whose wait for the sandbox would be longer (its address's jobs ahead × how long "
        'they lately ran) gets "busy, retry" at once, with when to retry (503, Retry-After); 0: only `CODECLOZE_QUEUE` '
        "bounds the wait",
    )
    # Distributions learner and teacher code may import (with what they depend on), comma-separated.
    sandbox_packages: str = Field(
        "torch,numpy,einops",
        description="the distributions (comma-separated names, as pip knows them) that snippet and learner "
        "code may import, each with the distributions it depends on; besides them only the standard library "
        "imports. Each must be installed in the app's environment; `/healthz` (`sandbox_packages`) and the "
        "upload page list what is offered, with versions. An upload that imports anything else is refused, "
        "naming the module and this setting",
    )
    # Fair queue: new learner ids one address may bring per minute (beyond, they share one
    # place in the queue); jobs in flight per address, 0 = off (a classroom shares one NAT address).
    new_learners_per_minute: int = Field(
        60,
        ge=0,
        description="new learner ids one client address may bring per minute; jobs of further new ids share "
        "one place in the fair queue (0: no bound)",
    )
    address_jobs: int = Field(
        0,
        ge=0,
        description="jobs in flight per client address; 0 (off) by default, since a classroom may share one "
        "NAT address",
    )
    jobs_at_once: int = Field(
        0,
        ge=0,
        description="jobs running at once; 0: up to 5 × `CODECLOZE_WORKERS`, as the memory budget (half the "
        "host's memory over `CODECLOZE_MEMORY_MB` + 32 MiB per job) and the process budget (1024 over 16 per "
        "job) allow, never fewer than the workers (app/sandbox/budget.py)",
    )
    background_jobs: int = Field(
        0,
        ge=0,
        description="jobs of background work (check-strength analyses; an FSRS fit holds one place too) at once "
        "in a worker; 0: half of `CODECLOZE_WORKERS`, at least one, so learners always keep the rest "
        "(app/sandbox/background.py)",
    )
    # Default none: the socket's peer is the client (app/web/client_address.py).
    trusted_proxies: str = Field(
        "",
        description="addresses or networks (comma-separated, e.g. `127.0.0.1,10.0.0.0/8`) of reverse proxies "
        "whose `X-Forwarded-For` names the client; the client is the rightmost entry that is not such a "
        "proxy. Empty: the socket's peer is the client",
    )
    # Enforced by uvicorn's protocol as ./scripts/serve starts it (app/web/guarded_http.py).
    request_header_seconds: float = Field(
        10.0,
        gt=0,
        description="a connection that has not sent a request's whole headers this long after it opened (or "
        "after the first byte of its next request) is answered 408 and closed",
    )
    request_body_seconds: float = Field(
        60.0, gt=0, description="a request whose body has not all arrived this long after its headers is closed"
    )
    connections_per_address: int = Field(
        1024,
        ge=1,
        description="connections one client address may hold open at once, per worker process (a classroom "
        "behind one address opens a few per learner); more are answered 429 and closed. Trusted proxies are "
        "not capped",
    )

    teacher_token: str | None = Field(
        None,
        description=f"the teachers' login token, at least {MIN_TOKEN_CHARS} characters; unset, it is derived "
        "from the secret key (32 characters, the same on every worker) and the login URL is logged at "
        "start-up with the address and port the server listens on",
    )
    secret_key: str | None = Field(
        None,
        description="signs learner ids, teacher sessions and device links. Unset, a key is generated once into "
        "`<data dir>/secret_key` (mode 0600), so learners and teachers survive restarts. **Required** with "
        "several workers: they refuse to start without it",
    )
    session_hours: float = Field(12.0, gt=0, description="teacher session lifetime, hours")
    login_attempts_per_minute: int = Field(
        5,
        ge=0,
        description="wrong teacher passwords or tokens from one address before each further one waits twice as long "
        "(from 1 s up to 5 min); ten quiet minutes clear the count",
    )

    db_busy_ms: int = Field(
        5000, ge=0, description="how long a write waits for a locked SQLite file before it is refused (503)"
    )
    sync_seconds: float = Field(
        0.5, gt=0, description="how often a worker takes the snippet uploads and edits that other workers committed"
    )

    log_level: str = Field(
        "INFO",
        description="level of the app's log lines on stderr: `INFO` writes one line per submission, `WARNING` "
        "only problems",
    )
    log_format: Literal["json", "text"] = Field(
        "json", description="`json`: one JSON object per line; `text`: plain lines with `key=value` fields"
    )

    fit_reviews: int = Field(
        1000,
        ge=0,
        description="token reviews a learner needs before their own FSRS parameters are fitted (in a "
        "background process, again whenever their reviews doubled; bench/learning says why); 0: never",
    )

    max_answer_chars: int = Field(
        2000, ge=1, description="longest answer to one blank, characters (to a short-answer question: five times this)"
    )
    max_form_bytes: int = Field(
        256 * 1024,
        ge=1,
        description="largest form or JSON body of a submission or a teacher's form, bytes; a larger one is refused",
    )

    @field_validator("database_url", "teacher_token", "secret_key")
    @classmethod
    def _empty_is_unset(cls, value: str | None) -> str | None:
        return value or None

    @field_validator("language")
    @classmethod
    def _offered_language(cls, value: str) -> str:
        found = supported(value)
        if found is None:
            raise ValueError(f"not one of {', '.join(LANGUAGES)}")
        return found

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                make_url(value)
            except ArgumentError:
                raise ValueError(
                    "not a database URL; e.g. postgresql+psycopg://user:pass@host/db, or unset for SQLite"
                ) from None
        return value

    @field_validator("sandbox_packages")
    @classmethod
    def _installed_packages(cls, value: str) -> str:
        names = [n.strip() for n in value.split(",") if n.strip()]
        if wrong := [n for n in names if not _DISTRIBUTION.match(n)]:
            raise ValueError(f"{', '.join(map(repr, wrong))}: not a distribution name (comma-separated names)")
        if missing := [n for n in names if not _installed(n)]:
            raise ValueError(f"{', '.join(map(repr, missing))}: not installed in the app's environment")
        return value

    @field_validator("trusted_proxies")
    @classmethod
    def _proxy_networks(cls, value: str) -> str:
        proxy_networks(value)
        return value

    @field_validator("teacher_token")
    @classmethod
    def _long_token(cls, value: str | None) -> str | None:
        if value is not None and len(value.strip()) < MIN_TOKEN_CHARS:
            raise ValueError(
                f"has {len(value.strip())} characters; it must have at least {MIN_TOKEN_CHARS} (e.g. from "
                "`python -c 'import secrets; print(secrets.token_urlsafe(24))'`), or leave it unset to have one made"
            )
        return value

    @field_validator("log_level")
    @classmethod
    def _log_level(cls, value: str) -> str:
        if value.upper() not in logging.getLevelNamesMapping():
            raise ValueError("not one of DEBUG, INFO, WARNING, ERROR, CRITICAL")
        return value.upper()

    @model_validator(mode="after")
    def _shared_secret(self) -> "Settings":
        if self.secret_key is None and several_workers():
            raise ValueError(
                "several workers are starting without CODECLOZE_SECRET_KEY: each would sign learner cookies and "
                "teacher sessions with a key of its own, and a learner moving between workers would lose their "
                "id. Set the same CODECLOZE_SECRET_KEY (e.g. from `python -c 'import secrets; "
                "print(secrets.token_urlsafe(32))'`) on every worker and host."
            )
        return self

    @property
    def package_names(self) -> tuple[str, ...]:
        from .sandbox.packages import parse_setting

        return parse_setting(self.sandbox_packages)

    @property
    def sqlalchemy_url(self) -> str:
        return self.database_url or f"sqlite:///{self.data_dir.resolve() / 'codecloze.db'}"


def env_names(field: str) -> tuple[str, ...]:
    """The environment variables that set `field`, as operators write them."""
    alias = Settings.model_fields[field].validation_alias
    return tuple(alias.choices) if isinstance(alias, AliasChoices) else (ENV_PREFIX + field.upper(),)


def wrong_settings(error: ValidationError) -> list[str]:
    """One line per wrong value: its variable, what was given (never a secret), and what is wrong."""
    by_name = {name: field for field in Settings.model_fields for name in (field, *env_names(field))}
    lines = []
    for found in error.errors():
        message = found["msg"].removeprefix("Value error, ")
        named = next((str(n) for n in found["loc"] if n in by_name), None)
        if named is None:  # a rule about several settings: its message names them
            lines.append(message)
            continue
        field = by_name[named]
        given = "" if field in _SECRET else f"={found['input']!r}"
        lines.append(f"{' / '.join(env_names(field))}{given}: {message}")
    return lines


def proxy_networks(setting: str) -> tuple[Network, ...]:
    """CODECLOZE_TRUSTED_PROXIES as networks; ValueError names a wrong entry."""
    out = []
    for entry in filter(None, (e.strip() for e in setting.split(","))):
        try:
            out.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            raise ValueError(f"{entry!r} is not an address or network") from None
    return tuple(out)


def several_workers() -> bool:
    """Whether this process is one of several serving workers (uvicorn --workers, gunicorn,
    or WEB_CONCURRENCY, which both read)."""
    concurrency = os.environ.get("WEB_CONCURRENCY", "")
    return (
        multiprocessing.parent_process() is not None
        or "gunicorn" in os.environ.get("SERVER_SOFTWARE", "")
        or (concurrency.isdigit() and int(concurrency) > 1)
    )


def _installed(name: str) -> bool:
    try:
        metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return False
    return True
