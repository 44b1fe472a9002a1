"""The HTML report in headless Chromium at 1400 and 800 px (and the quick start's at 390 px).

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


GROUPED = """(() => {
  const data = JSON.parse(document.getElementById('report-data').textContent);
  return [...document.querySelectorAll('section.doc')].map(s => {
    const d = data.d[+s.querySelector('details.doc-body').dataset.i];
    const keys = new Set(d.f.map(f => [f[0], f[1], f[4], f[5]].join(' ')));
    return [s.id, keys.size, s.querySelectorAll('tr.finding').length];
  }).filter(x => x[1] !== x[2]);
})()"""


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The README's quick start: every fixture, companion runtimes, an HTML report."""
    work = tmp_path_factory.mktemp("quickstart")
    run = cli("convert", *sorted(FIXTURES.glob("*/*.in.yaml")), "--companion-runtimes",
              "-o", work / "out", "--report", work / "report.html")
    assert run.returncode in (0, 1), run.stderr[-2000:]
    return work / "report.html"


@pytest.mark.parametrize("width", [1400, 390])
def test_quickstart_expanded_fits_the_width(quickstart: Path, width: int) -> None:
    """Issue 31: "expand all" opens every card; no horizontal overflow, also on a phone
    (390 px); identical findings of a card are one row (one per code, message and fix)."""
    build = ROOT / "build"
    build.mkdir(exist_ok=True)
    with Browser() as browser:
        browser.call("Log.enable", session=True)
        browser.open(quickstart.as_uri(), width)
        assert browser.evaluate("document.body.dataset.ready") == "1"
        sections = browser.evaluate("document.querySelectorAll('section.doc').length")
        browser.evaluate("document.getElementById('f-expand').click();"
                         "new Promise(r => setTimeout(r, 300))")
        opened = browser.evaluate("document.querySelectorAll('details.doc-body[open]').length")
        assert opened == sections > 20
        assert browser.evaluate("document.querySelectorAll('tr.finding').length") > 0
        assert browser.evaluate(GROUPED) == []
        widths = browser.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")
        assert widths[0] <= widths[1], widths
        browser.evaluate("scrollTo(0, 0)")
        browser.screenshot(build / f"quickstart-{width}.png")
        browser.evaluate("document.getElementById('f-expand').click()")
        assert browser.evaluate("document.querySelectorAll('details.doc-body[open]').length") \
            == 0
        assert browser.console_errors() == []


@pytest.mark.parametrize("width", [1400, 390])
def test_anchor_is_not_under_the_filter_bar(quickstart: Path, width: int) -> None:
    """A link to a card (``#doc-…``) or to a code's row shows it below the sticky bar."""
    with Browser() as browser:
        browser.open(quickstart.as_uri(), width)
        ids = browser.evaluate("[...document.querySelectorAll('section.doc')].map(s => s.id)")
        code = browser.evaluate("document.querySelector('tr[id^=code-]').id")
    for anchor in (ids[len(ids) // 2], ids[-3], code):
        with Browser() as browser:
            browser.open(quickstart.as_uri() + "#" + anchor, width)
            browser.evaluate("new Promise(r => setTimeout(r, 300))")
            bar = browser.evaluate("document.getElementById('filters')"
                                   ".getBoundingClientRect().bottom")
            top = browser.evaluate(f"document.getElementById('{anchor}')"
                                   ".getBoundingClientRect().top")
            assert top >= bar - 1, (anchor, top, bar)
            assert top < browser.evaluate("innerHeight") / 2, (anchor, top)


def test_finding_codes_link_to_their_explanation(quickstart: Path) -> None:
    with Browser() as browser:
        browser.open(quickstart.as_uri(), 1400)
        browser.evaluate("document.querySelector('details.doc-body').open = true;"
                         "new Promise(r => setTimeout(r, 200))")
        links = browser.evaluate("[...document.querySelectorAll('tr.finding a')]"
                                 ".map(a => a.getAttribute('href'))")
        assert links
        for link in links:
            assert link.startswith("#code-"), link
            assert browser.evaluate(f"!!document.getElementById('{link[1:]}')"), link
