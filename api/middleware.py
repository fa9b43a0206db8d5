"""ASGI middleware of the API."""

from __future__ import annotations

from collections.abc import Sequence

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.errors import error_response


class BodySizeLimit:
    """Refuses bodies over `max_bytes` with 413, whether or not Content-Length is sent.

    `larger` raises the limit under some path prefixes (onboarding documents).
    """

    def __init__(
        self, app: ASGIApp, max_bytes: int, larger: Sequence[tuple[str, int]] = ()
    ) -> None:
        self.app = app
        self.default_max_bytes = max_bytes
        self.larger = tuple(larger)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        max_bytes = next(
            (size for prefix, size in self.larger if path.startswith(prefix)),
            self.default_max_bytes,
        )
        for name, value in scope["headers"]:
            if name == b"content-length" and value.isdigit() and int(value) > max_bytes:
                await self._too_large(scope, receive, send, max_bytes)
                return
        received = 0
        response_started = False

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > max_bytes:
                    raise _TooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal response_started
            response_started = response_started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if not response_started:
                await self._too_large(scope, receive, send, max_bytes)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send, max_bytes: int) -> None:
        response = error_response(
            413, "PAYLOAD_TOO_LARGE", f"request body exceeds {max_bytes} bytes"
        )
        await response(scope, receive, send)


class _TooLarge(Exception):
    pass
