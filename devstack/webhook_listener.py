"""`ramp webhook listen`: a receiver for local development that prints verified events.

It checks both signatures a delivery carries, as a project's receiver would: the
Standard Webhooks one with the `standardwebhooks` package, and `X-Ramp-Signature`.
A delivery that fails either check is answered 401 (so it is retried) and reported.
"""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TextIO

from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

from ramp.webhooks.signing import InvalidSignature, verify_ramp_signature


class Listener(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, host: str, port: int, secret: str, out: TextIO = sys.stdout) -> None:
        super().__init__((host, port), _Handler)
        self.secret = secret
        self.out = out

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}/"


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        server = self.server
        assert isinstance(server, Listener)
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        headers = {name.lower(): value for name, value in self.headers.items()}
        try:
            envelope = Webhook(server.secret.encode()).verify(body, headers)
            verify_ramp_signature(server.secret, headers, body)
        except (WebhookVerificationError, InvalidSignature, ValueError) as error:
            _print(server.out, f"REFUSED {headers.get('webhook-id', '?')}: {error}")
            self._answer(401)
            return
        _print(
            server.out,
            f"{envelope['timestamp']} {envelope['eventType']} {envelope['eventId']} (verified)\n"
            + json.dumps(envelope["data"], indent=2),
        )
        self._answer(204)

    def _answer(self, status: int) -> None:
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the events are the output


def _print(out: TextIO, text: str) -> None:
    out.write(text + "\n")
    out.flush()
