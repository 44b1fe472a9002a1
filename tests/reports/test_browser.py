"""The HTML report in headless Chromium at 1400 and 800 px.

Expectations (measured from element geometry through the DevTools protocol, and saved as
screenshots in build/ for a person to look at):
- the overview (status counts and the findings-by-code table) is in the first screen;
- no code, name, severity or status cell wraps (its text sits on one line, at both widths);
- the side-by-side diff stays aligned (old and new cells of a row share their top);
- the filter bar stays at the top of the window after scrolling;
- the code filter hides documents without that code; no console or CSP errors.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.goldens import FIXTURES, ROOT
from tests.reports.browser import CHROMIUM, Browser
from tests.reports.helpers import cli
from tests.reports.hostile import write_tree

pytestmark = pytest.mark.skipif(CHROMIUM is None,
                                reason="chromium is not installed (.ci/run installs it)")

CASES = [FIXTURES / "pytorchjob" / "full.in.yaml", FIXTURES / "tfjob" / "parameter-server.in.yaml",
         FIXTURES / "mpijob-v2beta1" / "pi.in.yaml", FIXTURES / "pytorchjob" / "minimal.in.yaml"]

GEOMETRY = """(() => {
  const lines = e => {  // line boxes of the element's text: rects that do not overlap vertically
    const walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
    const rects = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const r = document.createRange(); r.selectNodeContents(n);
      rects.push(...[...r.getClientRects()].filter(x => x.width > 0));
    }
    rects.sort((a, b) => a.top - b.top);
    let count = 0, bottom = -Infinity;
    for (const r of rects) {
      if (r.top >= bottom - 1) { count++; }
      bottom = Math.max(bottom, r.bottom);
    }
    return count; };
  const wrapped = [...document.querySelectorAll('.nw')].filter(e => e.offsetParent !== null)
    .filter(e => lines(e) > 1).map(e => e.textContent);
  const rows = [...document.querySelectorAll('tr.dl')].filter(r => r.offsetParent !== null);
  const misaligned = rows.filter(r => {
    const cells = r.querySelectorAll('td');
    return cells.length >= 2 &&
      Math.abs(cells[0].getBoundingClientRect().top - cells[cells.length - 1]
               .getBoundingClientRect().top) > 1; }).length;
  const overview = document.getElementById('overview').getBoundingClientRect();
  return {wrapped, misaligned, rows: rows.length, overviewTop: overview.top,
          overviewHeight: overview.height, height: innerHeight,
          nowrapCells: document.querySelectorAll('.nw').length};
})()"""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("browser")
    write_tree(work / "hostile", "x\n::error::pwned`</details><img src=x>", "k|`", "v<b>",
               "a ``` b")
    run = cli("convert", *CASES, work / "hostile", "-o", work / "out", "--report",
              work / "r.html")
    assert run.returncode == 1, run.stderr
    return work / "r.html"


@pytest.mark.parametrize("width", [1400, 800])
def test_layout_at_width(report: Path, width: int) -> None:
    build = ROOT / "build"
    build.mkdir(exist_ok=True)
    with Browser() as browser:
        browser.call("Log.enable", session=True)
        browser.open(report.as_uri(), width)
        assert browser.evaluate("document.body.dataset.ready") == "1"
        browser.evaluate("document.querySelectorAll('details.doc-body')"
                         ".forEach(d => d.open = true); new Promise(r => setTimeout(r, 200))")
        geometry = browser.evaluate(GEOMETRY)
        browser.evaluate("scrollTo(0, 0)")
        browser.screenshot(build / f"report-{width}.png")
        assert geometry["nowrapCells"] > 0
        assert geometry["wrapped"] == [], geometry["wrapped"][:10]
        assert geometry["rows"] > 0
        assert geometry["misaligned"] == 0
        assert 0 <= geometry["overviewTop"] < geometry["height"] / 2
        assert geometry["overviewHeight"] > 0
        browser.evaluate("scrollTo(0, 4000)")
        top = browser.evaluate("document.getElementById('filters').getBoundingClientRect().top")
        assert abs(top) < 2
        assert browser.console_errors() == []


def test_code_filter_hides_other_documents(report: Path) -> None:
    with Browser() as browser:
        browser.open(report.as_uri() + "#code=M101", 1400)
        shown = browser.evaluate("[...document.querySelectorAll('section.doc')]"
                                 ".filter(s => s.offsetParent !== null)"
                                 ".map(s => s.dataset.codes)")
        assert shown
        assert all("M101" in codes.split() for codes in shown), shown
        everything = browser.evaluate("document.querySelectorAll('section.doc').length")
        assert everything > len(shown)
