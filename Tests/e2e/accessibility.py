"""axe-core (4.9, from PyPI's selenium-axe-python) run in the page under test."""
import os

import selenium_axe_python

AXE = os.path.join(os.path.dirname(selenium_axe_python.__file__), "axe-core", "axe.min.js")


def axe_violations(driver, impacts=None):
    """Every violation axe-core finds, as `id (impact): help at targets`; with `impacts`, only those."""
    with open(AXE, encoding="utf8") as handle:
        driver.execute_script(handle.read())
    driver.set_script_timeout(30)
    found = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        axe.run(document).then((results) => done(results.violations.map((v) =>
            [v.impact, `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`])));""")
    return [text for impact, text in found if impacts is None or impact in impacts]
