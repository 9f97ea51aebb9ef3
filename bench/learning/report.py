"""The benchmark's tables: per cell and policy, mean recall and share known (p ≥ 0.9) at +0/+7/+30 days,
and the difference to the paired random learner at +7 days (mean ± standard deviation over pairs)."""

from .models import MODELS
from .sim import HORIZONS


def table(results: list[dict]) -> str:
    lines = [
        "| model | regime | policy | recall +0 | +7 | +30 | known +0 | +7 | +30 | Δ recall +7 vs random "
        "(pairs: mean ± sd) | Δ known +7 |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for cell in results:
        outcomes, base = cell["outcomes"], cell["outcomes"]["random"][7]
        for name, by_h in outcomes.items():
            recall = [by_h[h][:, 0].mean() for h in HORIZONS]
            known = [by_h[h][:, 1].mean() for h in HORIZONS]
            rel = (by_h[7][:, 0] - base[:, 0]) / base[:, 0] * 100
            ratio = (by_h[7][:, 0].mean() / base[:, 0].mean() - 1) * 100
            dknown = (by_h[7][:, 1] - base[:, 1]).mean() * 100
            lines.append(
                f"| {MODELS[cell['model']].name} | {cell['regime']} | {name} | "
                + " | ".join(f"{x:.3f}" for x in recall)
                + " | "
                + " | ".join(f"{x:.0%}" for x in known)
                + f" | {ratio:+.1f} % ({rel.mean():+.1f} ± {rel.std():.1f}) | {dknown:+.1f} pp |"
            )
    return "\n".join(lines)


def check(results: list[dict], chosen: str) -> list[str]:
    """The issue's two required numbers, as failures (empty: both hold)."""
    failures = []
    for cell in results:
        base, mine = cell["outcomes"]["random"][7][:, 0].mean(), cell["outcomes"][chosen][7][:, 0].mean()
        gain = (mine / base - 1) * 100
        if gain < -2:
            failures.append(f"{cell['model']}/{cell['regime']}: {gain:+.1f} % below random")
        if cell["model"] == "fsrs" and cell["regime"] in ("heavy", "light") and gain < 5:
            failures.append(f"{cell['model']}/{cell['regime']}: only {gain:+.1f} % above random")
    return failures
