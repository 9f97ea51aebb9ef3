"""axe-core (as vendored by axe-playwright-python) over a page, in each colour scheme."""

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

AXE = Axe()
BLOCKING = ("serious", "critical")
SCHEMES = ("light", "dark")
# What a colour scheme changes: colours. The other scheme is checked for these rules alone (the
# structure, names and roles axe checks are the same in both).
COLOUR_RULES = {"runOnly": {"type": "rule", "values": ["color-contrast", "link-in-text-block"]}}


def serious_violations(page: Page, options: dict | None = None) -> list[str]:
    """axe's serious and critical findings on the page as it stands, one line per rule."""
    results = (AXE.run(page, options=options) if options else AXE.run(page)).response
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
        options = None if scheme == SCHEMES[0] else {**COLOUR_RULES, "resultTypes": ["violations"]}
        found += [f"{name} [{scheme}] {line}" for line in serious_violations(page, options)]
    page.emulate_media(color_scheme="light")
    return found
