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
A failure answers {"fatal": "..."}. Drives Chromium over --remote-debugging-pipe as
report_check.py does, so real key presses and clicks go through the browser's input pipeline.
"""
import base64, json, os, select, subprocess, sys, tempfile, time

url = sys.argv[1]
profile = tempfile.mkdtemp(prefix="studio-browser-")
to_chrome_r, to_chrome_w = os.pipe()
from_chrome_r, from_chrome_w = os.pipe()


def child_fds():
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
errors = []


def answer(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


class Fatal(Exception):
    pass


def read_message(timeout):
    global buffer
    while b"\0" not in buffer:
        ready, _, _ = select.select([from_chrome_r], [], [], timeout)
        if not ready:
            return None
        chunk = os.read(from_chrome_r, 1 << 20)
        if not chunk:
            raise Fatal("chromium closed the pipe")
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


def send(method, session=None, timeout=60, **params):
    global next_id
    next_id += 1
    message = {"id": next_id, "method": method, "params": params}
    if session:
        message["sessionId"] = session
    os.write(to_chrome_w, json.dumps(message).encode() + b"\0")
    deadline = time.time() + timeout
    while time.time() < deadline:
        reply = read_message(1)
        if reply is None:
            continue
        if reply.get("id") == next_id:
            if "error" in reply:
                raise Fatal(method + ": " + json.dumps(reply["error"]))
            return reply.get("result", {})
        note(reply)
    raise Fatal("timed out in " + method)


def pump(seconds):
    end = time.time() + seconds
    while time.time() < end:
        message = read_message(max(0.005, end - time.time()))
        if message:
            note(message)


try:
    target = send("Target.createTarget", url="about:blank")["targetId"]
    session = send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
    for domain in ("Runtime", "Log", "Page"):
        send(domain + ".enable", session)

    def js(expression, awaiting=False):
        result = send("Runtime.evaluate", session, expression=expression, returnByValue=True, awaitPromise=awaiting)
        if "exceptionDetails" in result:
            raise Fatal("evaluating " + expression + ": " + json.dumps(result["exceptionDetails"]))
        return result["result"].get("value")

    send("Page.navigate", session, url=url)
    for _ in range(300):
        if js("document.body && document.body.dataset.ready === 'true'"):
            break
        pump(0.1)
    else:
        raise Fatal("the page never became ready; errors: " + json.dumps(errors))
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
                modifiers = 8 if command.get("shift") else 0
                down = dict(type="keyDown", key=command["key"], code=command["code"], modifiers=modifiers,
                            windowsVirtualKeyCode=command["keyCode"], nativeVirtualKeyCode=command["keyCode"])
                if command.get("text"):
                    down["text"] = command["text"]
                send("Input.dispatchKeyEvent", session, **down)
                send("Input.dispatchKeyEvent", session, type="keyUp", key=command["key"], code=command["code"],
                     modifiers=modifiers, windowsVirtualKeyCode=command["keyCode"])
                pump(0.02)
                answer({"value": True})
            elif op == "click":
                box = js("(() => { const e = document.querySelector(%s); if (!e) return null; e.scrollIntoView({block: 'center'});"
                         " const r = e.getBoundingClientRect(); return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()"
                         % json.dumps(command["selector"]))
                if not box:
                    answer({"fatal": "no element " + command["selector"]})
                    continue
                for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
                    send("Input.dispatchMouseEvent", session, type=kind, x=box["x"], y=box["y"], button="left", clickCount=1)
                pump(0.02)
                answer({"value": True})
            elif op == "screenshot":
                js("window.scrollTo(0, 0)")
                pump(0.2)
                shot = send("Page.captureScreenshot", session, format="png")
                with open(command["path"], "wb") as f:
                    f.write(base64.b64decode(shot["data"]))
                answer({"value": True})
            elif op == "errors":
                pump(0.1)
                answer({"value": errors})
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
    try:
        os.write(to_chrome_w, json.dumps({"id": 999999, "method": "Browser.close"}).encode() + b"\0")
        chrome.wait(10)
    except Exception:
        chrome.kill()
