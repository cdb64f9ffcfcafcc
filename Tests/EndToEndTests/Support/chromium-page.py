#!/usr/bin/env python3
"""Acts on a page in headless Chromium as a person would, through the DevTools protocol
over --remote-debugging-pipe (no port, no websocket):

    chromium-page.py CHROMIUM_ARGS_JSON URL STEPS_JSON

opens URL, then runs each step in order: {"until": JS} evaluates JS every 0.1 s until it
is true (10 s at most; values come back as JSON, so a DOM node is `{}`: test with `!!`),
{"eval": JS} evaluates it once. Prints the last value as JSON and exits 0, or prints why
and exits 1. `window.confirm` answers yes, as a person who clicked OK would.

Debian's /usr/bin/chromium is a shell script whose sourced settings close the pipe's
descriptors: give the binary itself (/usr/lib/chromium/chromium).
"""
import json
import os
import subprocess
import sys
import time


class Browser:
    def __init__(self, argv):
        to_chromium, self.writer = os.pipe()
        self.reader, from_chromium = os.pipe()

        def wire():
            # The protocol pipe is fd 3 (Chromium reads) and fd 4 (it writes); moved out
            # of the way first, as either end may be 3 or 4 already. dup2 leaves the
            # copies open across exec (pipes are made close-on-exec).
            reading, writing = os.dup(to_chromium), os.dup(from_chromium)
            os.dup2(reading, 3)
            os.dup2(writing, 4)

        self.process = subprocess.Popen(argv + ["--remote-debugging-pipe", "about:blank"], preexec_fn=wire,
                                        close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chromium)
        os.close(from_chromium)
        self.next_id = 0
        self.buffer = b""

    def call(self, method, params=None, session=None, timeout=10):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.writer, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            while b"\0" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self.next_id:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply.get("result", {})
            chunk = os.read(self.reader, 65536)
            if not chunk:
                raise RuntimeError("Chromium closed the protocol pipe")
            self.buffer += chunk
        raise RuntimeError(f"{method}: no answer in {timeout} s")

    def close(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def main():
    argv, url, steps = json.loads(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
    browser = Browser(argv)
    try:
        target = browser.call("Target.createTarget", {"url": url})["targetId"]
        session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

        def evaluate(expression):
            browser.call("Runtime.evaluate", {"expression": "window.confirm = () => true"}, session)
            result = browser.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                       "awaitPromise": True}, session)
            if "exceptionDetails" in result:
                raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
            return result["result"].get("value")

        value = None
        for step in steps:
            if "until" in step:
                deadline = time.monotonic() + 10
                while not (value := evaluate(step["until"])):
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"never true: {step['until']}")
                    time.sleep(0.1)
            else:
                value = evaluate(step["eval"])
        print(json.dumps(value))
    except (RuntimeError, OSError, KeyError, ValueError) as error:
        print(f"chromium-page: {error}", file=sys.stderr)
        sys.exit(1)
    finally:
        browser.close()


if __name__ == "__main__":
    main()
