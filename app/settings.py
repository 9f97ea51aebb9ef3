"""Runtime configuration: one object, passed in, overridable from CODECLOZE_* env vars."""

import os
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_DIR = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CODECLOZE_", extra="ignore", populate_by_name=True)

    data_dir: Path = Path("./data")
    snippets_dir: Path = PROJECT_DIR / "snippets"
    database_url: str | None = Field(
        default=None, validation_alias=AliasChoices("CODECLOZE_DATABASE_URL", "DATABASE_URL")
    )
    # Off: every asset comes from static/ (works offline, never waits on a resolver). On: htmx and
    # KaTeX from their CDN with subresource integrity, the vendored copies as the fallback.
    use_cdn: bool = False
    language: str = "zh"

    # Sandbox: turn off on hosts that must not run learner code (token match only).
    execution: bool = True
    cpu_seconds: float = 5.0
    wall_seconds: float = 10.0
    memory_mb: int = 1024
    workers: int = Field(default_factory=lambda: os.cpu_count() or 1)
    queue: int = 32
    # Fair queue: new learner ids one address may bring per minute (beyond, they share one
    # place in the queue); jobs in flight per address, 0 = off (a classroom shares one NAT address).
    # Distributions learner and teacher code may import (with what they depend on), comma-separated.
    sandbox_packages: str = "torch,numpy,einops"
    new_learners_per_minute: int = 60
    address_jobs: int = 0
    jobs_at_once: int = 0  # jobs running at once; 0: a memory and process budget (app/sandbox/budget.py)
    # Proxies whose X-Forwarded-For names the client (addresses or networks, comma-separated).
    # Default none: the socket's peer is the client (app/web/client_address.py).
    trusted_proxies: str = ""

    # Teachers: a fixed token from the operator, or one generated and logged at start-up.
    teacher_token: str | None = None
    secret_key: str | None = None  # signs cookies and links; kept in the data dir when unset (app/web/keys.py)
    session_hours: float = 12.0
    login_attempts_per_minute: int = 5

    db_busy_ms: int = 5000  # how long a write waits for a locked SQLite file before it is refused
    sync_seconds: float = 0.5  # how often a worker takes the snippet changes other workers committed

    log_level: str = "INFO"  # of every `codecloze` logger; INFO writes one line per submission
    log_format: Literal["json", "text"] = "json"

    # Per-learner FSRS parameters: fitted in a background process once a learner has this many
    # token reviews (bench/learning says why), again whenever their reviews doubled; 0 = never.
    fit_reviews: int = 1000

    max_answer_chars: int = 2000
    max_form_bytes: int = 256 * 1024

    @property
    def package_names(self) -> tuple[str, ...]:
        from .sandbox.packages import parse_setting

        return parse_setting(self.sandbox_packages)

    @property
    def sqlalchemy_url(self) -> str:
        return self.database_url or f"sqlite:///{self.data_dir.resolve() / 'codecloze.db'}"
