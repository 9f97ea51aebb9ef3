"""Random masks: a pure function of (snippet version, rate, seed), so no page state is kept."""

import random

RATE_MIN, RATE_MAX = 10, 50
SEED_MAX = 2**53 - 1  # survives a round trip through JavaScript numbers


def blank_count(rate: int, eligible: int) -> int:
    """k = round(rate × eligible), at least 1 (none when nothing is eligible)."""
    if eligible == 0:
        return 0
    return min(eligible, max(1, round(rate * eligible / 100)))


def random_mask(version: str, eligible: int, rate: int, seed: int) -> tuple[int, ...]:
    """Sorted indices of the eligible spans to hide."""
    # A str seed is hashed with SHA-512 by `random`, stable across processes and platforms.
    rng = random.Random(f"{version}:{rate}:{seed}")
    return tuple(sorted(rng.sample(range(eligible), blank_count(rate, eligible))))


_SEEDS = random.Random()  # seeded from the OS once; seeds need to differ, not to be secret


def new_seed() -> int:
    return _SEEDS.randrange(SEED_MAX)
