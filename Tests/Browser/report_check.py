#!/usr/bin/env python3
"""Opens a report.html in headless Chromium and uses it as a person would, for ReportBrowserTests.

    report_check.py URL SCREENSHOT.png
    report_check.py serve:FOLDER SCREENSHOT.png   (FOLDER/report.html from a static server here)

Drives Chromium over the DevTools protocol on --remote-debugging-pipe (file descriptors 3 and 4,
messages ending in NUL), so Python's standard library is all it needs: real key presses and
mouse clicks go through the browser's input pipeline, not synthetic DOM events. Prints one JSON
object with what it saw; the Swift test judges it.
"""
import base64, functools, http.server, json, os, select, subprocess, sys, tempfile, threading, time

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
profile = tempfile.mkdtemp(prefix="report-check-")
to_chrome_r, to_chrome_w = os.pipe()
from_chrome_r, from_chrome_w = os.pipe()


def child_fds():
    # Chromium reads commands on fd 3 and writes replies on fd 4. Move both ends out of the way
    # first, so that one dup2 cannot clobber the other.
    a, b = os.dup(to_chrome_r) + 100, os.dup(from_chrome_w) + 100
    os.dup2(to_chrome_r, a); os.dup2(from_chrome_w, b)
    os.dup2(a, 3); os.dup2(b, 4)


chrome = subprocess.Popen(
    ["chromium", "--headless", "--disable-gpu", "--no-sandbox", "--remote-debugging-pipe",
     "--hide-scrollbars", "--window-size=1280,900", "--force-device-scale-factor=1",
     "--no-first-run", "--user-data-dir=" + profile, "about:blank"],
    preexec_fn=child_fds, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.close(to_chrome_r); os.close(from_chrome_w)

buffer = b""
next_id = 0
errors = []        # console errors, exceptions and failed loads, as the page's visitor would see them
deadline = time.time() + 60


def read_message(timeout):
    global buffer
    while b"\0" not in buffer:
        ready, _, _ = select.select([from_chrome_r], [], [], timeout)
        if not ready:
            return None
        chunk = os.read(from_chrome_r, 1 << 20)
        if not chunk:
            raise SystemExit(json.dumps({"fatal": "chromium closed the pipe"}))
        buffer += chunk
    message, buffer = buffer.split(b"\0", 1)
    return json.loads(message)


def note(message):
    method, params = message.get("method"), message.get("params", {})
    if method == "Runtime.exceptionThrown":
        details = params["exceptionDetails"]
        errors.append("exception: " + details.get("exception", {}).get("description", details.get("text", "")))
    elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
        errors.append("console.error: " + " ".join(str(a.get("value", a.get("description"))) for a in params["args"]))
    elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
        errors.append("log: " + params["entry"]["text"] + " " + params["entry"].get("url", ""))


def send(method, session=None, **params):
    global next_id
    next_id += 1
    message = {"id": next_id, "method": method, "params": params}
    if session:
        message["sessionId"] = session
    os.write(to_chrome_w, json.dumps(message).encode() + b"\0")
    while time.time() < deadline:
        reply = read_message(1)
        if reply is None:
            continue
        if reply.get("id") == next_id:
            if "error" in reply:
                raise SystemExit(json.dumps({"fatal": method + ": " + json.dumps(reply["error"])}))
            return reply.get("result", {})
        note(reply)
    raise SystemExit(json.dumps({"fatal": "timed out in " + method}))


def pump(seconds):
    """Lets events (console messages, loads) arrive for a while."""
    end = time.time() + seconds
    while time.time() < end:
        message = read_message(max(0.01, end - time.time()))
        if message:
            note(message)


try:
    target = send("Target.createTarget", url="about:blank")["targetId"]
    session = send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
    for domain in ("Runtime", "Log", "Page"):
        send(domain + ".enable", session)

    def js(expression):
        result = send("Runtime.evaluate", session, expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise SystemExit(json.dumps({"fatal": "evaluating " + expression + ": " + json.dumps(result["exceptionDetails"])}))
        return result["result"].get("value")

    def key(name, code, key_code, text=None):
        down = dict(type="keyDown", key=name, code=code, windowsVirtualKeyCode=key_code, nativeVirtualKeyCode=key_code)
        if text:
            down["text"] = text
        send("Input.dispatchKeyEvent", session, **down)
        send("Input.dispatchKeyEvent", session, type="keyUp", key=name, code=code, windowsVirtualKeyCode=key_code)
        pump(0.05)

    def position():
        return js("({frame: Number(document.body.dataset.frame), playhead: Number(document.getElementById('playhead').getAttribute('x1')),"
                  " src: document.getElementById('frame').getAttribute('src'), label: document.getElementById('position').textContent})")

    send("Page.navigate", session, url=url)
    for _ in range(100):
        if js("document.body && document.body.dataset.ready === 'true'"):
            break
        pump(0.1)
    else:
        raise SystemExit(json.dumps({"fatal": "the page never became ready", "errors": errors}))
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
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            send("Input.dispatchMouseEvent", session, type=kind, x=mark["x"], y=mark["y"], button="left", clickCount=1)
        pump(0.3)
        seen["after_click"] = position()
    js("window.scrollTo(0, 0)")
    pump(0.3)
    seen["lanes_box"] = js("(() => { const r = document.getElementById('lanes').getBoundingClientRect();"
                           " return {x: r.left, y: r.top, width: r.width, height: r.height}; })()")
    seen["frame_box"] = js("(() => { const r = document.getElementById('frame').getBoundingClientRect();"
                           " return {x: r.left, y: r.top, width: r.width, height: r.height}; })()")
    seen["dom_errors"] = js("document.getElementById('errors').hidden ? '' : document.getElementById('errors').textContent")
    shot = send("Page.captureScreenshot", session, format="png")
    with open(screenshot, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    seen["errors"] = errors
    print(json.dumps(seen))
finally:
    try:
        os.write(to_chrome_w, json.dumps({"id": 999999, "method": "Browser.close"}).encode() + b"\0")
        chrome.wait(10)
    except Exception:
        chrome.kill()
