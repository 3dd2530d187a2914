"""axe-core in the page under test. The script comes from PyPI's axe-playwright-python (it
ships axe.min.js); selenium injects it, so no third-party code lives in this repository."""
import json
from pathlib import Path

import axe_playwright_python

AXE_SOURCE = (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text()
# WCAG 2.0, 2.1 and 2.2, levels A and AA.
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
BLOCKING = {"serious", "critical"}


def axe_violations(driver, context=None):
    """Runs axe on the page (or the element matching `context`); returns its violations."""
    if not driver.execute_script("return Boolean(window.axe)"):
        driver.execute_script(AXE_SOURCE)
    result = driver.execute_async_script("""
        const [context, tags, done] = arguments;
        axe.run(context || document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] })
            .then((r) => done(JSON.stringify(r.violations)), (e) => done(JSON.stringify({ error: String(e) })));
    """, context, WCAG_TAGS)
    violations = json.loads(result)
    if isinstance(violations, dict):
        raise AssertionError(f"axe failed: {violations['error']}")
    return violations


def blocking(violations):
    return [v for v in violations if v["impact"] in BLOCKING]


def describe(violations):
    lines = []
    for violation in violations:
        lines.append(f"{violation['impact']} {violation['id']}: {violation['help']}")
        for node in violation["nodes"][:6]:
            summary = (node.get("failureSummary") or "").replace("\n", " ")
            lines.append(f"    {node['target']} {summary[:220]}")
    return "\n".join(lines)
