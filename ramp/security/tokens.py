"""Tokens we issue: the customer access token, the wallet sign-in token and the token
of an intent's hosted onboarding page (in `frontendUrl`).

All are EdDSA (Ed25519) JWTs. They carry different audiences so that none can be used
in place of another.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ramp.config import Settings
from ramp.security.encryption import MissingKey

ALGORITHM = "EdDSA"
CUSTOMER_AUDIENCE = "ramp:customer"
WALLET_AUDIENCE = "ramp:wallet"
ONBOARDING_AUDIENCE = "ramp:onboarding"


class InvalidToken(Exception):
    def __init__(self, reason: str, *, expired: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.expired = expired


@dataclass(frozen=True)
class CustomerClaims:
    customer_id: str
    project_id: str
    organization_id: str
    environment: str


@dataclass(frozen=True)
class WalletClaims:
    """What a verified wallet sign-in proves: this address signed our nonce."""

    issuer: str
    subject: str  # CAIP-10 account id, e.g. eip155:100:0xAbC...
    address: str
    chain_id: int


@dataclass(frozen=True)
class OnboardingClaims:
    intent_id: str
    customer_id: str


class TokenService:
    def __init__(self, signing_key_pem: str, issuer: str, customer_ttl: timedelta) -> None:
        if not signing_key_pem.strip():
            raise MissingKey("RAMP_SIGNING_KEY is not set (generate one: `ramp keys generate`)")
        # `ramp keys generate` prints the PEM on one line with escaped newlines.
        pem = signing_key_pem.replace("\\n", "\n").encode()
        key = serialization.load_pem_private_key(pem, password=None)
        if not isinstance(key, Ed25519PrivateKey):
            raise MissingKey("RAMP_SIGNING_KEY must be an Ed25519 private key")
        self._private_key = key
        self._public_key = key.public_key()
        self.issuer = issuer
        self.wallet_issuer = f"{issuer}/walletpay"
        self.customer_ttl = customer_ttl

    @classmethod
    def from_settings(cls, settings: Settings) -> TokenService:
        return cls(
            settings.signing_key.get_secret_value(),
            issuer=settings.public_url,
            customer_ttl=timedelta(seconds=settings.customer_token_ttl_seconds),
        )

    def _encode(self, claims: dict[str, object], audience: str, ttl: timedelta) -> str:
        now = datetime.now(UTC)
        payload = {
            **claims,
            "iss": self.wallet_issuer if audience == WALLET_AUDIENCE else self.issuer,
            "aud": audience,
            "iat": now,
            "exp": now + ttl,
            "jti": str(uuid.uuid4()),
        }
        return jwt.encode(payload, self._private_key, algorithm=ALGORITHM, headers={"typ": "JWT"})

    def _decode(
        self, token: str, audience: str, issuer: str, *, verify_exp: bool = True
    ) -> dict[str, object]:
        try:
            claims: dict[str, object] = jwt.decode(
                token,
                self._public_key,
                algorithms=[ALGORITHM],  # pinned: never trust the token's own `alg`
                audience=audience,
                issuer=issuer,
                options={
                    "require": ["iss", "aud", "sub", "exp", "iat", "jti"],
                    "verify_exp": verify_exp,
                },
            )
        except jwt.ExpiredSignatureError as error:
            raise InvalidToken("token has expired", expired=True) from error
        except jwt.PyJWTError as error:
            raise InvalidToken("token is invalid") from error
        return claims

    def issue_customer_token(self, claims: CustomerClaims) -> str:
        return self._encode(
            {
                "sub": claims.customer_id,
                "pid": claims.project_id,
                "oid": claims.organization_id,
                "env": claims.environment,
            },
            CUSTOMER_AUDIENCE,
            self.customer_ttl,
        )

    def verify_customer_token(self, token: str) -> CustomerClaims:
        claims = self._decode(token, CUSTOMER_AUDIENCE, self.issuer)
        try:
            return CustomerClaims(
                customer_id=str(claims["sub"]),
                project_id=str(claims["pid"]),
                organization_id=str(claims["oid"]),
                environment=str(claims["env"]),
            )
        except KeyError as error:
            raise InvalidToken("token is invalid") from error

    def issue_onboarding_token(self, intent_id: str, customer_id: str, ttl: timedelta) -> str:
        """The token of an intent's hosted onboarding page: that one intent, nothing else."""
        return self._encode({"sub": intent_id, "cid": customer_id}, ONBOARDING_AUDIENCE, ttl)

    def verify_onboarding_token(self, token: str) -> OnboardingClaims:
        claims = self._decode(token, ONBOARDING_AUDIENCE, self.issuer)
        return OnboardingClaims(intent_id=str(claims["sub"]), customer_id=str(claims.get("cid")))

    def expired_onboarding_claims(self, token: str) -> OnboardingClaims:
        """Whose link an expired onboarding token was: everything is checked but `exp`.
        Only to word an error page; it grants nothing."""
        claims = self._decode(token, ONBOARDING_AUDIENCE, self.issuer, verify_exp=False)
        return OnboardingClaims(intent_id=str(claims["sub"]), customer_id=str(claims.get("cid")))

    def issue_wallet_token(self, address: str, chain_id: int, ttl: timedelta) -> str:
        subject = f"eip155:{chain_id}:{address}"
        return self._encode(
            {"sub": subject, "address": address, "chainId": chain_id}, WALLET_AUDIENCE, ttl
        )

    def is_wallet_token_issuer(self, issuer: str) -> bool:
        return issuer == self.wallet_issuer

    def verify_wallet_token(self, token: str) -> WalletClaims:
        claims = self._decode(token, WALLET_AUDIENCE, self.wallet_issuer)
        chain_id = claims.get("chainId")
        if not isinstance(chain_id, int):
            raise InvalidToken("token is invalid")
        return WalletClaims(
            issuer=self.wallet_issuer,
            subject=str(claims["sub"]),
            address=str(claims.get("address")),
            chain_id=chain_id,
        )
