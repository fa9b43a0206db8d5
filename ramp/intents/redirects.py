"""The reference's redirect URLs of an intent: checked against the project's allowed
origins when the intent is opened, and chosen by the hosted onboarding.

`onboardingRedirectUrl` is where the customer goes once onboarding is done and nothing
more is shown; `checkoutRedirectUrl` is where the customer goes after the deposit
instructions were shown. Either falls back to the spec's `redirectUrl`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from urllib.parse import urlsplit

from ramp.db.tables import IntentRow
from ramp.errors import IntentError, InvalidInput
from ramp.origins import origin_allowed

_DEFAULT_PORTS = {"http": 80, "https": 443}


def url_origin(url: str) -> str:
    """`scheme://host[:port]` of an absolute URL, the default port left out."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    shown = "" if port is None or port == _DEFAULT_PORTS.get(parts.scheme) else f":{port}"
    return f"{parts.scheme}://{host}{shown}"


def check_redirects(urls: Mapping[str, str | None], allowed: Sequence[str]) -> None:
    """Refuses a redirect URL (by its request field name) whose origin the project does
    not allow to embed its onboarding (`ramp project allow-origin`)."""
    refused = [
        name
        for name, url in urls.items()
        if url is not None and not origin_allowed(url_origin(url), allowed)
    ]
    if refused:
        raise InvalidInput(
            IntentError.REDIRECT_URL_NOT_ALLOWED,
            "redirect URLs must be on one of the project's onboarding origins "
            "(ramp project allow-origin, PUT /v1/project/onboarding-origins)",
            {
                "fields": [
                    {"pointer": f"/{name}", "reason": "is not on an allowed origin"}
                    for name in refused
                ]
            },
        )


def hosted_redirect(intent: IntentRow, deposit_instructions_shown: bool) -> str | None:
    """Where the hosted onboarding sends the customer when it is done."""
    if deposit_instructions_shown and intent.checkout_redirect_url:
        return intent.checkout_redirect_url
    return intent.onboarding_redirect_url or intent.redirect_url
