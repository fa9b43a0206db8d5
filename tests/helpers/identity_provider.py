"""A test identity provider: serves a JWKS over HTTP on loopback."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa


class JwksServer(ThreadingHTTPServer):
    """Serves ``jwks`` (or ``raw``) at any path and counts requests."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), JwksHandler)
        self.jwks: dict[str, Any] = {"keys": []}
        self.raw: bytes | None = None
        self.status = 200
        self.hits = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/.well-known/jwks.json"


class JwksHandler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        server = self.server
        assert isinstance(server, JwksServer)
        server.hits += 1
        body = server.raw if server.raw is not None else json.dumps(server.jwks).encode()
        self.send_response(server.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean


def serve_jwks() -> tuple[JwksServer, Callable[[], None]]:
    server = JwksServer()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()

    def stop() -> None:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)

    return server, stop


def public_jwk(private_key: Any, kid: str, alg: str) -> dict[str, Any]:
    if isinstance(private_key, rsa.RSAPrivateKey):
        jwk = jwt.algorithms.RSAAlgorithm.to_jwk(private_key.public_key(), as_dict=True)
    else:
        jwk = jwt.algorithms.ECAlgorithm.to_jwk(private_key.public_key(), as_dict=True)
    return {**jwk, "kid": kid, "alg": alg, "use": "sig"}
