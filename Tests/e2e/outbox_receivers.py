"""Receivers on loopback for the outbox tests: a webhook endpoint and an RFC 8030 push service."""
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Receiver:
    """Records every POST (path, headers, exact body bytes); answers `status_for(path)` (200 by default)."""

    def __init__(self):
        self.calls = []
        self.lock = threading.Lock()
        self.status_for = lambda path: 200
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                status = receiver.status_for(self.path)
                with receiver.lock:
                    receiver.calls.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                           "body": body, "status": status, "at": time.time()})
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def snapshot(self):
        with self.lock:
            return list(self.calls)

    def accepted(self):
        """Calls answered 2xx, parsed."""
        return [dict(call, json=json.loads(call["body"])) for call in self.snapshot() if 200 <= call["status"] < 300]

    def wait_for(self, predicate, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(self):
                return True
            time.sleep(0.05)
        return False

    def close(self):
        self.server.shutdown()
        self.server.server_close()
