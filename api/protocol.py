"""uvicorn's HTTP/1.1 protocols, answering malformed requests in the error envelope.

A request that does not parse as HTTP (bad framing, a bad header, a header block over
uvicorn's limit) never reaches the application: uvicorn answers it itself, in plain text.
These subclasses keep uvicorn's behaviour (400, connection closed) and only replace the
body with the envelope every other error has. What uvicorn still answers by itself is
listed in docs/decisions.md ("Input limits"). The httptools protocol also refuses an
HTTP/1.1 request without exactly one Host header, as h11 does.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httptools
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

MALFORMED_REQUEST = json.dumps(
    {
        "statusCode": 400,
        "error": "Bad Request",
        "code": "MALFORMED_REQUEST",
        "message": "the request is not valid HTTP/1.1",
        "details": {},
    }
).encode()


def _response(default_headers: list[tuple[bytes, bytes]]) -> bytes:
    lines = [b"HTTP/1.1 400 Bad Request"]
    lines += [name + b": " + value for name, value in default_headers]
    lines += [
        b"content-type: application/json",
        b"content-length: " + str(len(MALFORMED_REQUEST)).encode(),
        b"connection: close",
    ]
    return b"\r\n".join(lines) + b"\r\n\r\n" + MALFORMED_REQUEST


class EnvelopeH11Protocol(H11Protocol):
    def send_400_response(self, msg: str) -> None:
        self.transport.write(_response(self.server_state.default_headers))
        self.transport.close()


class EnvelopeHttpToolsProtocol(HttpToolsProtocol):
    def on_headers_complete(self) -> None:
        # An HTTP/1.1 request must carry exactly one Host header (RFC 9112, 3.2), which h11
        # enforces and httptools does not: refused here as any other malformed request
        # (the parser's error ends in send_400_response), before the app is called.
        if self.parser.get_http_version() == "1.1":
            hosts = sum(1 for name, _ in self.headers if name == b"host")
            if hosts != 1:
                raise httptools.HttpParserError("an HTTP/1.1 request needs one Host header")
        super().on_headers_complete()

    def send_400_response(self, msg: str) -> None:
        self.transport.write(_response(self.server_state.default_headers))
        self.transport.close()


# What `uvicorn.run(..., http=...)` is given: httptools (uvicorn's own "auto" choice).
ENVELOPE_PROTOCOL: type[asyncio.Protocol] = EnvelopeHttpToolsProtocol

# How `ramp api` has uvicorn serve the app (tests that need a real peer address serve it
# so too): our protocol, and none of uvicorn's own proxy-header handling, which would
# believe X-Forwarded-For from loopback (its default) whatever RAMP_TRUSTED_PROXIES says.
# The app itself believes the proxies of that setting (api/app.py).
SERVER_OPTIONS: dict[str, Any] = {"http": ENVELOPE_PROTOCOL, "proxy_headers": False}
