"""The API reference at `/v1/docs`: `/v1/openapi.json` rendered by Swagger UI.

Swagger UI's files come from the `swagger-ui-bundle-v2` package (its `dist`, vendored in
the wheel), served from our own origin: nothing is loaded from a CDN. The page is
static HTML with no inline script (api/static/docs/), under a policy that loads
scripts, styles and fonts from us only, fetches only from us (the document), and lets
no one frame it.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Route
from swagger_ui_bundle import swagger_ui_path  # type: ignore[import-untyped]

from api.errors import not_found

STATIC = Path(__file__).resolve().parent / "static" / "docs"
SWAGGER_UI = Path(str(swagger_ui_path))
# The only files served under /v1/docs/assets/: ours, and the two Swagger UI needs.
ASSETS: dict[str, tuple[Path, str]] = {
    "docs.js": (STATIC / "docs.js", "text/javascript"),
    "docs.css": (STATIC / "docs.css", "text/css"),
    "swagger-ui-bundle.js": (SWAGGER_UI / "swagger-ui-bundle.js", "text/javascript"),
    "swagger-ui.css": (SWAGGER_UI / "swagger-ui.css", "text/css"),
}
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        # Swagger UI's icons are SVG data URIs in its stylesheet.
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    ]
)
_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",  # frame-ancestors, for browsers that predate it
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


async def reference_page(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", media_type="text/html", headers=_HEADERS)


async def reference_asset(request: Request) -> Response:
    found = ASSETS.get(request.path_params["name"])
    if found is None:
        raise not_found("asset")
    path, media_type = found
    return FileResponse(path, media_type=media_type, headers=_HEADERS)


# Served beside /v1 (before its Mount): pages, not operations of the API.
REFERENCE_ROUTES: list[BaseRoute] = [
    Route("/v1/docs", reference_page, methods=["GET"]),
    Route("/v1/docs/assets/{name}", reference_asset, methods=["GET"]),
]
