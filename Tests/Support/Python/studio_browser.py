#!/usr/bin/env python3
"""Keeps one headless Chromium page open on the studio and does what the Swift test asks, for
StudioBrowserTests and bench/studio.sh.

    studio_browser.py URL

Reads one JSON command a line on stdin and answers one JSON line on stdout:
    {"op": "js", "expr": "...", "await": true}       → {"value": …}
    {"op": "wait", "expr": "...", "timeout": 5}      → {"value": …, "seconds": s} once truthy
    {"op": "key", "key": "ArrowRight", "code": "ArrowRight", "keyCode": 39, "shift": false, "text": null}
    {"op": "click", "selector": "#render"}           (a real mouse click at the element's middle)
    {"op": "screenshot", "path": "..."}
    {"op": "errors"}                                  → {"value": [console errors, exceptions, failed loads]}
    {"op": "quit"}
A failure answers {"fatal": "..."}. Drives Chromium through devtools_pipe.py, as report_check.py
does, so real key presses and clicks go through the browser's input pipeline.
"""
import json, sys, time

from devtools_pipe import Fatal, Page


def answer(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


page = None
try:
    page = Page(profile_prefix="studio-browser-")
    js, pump = page.js, page.pump
    page.open(sys.argv[1])
    answer({"ready": True})

    for line in sys.stdin:
        command = json.loads(line)
        op = command["op"]
        try:
            if op == "js":
                answer({"value": js(command["expr"], command.get("await", False))})
            elif op == "wait":
                start = time.time()
                limit = start + command.get("timeout", 5)
                value = None
                while time.time() < limit:
                    value = js(command["expr"])
                    if value:
                        break
                    pump(0.01)
                answer({"value": value, "seconds": time.time() - start})
            elif op == "key":
                page.key(command["key"], command["code"], command["keyCode"], command.get("text"),
                         shift=command.get("shift", False))
                answer({"value": True})
            elif op == "click":
                if page.click(command["selector"]):
                    answer({"value": True})
                else:
                    answer({"fatal": "no element " + command["selector"]})
            elif op == "screenshot":
                js("window.scrollTo(0, 0)")
                pump(0.2)
                page.screenshot(command["path"])
                answer({"value": True})
            elif op == "errors":
                pump(0.1)
                answer({"value": page.errors})
            elif op == "quit":
                answer({"value": True})
                break
            else:
                answer({"fatal": "unknown op " + op})
        except Fatal as error:
            answer({"fatal": str(error)})
except Fatal as error:
    answer({"fatal": str(error)})
finally:
    if page:
        page.close()
