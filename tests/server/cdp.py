"""A small Chrome DevTools Protocol client for headless Chromium over
--remote-debugging-pipe (the browser reads commands from its fd 3 and
writes answers and events to fd 4, each a JSON text ended by a NUL byte),
so the page tests need only the standard library: no websocket module, no
debugging port another process could reach.

Browser(profile_dir).page() -> Page: .call(method, **params) on the page's
session (flat mode), .events (every event seen, in order), .eval(js) (the
value, awaiting promises; a thrown exception raises), .wait(js, timeout)
(polls until js is truthy), .screenshot(path), .close().
"""
import base64
import json
import os
import shutil
import subprocess
import time


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


class CdpError(Exception):
    pass


class Browser:
    def __init__(self, profile_dir, width=1280, height=900):
        exe = find_chromium()
        if not exe:
            raise CdpError("chromium is not installed")
        os.makedirs(profile_dir, exist_ok=True)
        to_browser_r, self._w = os.pipe()
        self._r, from_browser_w = os.pipe()
        # the browser wants its ends as fds 3 and 4
        self.proc = subprocess.Popen(
            [exe, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--user-data-dir=" + profile_dir, "--window-size=%d,%d" % (width, height),
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(profile_dir, "chromium.log"), "wb"),
            # close_fds runs after preexec_fn: keep 3 and 4 open
            pass_fds=(3, 4, to_browser_r, from_browser_w),
            preexec_fn=lambda: (os.dup2(to_browser_r, 3), os.dup2(from_browser_w, 4)))
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buf = b""
        self._id = 0
        self.events = []

    def _send(self, msg):
        data = json.dumps(msg).encode() + b"\0"
        while data:
            n = os.write(self._w, data)
            data = data[n:]

    def _read(self, timeout):
        deadline = time.time() + timeout
        while b"\0" not in self._buf:
            import select
            left = deadline - time.time()
            if left <= 0:
                raise CdpError("no answer from chromium in %.0f s" % timeout)
            rl, _, _ = select.select([self._r], [], [], left)
            if rl:
                chunk = os.read(self._r, 1 << 20)
                if not chunk:
                    raise CdpError("chromium closed its pipe (exit %s)" % self.proc.poll())
                self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    # 90 s: on a loaded 2-core machine chromium's first page can take over 30 s
    def call(self, method, session=None, timeout=90, **params):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        self._send(msg)
        while True:
            m = self._read(timeout)
            if m.get("id") == self._id:
                if "error" in m:
                    raise CdpError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def pump(self, seconds):
        """Reads events for a while (they arrive only while we read)."""
        end = time.time() + seconds
        while time.time() < end:
            try:
                m = self._read(max(0.01, end - time.time()))
            except CdpError as x:
                if "no answer" in str(x):
                    return
                raise
            if "method" in m:
                self.events.append(m)

    def page(self):
        t = self.call("Target.createTarget", url="about:blank")["targetId"]
        s = self.call("Target.attachToTarget", targetId=t, flatten=True)["sessionId"]
        return Page(self, s)

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except (CdpError, OSError):
            pass
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._r, self._w):
            try:
                os.close(fd)
            except OSError:
                pass


class Page:
    def __init__(self, browser, session):
        self.b = browser
        self.s = session

    def call(self, method, **params):
        return self.b.call(method, session=self.s, **params)

    @property
    def events(self):
        return [e for e in self.b.events if e.get("sessionId") == self.s]

    def eval(self, js):
        r = self.call("Runtime.evaluate", expression=js, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise CdpError("page exception: %s" % d.get("exception", {}).get("description", d.get("text")))
        return r["result"].get("value")

    def wait(self, js, timeout=20):
        end = time.time() + timeout
        while True:
            v = self.eval(js)
            if v:
                return v
            if time.time() > end:
                raise CdpError("timed out waiting for: %s" % js)
            time.sleep(0.1)

    def navigate(self, url):
        self.call("Page.enable")
        self.call("Network.enable")
        self.call("Page.navigate", url=url)
        self.wait("document.readyState === 'complete'")

    def key(self, key, code, keycode, modifiers=0, text=None):
        """One key press (down and up); modifiers: 2 = Ctrl."""
        for t in ("keyDown", "keyUp"):
            p = {"type": t if text is None or t == "keyUp" else "keyDown", "key": key, "code": code,
                 "windowsVirtualKeyCode": keycode, "modifiers": modifiers}
            if text is not None and t == "keyDown":
                p["text"] = text
            self.call("Input.dispatchKeyEvent", **p)

    def screenshot(self, path):
        r = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))
        return path
