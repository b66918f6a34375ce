"""A scripted HTTP server for the unit tests: each request is recorded and answered by the test's handler."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

import pytest


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None
    drop: bool = False
    delay: float = 0.0


class MockServer:
    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.handler: Callable[[Recorded, int], Reply] = lambda req, n: Reply(500)
        mock = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                rec = Recorded(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, self.rfile.read(length))
                mock.requests.append(rec)
                reply = mock.handler(rec, len(mock.requests))
                if reply.delay:
                    threading.Event().wait(reply.delay)
                if reply.drop:
                    self.connection.close()
                    return
                payload = reply.raw if reply.raw is not None else (b"" if reply.body is None else json.dumps(reply.body).encode())
                self.send_response(reply.status)
                content_type = "application/problem+json" if reply.status >= 400 and reply.status != 400 else "application/json"
                self.send_header("content-type", reply.headers.pop("content-type", content_type))
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PUT = do_DELETE = _serve

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def handle(self, handler: Callable[[Recorded, int], Reply]) -> None:
        self.requests.clear()
        self.handler = handler

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def api():
    server = MockServer()
    yield server
    server.close()


@pytest.fixture
def store():
    server = MockServer()
    yield server
    server.close()


def problem(status: int, code: str, detail: str, request_id: str = "req-problem") -> dict[str, Any]:
    return {"type": "about:blank", "title": "x", "status": status, "detail": detail, "instance": "/x", "errorCode": code, "requestId": request_id}
