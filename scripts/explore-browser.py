#!/usr/bin/env python3
"""Drives the explorer page in headless Chromium over the DevTools protocol (standard library
only: a minimal WebSocket client below) and checks what the page shows against the command line.

usage: explore-browser.py URL TBKIT BOOK TABLES_DIR... --screenshot PNG

Clicks squares with real mouse events (Input.dispatchMouseEvent at the squares' positions): plays
1. e4 (click, click) e5 (drag), checks the book table against `tbkit book probe --json`, goes back
and forward; then sets a KRvK FEN, plays Ra6+ by clicks, and checks the verdict and the move table
against `tbkit probe --json`. Exits 1 on any mismatch.
"""
import base64
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request


class WebSocket:
    """Just enough of RFC 6455 for the DevTools protocol: text frames, client-side masking."""

    def __init__(self, url):
        m = re.match(r"ws://([^:/]+):(\d+)(/.*)", url)
        self.sock = socket.create_connection((m.group(1), int(m.group(2))), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {m.group(3)} HTTP/1.1\r\nHost: {m.group(1)}:{m.group(2)}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise RuntimeError("websocket: connection closed during the handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError("websocket: handshake refused: " + head.decode(errors="replace"))

    def _read(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise RuntimeError("websocket: connection closed")
            data += chunk
        return data

    def send(self, text):
        payload = text.encode()
        header = bytearray([0x81])
        n = len(payload)
        if n < 126:
            header.append(0x80 | n)
        elif n < 65536:
            header.append(0x80 | 126)
            header += n.to_bytes(2, "big")
        else:
            header.append(0x80 | 127)
            header += n.to_bytes(8, "big")
        mask = os.urandom(4)
        header += mask
        self.sock.sendall(bytes(header) + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def receive(self):
        message = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = int.from_bytes(self._read(2), "big")
            elif n == 127:
                n = int.from_bytes(self._read(8), "big")
            payload = self._read(n)
            opcode = b0 & 0x0F
            if opcode == 0x8:
                raise RuntimeError("websocket: closed by the browser")
            if opcode in (0x9, 0xA):  # ping/pong: the browser sends none unasked
                continue
            message += payload
            if b0 & 0x80:
                return message.decode()


class Page:
    def __init__(self, ws):
        self.ws = ws
        self.next_id = 0

    def call(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.receive())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})

    def js(self, expression):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"page script failed: {expression}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def wait_for(self, expression, what, timeout=20):
        end = time.time() + timeout
        # False while the page is still loading (document.body may not exist yet).
        guarded = f"(() => {{ try {{ return !!({expression}); }} catch (e) {{ return false; }} }})()"
        while time.time() < end:
            if self.js(guarded):
                return
            time.sleep(0.05)
        raise RuntimeError(f"timed out waiting for {what}")

    def center(self, selector):
        r = self.js(f"(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect();"
                    f" return [r.x + r.width / 2, r.y + r.height / 2]; }})()")
        return r[0], r[1]

    def mouse(self, kind, x, y):
        self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left" if kind != "mouseMoved" else "none",
                  buttons=1 if kind != "mouseReleased" else 0, clickCount=1)

    def click(self, selector):
        x, y = self.center(selector)
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y)
        self.mouse("mouseReleased", x, y)

    def drag(self, a, b):
        (x0, y0), (x1, y1) = self.center(a), self.center(b)
        self.mouse("mouseMoved", x0, y0)
        self.mouse("mousePressed", x0, y0)
        for i in range(1, 6):
            self.call("Input.dispatchMouseEvent", type="mouseMoved", x=x0 + (x1 - x0) * i / 5, y=y0 + (y1 - y0) * i / 5,
                      button="left", buttons=1)
        self.mouse("mouseReleased", x1, y1)

    def settled(self, fen):
        self.wait_for(f"document.body.dataset.loading === '0' && document.body.dataset.fen === {json.dumps(fen)}", f"the page at {fen}")

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))


failures = []


def check(what, got, expected):
    if got == expected:
        print(f"ok: {what}")
    else:
        failures.append(what)
        print(f"FAIL: {what}\n  page: {got}\n  cli:  {expected}")


def tbkit_json(tbkit, *args):
    out = subprocess.run([tbkit, *args, "--json"], capture_output=True, text=True)
    if out.returncode not in (0, 5):
        raise RuntimeError(f"tbkit {' '.join(args)}: exit {out.returncode}: {out.stderr}")
    return json.loads(out.stdout)


def rows(page, table):
    return page.js(f"Array.from(document.querySelectorAll('#{table} tbody tr')).map(r => Array.from(r.cells).map(c => c.textContent))") or []


def records(page, table):
    """The rows of a table as dicts keyed by the column headers."""
    heads = page.js(f"Array.from(document.querySelectorAll('#{table} thead th')).map(c => c.textContent)") or []
    return [dict(zip(heads, r)) for r in rows(page, table)]


def main():
    args = sys.argv[1:]
    shot = args[args.index("--screenshot") + 1]
    del args[args.index("--screenshot"):args.index("--screenshot") + 2]
    url, tbkit, book, *table_dirs = args
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        sys.exit("explore-browser: no chromium (apt-get install chromium)")
    profile = tempfile.mkdtemp(prefix="tbkit-chromium-")
    browser = subprocess.Popen([chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                "--disable-extensions", "--remote-debugging-port=0", f"--user-data-dir={profile}",
                                "--window-size=1200,900", "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        port = None
        end = time.time() + 60
        while time.time() < end and port is None:
            line = browser.stderr.readline()
            if not line and browser.poll() is not None:
                sys.exit("explore-browser: chromium exited at start")
            m = re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", line)
            if m:
                port = int(m.group(1))
        if port is None:
            sys.exit("explore-browser: chromium did not open its DevTools port")
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
        target = next(t for t in targets if t["type"] == "page")
        page = Page(WebSocket(target["webSocketDebuggerUrl"]))
        page.call("Page.enable")
        page.call("Runtime.enable")
        page.call("Page.navigate", url=url)
        start_fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        page.settled(start_fen)

        # 1. e4 by two clicks, 1... e5 by a drag.
        page.click("#sq-e2")
        page.wait_for("document.querySelector('#sq-e2').classList.contains('selected')", "e2 selected")
        page.click("#sq-e4")
        after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        page.settled(after_e4)
        page.drag("#sq-e7", "#sq-e5")
        after_e5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
        page.settled(after_e5)
        check("the line after two moves", page.js("document.getElementById('line').textContent.trim()"), "1. e4 e5")
        cli = tbkit_json(tbkit, "book", "probe", book, "--moves", "e4 e5")
        expected = sorted(([m["san"], str(m["games"]), f"{m['win_pct']:.1f}", "-" if m["avg_rating"] is None else str(m["avg_rating"])]
                           for m in cli["moves"]), key=lambda r: -int(r[1]))
        got = [[r.get("Move"), r.get("Games"), r.get("W%"), r.get("Avg rating", "-")] for r in records(page, "book-moves")]
        check("book moves after 1. e4 e5 (move, games, win%, rating)", got, expected)
        check("learned moves after 1. e4 e5", [r[:2] for r in rows(page, "learned-moves")],
              [[m["san"], str(m["games"])] for m in cli.get("learned", {}).get("moves", [])])
        page.screenshot(shot.replace(".png", "-book.png"))

        # Back and forward through the line.
        page.click("#back")
        page.settled(after_e4)
        check("back: the book moves of 1. e4", [r[0] for r in rows(page, "book-moves")],
              [m["san"] for m in sorted(tbkit_json(tbkit, "book", "probe", book, "--moves", "e4")["moves"], key=lambda m: -m["games"])])
        page.click("#forward")
        page.settled(after_e5)

        # A KRvK position typed in, then Ra6+ by clicks: the tables' verdict and every move's value.
        fen = "8/8/3k4/8/8/8/8/R5K1 w - - 0 1"
        page.js(f"document.getElementById('fen').value = {json.dumps(fen)}")
        page.click("#fen-form button")
        page.settled(fen)
        cli = tbkit_json(tbkit, "probe", fen, *sum((["-d", d] for d in table_dirs), []))
        check("verdict of the typed position", page.js("document.getElementById('verdict').textContent"), cli["verdict"])
        page.click("#sq-a1")
        page.click("#sq-a6")
        after = "8/8/R2k4/8/8/8/8/6K1 b - - 1 1"
        page.settled(after)
        cli = tbkit_json(tbkit, "probe", after, *sum((["-d", d] for d in table_dirs), []))
        check("verdict after Ra6+", page.js("document.getElementById('verdict').textContent"), cli["verdict"])

        def dtm(m):
            if m["result"] == "draw":
                return "draw"
            return ("mates in " if m["result"] == "win" else "mated in ") + f"{(m['dtm_plies'] + 1) // 2} ({m['dtm_plies']} plies)"
        check("table moves after Ra6+ (move, result, DTM, WDL50, DTZ50)", rows(page, "table-moves"),
              [[m["san"], m["result"], dtm(m), m.get("wdl50", "-"), str(m["dtz50"]) if "dtz50" in m else "-"] for m in cli["moves"]])
        page.screenshot(shot)
        print(f"screenshots: {shot}, {shot.replace('.png', '-book.png')}")
    finally:
        browser.terminate()
        try:
            browser.wait(10)
        except subprocess.TimeoutExpired:
            browser.kill()
        shutil.rmtree(profile, ignore_errors=True)
    if failures:
        print(f"explore-browser: {len(failures)} check(s) failed: {', '.join(failures)}")
        sys.exit(1)
    print("explore-browser: all checks passed")


if __name__ == "__main__":
    main()
