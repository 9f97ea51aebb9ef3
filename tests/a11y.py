"""axe-core (as vendored by axe-playwright-python) over a page, in each colour scheme."""

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

AXE = Axe()
BLOCKING = ("serious", "critical")
SCHEMES = ("light", "dark")


def serious_violations(page: Page) -> list[str]:
    """axe's serious and critical findings on the page as it stands, one line per rule."""
    results = AXE.run(page).response
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at "
        + "; ".join(
            " ".join(node["target"]) + " → " + node.get("failureSummary", "").replace("\n", " ")
            for node in v["nodes"][:2]
        )
        for v in results["violations"]
        if v["impact"] in BLOCKING
    ]


def violations_in_both_schemes(page: Page, name: str) -> list[str]:
    """The page checked as the system's light and dark settings show it."""
    found = []
    for scheme in SCHEMES:
        page.emulate_media(color_scheme=scheme)
        found += [f"{name} [{scheme}] {line}" for line in serious_violations(page)]
    page.emulate_media(color_scheme="light")
    return found
