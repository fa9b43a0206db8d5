"""Wallet signatures an intent's provider asks for (Monerium): what to sign, the answer."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictStr

from api.schemas.core import RequestBody, Resource
from ramp.timestamps import Timestamp

Purpose = Annotated[
    Literal["LINK_ADDRESS", "REDEEM_ORDER"],
    Field(
        description="What the signature is for: LINK_ADDRESS links the wallet to the "
        "customer's profile at the provider; REDEEM_ORDER authorises an off-ramp's burn"
    ),
]


class SigningRequestResource(Resource):
    """What the customer's wallet signs next (EIP-191 `personal_sign` of `message`)."""

    purpose: Purpose
    address: str = Field(description="The wallet that must sign")
    chain: str | None = Field(default=None, description="The provider's name of the chain")
    message: str = Field(description="Exactly what is signed, to show the customer")
    expires_at: Timestamp | None = Field(
        default=None, alias="expiresAt", description="A signature is refused after this"
    )


class SubmitSignature(RequestBody):
    """The customer's signature of the message a signing request gave."""

    purpose: Purpose
    message: Annotated[
        StrictStr,
        Field(min_length=1, max_length=500, description="The message signed, exactly as given"),
    ]
    signature: Annotated[
        StrictStr,
        Field(
            pattern=r"^0x([0-9a-fA-F]{2}){0,1000}$",
            description="0x-prefixed hex: 65 bytes for a wallet, `0x` or longer for a Safe",
        ),
    ]


class SignatureAccepted(Resource):
    """A signature the provider's flow took."""

    purpose: Purpose
    outcome: Literal["LINKED", "PENDING", "STORED"] = Field(
        description="LINKED: the wallet is linked; PENDING: a Safe's approval is being "
        "verified on chain; STORED: kept for the order, now ask for the transaction again"
    )
