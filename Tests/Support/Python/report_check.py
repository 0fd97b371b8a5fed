#!/usr/bin/env python3
"""Opens a report.html in headless Chromium and uses it as a person would, for ReportBrowserTests.

    report_check.py URL SCREENSHOT.png
    report_check.py serve:FOLDER SCREENSHOT.png   (FOLDER/report.html from a static server here)

Drives Chromium through devtools_pipe.py (real key presses and mouse clicks, over the DevTools
protocol on a pipe). Prints one JSON object with what it saw; the Swift test judges it.
"""
import functools, http.server, json, sys, threading

from devtools_pipe import Fatal, Page

url, screenshot = sys.argv[1], sys.argv[2]
if url.startswith("serve:"):
    # Any static server must do: this one only maps paths to files, on a port the system picks.
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass
    handler = functools.partial(Quiet, directory=url[len("serve:"):])
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://127.0.0.1:%d/report.html" % server.server_address[1]

page = None
try:
    page = Page(profile_prefix="report-check-")
    js, pump = page.js, page.pump

    def key(name, code, key_code, text=None):
        page.key(name, code, key_code, text, settle=0.05)

    def position():
        return js("({frame: Number(document.body.dataset.frame), playhead: Number(document.getElementById('playhead').getAttribute('x1')),"
                  " src: document.getElementById('frame').getAttribute('src'), label: document.getElementById('position').textContent})")

    page.open(url, attempts=100)
    pump(0.5)  # the first frame's picture loads
    seen = {"url": url, "start": position()}
    for _ in range(3):
        key("ArrowRight", "ArrowRight", 39)
    seen["after_three_right"] = position()
    key("ArrowLeft", "ArrowLeft", 37)
    seen["after_one_left"] = position()
    key(" ", "Space", 32, " ")
    pump(0.6)
    key(" ", "Space", 32, " ")
    seen["after_play_pause"] = position()
    seen["playing_after_pause"] = js("document.getElementById('play').textContent")
    key("Home", "Home", 36)
    seen["after_home"] = position()

    # A real click at the middle of the first `failed` mark.
    mark = js("(() => { const m = document.querySelector('#lanes .mark[data-kind=\"failed\"]'); if (!m) return null;"
              " const r = m.getBoundingClientRect(); m.scrollIntoView({block: 'center'});"
              " const s = m.getBoundingClientRect();"
              " return {x: s.left + s.width / 2, y: s.top + s.height / 2, frame: Number(m.dataset.frame)}; })()")
    seen["failed_mark"] = mark
    if mark:
        page.click_at(mark["x"], mark["y"], settle=0.3)
        seen["after_click"] = position()
    js("window.scrollTo(0, 0)")
    pump(0.3)
    seen["lanes_box"] = js("(() => { const r = document.getElementById('lanes').getBoundingClientRect();"
                           " return {x: r.left, y: r.top, width: r.width, height: r.height}; })()")
    seen["frame_box"] = js("(() => { const r = document.getElementById('frame').getBoundingClientRect();"
                           " return {x: r.left, y: r.top, width: r.width, height: r.height}; })()")
    seen["dom_errors"] = js("document.getElementById('errors').hidden ? '' : document.getElementById('errors').textContent")
    page.screenshot(screenshot)
    seen["errors"] = page.errors
    print(json.dumps(seen))
except Fatal as error:
    print(json.dumps({"fatal": str(error), "errors": page.errors if page else []}))
finally:
    if page:
        page.close()
