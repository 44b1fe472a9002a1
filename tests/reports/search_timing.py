"""How fast the HTML report's search answers, measured in a real browser (issue 31).

A keystroke is typed into the search box (an ``input`` event, as typing sends), and the time
runs until the results are updated on screen: the document count (``#f-count``, rewritten by
every filter run) has been written and the next frame has run. That includes any wait for
typing to pause and the filter's own work; ``work`` is the filter's own time (the page timer
callback that runs it). Each keystroke waits for the previous one's results, so the figures
are per keystroke, not a burst. Used by tests/reports/test_search_speed.py,
tests/reports/test_scale.py and scripts/report_scale.py.
"""

from __future__ import annotations

import statistics
from typing import Any

from tests.reports.browser import Browser

# typed one character at a time, then erased one at a time: narrowing and widening searches
WORD = "pytorchjob/bert-ft"

TYPE = """((word) => new Promise(resolve => {
  const box = document.getElementById('f-text'), count = document.getElementById('f-count');
  const keys = [], work = [], texts = [];
  const later = window.setTimeout.bind(window);
  let started = 0, ran = 0;
  // the page's timers, timed: the filter runs in the one the search box sets
  window.setTimeout = (fn, ms, ...args) => later(() => {
    const t0 = performance.now(); fn(...args); ran = performance.now() - t0; }, ms);
  const observer = new MutationObserver(() => {  // the count is rewritten by every filter run
    observer.takeRecords();
    const filtered = ran;
    texts.push(count.textContent);
    requestAnimationFrame(() => later(() => {  // after the frame that shows the results
      keys.push(performance.now() - started);
      work.push(filtered);
      next();
    }, 0));
  });
  observer.observe(count, {childList: true, characterData: true, subtree: true});
  const steps = [];
  for (let i = 1; i <= word.length; i++) steps.push(word.slice(0, i));
  for (let i = word.length - 1; i >= 0; i--) steps.push(word.slice(0, i));
  let step = 0;
  const next = () => {
    if (step >= steps.length) {
      observer.disconnect(); window.setTimeout = later; resolve({keys, work, texts}); return; }
    const value = steps[step++];
    later(() => {
      box.value = value;
      started = performance.now();
      box.dispatchEvent(new Event('input', {bubbles: true}));
    }, 50);
  };
  next();
}))"""


def measure(browser: Browser, word: str = WORD) -> dict[str, Any]:
    """Type ``word`` into the open report's search box and erase it again, a keystroke at a
    time; the milliseconds from each keystroke to its results on screen (``keys``), and
    their median and worst."""
    result = browser.evaluate(f"{TYPE}({word!r})")
    keys = [float(k) for k in result["keys"]]
    work = [float(w) for w in result["work"]]
    return {"keys": keys, "median": statistics.median(keys), "max": max(keys),
            "work_median": statistics.median(work), "work_max": max(work),
            "count": len(keys), "texts": result["texts"]}


OVERFLOW = """(() => {
  const page = document.scrollingElement.scrollWidth - innerWidth;
  const boxes = [...document.querySelectorAll('.scroll')].filter(b => b.offsetParent !== null)
    .map(b => b.scrollWidth - b.clientWidth);
  return [page, Math.max(0, ...boxes)];
})()"""


def overflow(browser: Browser) -> int:
    """Pixels the page, or a table in its scroll box, is wider than the window lets it be
    shown (0: nothing to scroll sideways)."""
    page, box = browser.evaluate(OVERFLOW)
    return max(0, int(page), int(box))
