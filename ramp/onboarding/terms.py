"""The terms a provider's TERMS_OF_SERVICE step shows (sandbox wording).

Real providers publish their own terms; their adapters will supply them (roadmap).
The version is what the customer accepts: a submission naming another one is refused.
"""

from __future__ import annotations

from dataclasses import dataclass

TERMS_VERSION = "2026-01"


@dataclass(frozen=True)
class Terms:
    version: str
    title: str
    paragraphs: tuple[str, ...]


def terms_for(provider_name: str) -> Terms:
    return Terms(
        version=TERMS_VERSION,
        title=f"{provider_name}: terms of service",
        paragraphs=(
            f"{provider_name} (the provider) converts money between bank accounts and "
            "crypto addresses on your instruction. These terms apply to every transfer "
            "you make through the provider.",
            "You confirm that you act on your own behalf, that the information you give "
            "is true and complete, and that the funds you send are yours and lawfully "
            "obtained.",
            "The provider verifies your identity and may ask for more information before, "
            "during or after a transfer. It may refuse or return a transfer it cannot "
            "verify, as anti-money-laundering law requires.",
            "Crypto transfers cannot be reversed once sent. Check the destination address "
            "and network before you confirm a transfer.",
            "Your personal data is processed to provide the service and to meet legal "
            "obligations, and kept for as long as the law requires.",
            "This is a sandbox: no money moves and no real verification takes place.",
        ),
    )
