"""One headless Chromium page driven over the DevTools protocol on --remote-debugging-pipe, for the
browser checks (report_check.py, studio_browser.py).

Chromium reads commands on file descriptor 3 and writes replies on 4, each message ending in
NUL, so Python's standard library is all this needs. Key presses and mouse clicks go through the
browser's input pipeline (Input.dispatch*Event), not synthetic DOM events. Console errors,
exceptions and failed loads are collected in `errors`, as the page's visitor would see them.
"""
import base64, json, os, select, shutil, subprocess, tempfile, time


class Fatal(Exception):
    """The browser or the page failed in a way the check cannot go on from."""


class Page:
    def __init__(self, profile_prefix="devtools-pipe-"):
        self.errors = []
        self._buffer = b""
        self._next_id = 0
        self._profile = profile = tempfile.mkdtemp(prefix=profile_prefix)
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def child_fds():
            # Move both ends out of the way first, so that one dup2 cannot clobber the other.
            a, b = os.dup(to_chrome_r) + 100, os.dup(from_chrome_w) + 100
            os.dup2(to_chrome_r, a); os.dup2(from_chrome_w, b)
            os.dup2(a, 3); os.dup2(b, 4)

        self._chrome = subprocess.Popen(
            ["chromium", "--headless", "--disable-gpu", "--no-sandbox", "--remote-debugging-pipe",
             "--hide-scrollbars", "--window-size=1280,900", "--force-device-scale-factor=1",
             "--no-first-run", "--user-data-dir=" + profile, "about:blank"],
            preexec_fn=child_fds, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r); os.close(from_chrome_w)
        try:
            target = self.send("Target.createTarget", url="about:blank")["targetId"]
            self.session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
            for domain in ("Runtime", "Log", "Page"):
                self.send(domain + ".enable", self.session)
        except BaseException:
            self.close()
            raise

    # MARK: - The protocol

    def _read_message(self, timeout):
        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._from_chrome], [], [], timeout)
            if not ready:
                return None
            chunk = os.read(self._from_chrome, 1 << 20)
            if not chunk:
                raise Fatal("chromium closed the pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def _note(self, message):
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            self.errors.append("exception: " + details.get("exception", {}).get("description", details.get("text", "")))
        elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
            self.errors.append("console.error: " + " ".join(str(a.get("value", a.get("description"))) for a in params["args"]))
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            self.errors.append("log: " + params["entry"]["text"] + " " + params["entry"].get("url", ""))

    def send(self, method, session=None, timeout=60, **params):
        """Sends one command and waits for its reply, noting the events that arrive meanwhile."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while time.time() < deadline:
            reply = self._read_message(1)
            if reply is None:
                continue
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise Fatal(method + ": " + json.dumps(reply["error"]))
                return reply.get("result", {})
            self._note(reply)
        raise Fatal("timed out in " + method)

    def pump(self, seconds):
        """Lets events (console messages, loads) arrive for a while."""
        end = time.time() + seconds
        while time.time() < end:
            message = self._read_message(max(0.005, end - time.time()))
            if message:
                self._note(message)

    # MARK: - What a visitor does

    def js(self, expression, awaiting=False):
        result = self.send("Runtime.evaluate", self.session, expression=expression, returnByValue=True,
                           awaitPromise=awaiting)
        if "exceptionDetails" in result:
            raise Fatal("evaluating " + expression + ": " + json.dumps(result["exceptionDetails"]))
        return result["result"].get("value")

    def open(self, url, attempts=300):
        """Navigates to `url` and waits until the page says it is ready (body[data-ready=true])."""
        self.send("Page.navigate", self.session, url=url)
        for _ in range(attempts):
            if self.js("document.body && document.body.dataset.ready === 'true'"):
                return
            self.pump(0.1)
        raise Fatal("the page never became ready; errors: " + json.dumps(self.errors))

    def key(self, name, code, key_code, text=None, shift=False, settle=0.02):
        modifiers = 8 if shift else 0
        down = dict(type="keyDown", key=name, code=code, modifiers=modifiers,
                    windowsVirtualKeyCode=key_code, nativeVirtualKeyCode=key_code)
        if text:
            down["text"] = text
        self.send("Input.dispatchKeyEvent", self.session, **down)
        self.send("Input.dispatchKeyEvent", self.session, type="keyUp", key=name, code=code,
                  modifiers=modifiers, windowsVirtualKeyCode=key_code)
        self.pump(settle)

    def click_at(self, x, y, settle=0.02):
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", self.session, type=kind, x=x, y=y, button="left", clickCount=1)
        self.pump(settle)

    def click(self, selector, settle=0.02):
        """A real click at the middle of the first element `selector` matches; False when none does."""
        box = self.js("(() => { const e = document.querySelector(%s); if (!e) return null; e.scrollIntoView({block: 'center'});"
                      " const r = e.getBoundingClientRect(); return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()"
                      % json.dumps(selector))
        if not box:
            return False
        self.click_at(box["x"], box["y"], settle)
        return True

    def screenshot(self, path):
        shot = self.send("Page.captureScreenshot", self.session, format="png")
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))

    def close(self):
        try:
            os.write(self._to_chrome, json.dumps({"id": 999999, "method": "Browser.close"}).encode() + b"\0")
            self._chrome.wait(10)
        except Exception:
            self._chrome.kill()
            self._chrome.wait()
        # Chromium writes some tens of megabytes of profile; a check leaves nothing behind in /tmp.
        shutil.rmtree(self._profile, ignore_errors=True)
