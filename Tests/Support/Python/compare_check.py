#!/usr/bin/env python3
"""Opens a compare.html in headless Chromium and uses it as a person would, for CompareBrowserTests.

    compare_check.py URL SCREENSHOT.png

Drives Chromium through devtools_pipe.py (real key presses and mouse clicks). Prints one JSON
object with what it saw; the Swift test judges it.
"""
import json, sys

from devtools_pipe import Fatal, Page

url, screenshot = sys.argv[1], sys.argv[2]
page = None
try:
    page = Page(profile_prefix="compare-check-")
    js = page.js

    def key(name, code, key_code, text=None):
        page.key(name, code, key_code, text, settle=0.05)

    def state():
        return js("({step: Number(document.body.dataset.step), position: document.getElementById('position').textContent,"
                  " a: (document.getElementById('picture-a') || {}).src || null,"
                  " a_loaded: !!document.getElementById('picture-a') && document.getElementById('picture-a').naturalWidth > 0,"
                  " b_loaded: !!document.getElementById('picture-b') && document.getElementById('picture-b').naturalWidth > 0,"
                  " diff: (document.getElementById('picture-diff') || {}).src || null,"
                  " diff_loaded: !!document.getElementById('picture-diff') && document.getElementById('picture-diff').naturalWidth > 0,"
                  " playhead: Number(document.querySelector('#curve .playhead').getAttribute('x1'))})")

    page.open(url, attempts=100)
    page.pump(0.3)
    seen = {"start": state()}
    for _ in range(3):
        key("ArrowRight", "ArrowRight", 39)
    page.pump(0.2)
    seen["after_three_right"] = state()
    key("n", "KeyN", 78, "n")
    page.pump(0.3)
    seen["after_next_difference"] = state()
    key("End", "End", 35)
    seen["after_end"] = state()
    key("Home", "Home", 36)
    seen["after_home"] = state()
    worst = js("(() => { const m = document.querySelector('#curve .worst'); return m ? Number(m.dataset.step) : null; })()")
    seen["worst_step"] = worst
    if worst is not None and page.click("#curve .worst", settle=0.3):
        seen["after_worst_click"] = state()
    key("Home", "Home", 36)
    item = js("(() => { const m = document.querySelector('#trace-list li'); return m ? Number(m.dataset.step) : null; })()")
    seen["trace_item_step"] = item
    if item is not None and page.click("#trace-list li", settle=0.3):
        seen["after_trace_click"] = state()
    seen["lane_marks"] = js("document.querySelectorAll('#lanes .mark').length")
    seen["alignment_cells"] = js("[...document.querySelectorAll('#alignment rect')].map(r => r.getAttribute('class'))")
    seen["verdict"] = js("document.getElementById('verdict').textContent")
    seen["dom_errors"] = js("document.getElementById('errors').hidden ? '' : document.getElementById('errors').textContent")
    page.screenshot(screenshot)
    seen["errors"] = page.errors
    print(json.dumps(seen))
except Fatal as error:
    print(json.dumps({"fatal": str(error), "errors": page.errors if page else []}))
finally:
    if page:
        page.close()
