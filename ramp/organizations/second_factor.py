"""The optional second factor: TOTP (RFC 6238, pyotp). A member enrolls by confirming a
code from their authenticator; from then on their login asks for a code. Once an owner
requires it for the organization, changing provider credentials needs a fresh code from
an owner who has one (an API key cannot give one, so it cannot change them)."""

from __future__ import annotations

import pyotp
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.tables import OrganizationSecurity, OrgMember
from ramp.db.types import utcnow
from ramp.errors import DashboardError, Forbidden, InvalidInput, NotFound
from ramp.organizations import audit
from ramp.organizations.access import Principal, Role
from ramp.security.encryption import SecretBox

ISSUER = "Ramp dashboard"


def new_seed() -> str:
    return pyotp.random_base32()


def provisioning_uri(seed: str, email: str) -> str:
    return pyotp.TOTP(seed).provisioning_uri(name=email, issuer_name=ISSUER)


def code_matches(seed: str, code: str | None) -> bool:
    return bool(code) and pyotp.TOTP(seed).verify((code or "").strip(), valid_window=1)


async def enroll(
    session: AsyncSession, principal: Principal, *, seed: str, code: str, secret_box: SecretBox
) -> None:
    """Turns the member's second factor on, once a code from the seed checks out."""
    member = await _member(session, principal)
    if len(seed) < 16 or not code_matches(seed, code):
        raise InvalidInput(DashboardError.INVALID_TOTP, "the code does not match: try again")
    member.totp_secret_encrypted = secret_box.encrypt(seed)
    session.add(member)
    audit.record(session, principal, "member.totp_enabled", member.email)
    await session.commit()


async def totp_required(session: AsyncSession, organization_id: str) -> bool:
    settings = await session.get(OrganizationSecurity, organization_id)
    return settings is not None and settings.totp_required


async def set_totp_required(session: AsyncSession, principal: Principal, required: bool) -> None:
    principal.require(Role.OWNER)
    if required:
        member = await session.get(OrgMember, principal.member_id or "")
        if member is None or member.totp_secret_encrypted is None:
            raise InvalidInput(
                DashboardError.TOTP_REQUIRED,
                "set up your own second factor first: you would lock yourself out",
            )
    settings = await session.get(OrganizationSecurity, principal.organization_id)
    settings = settings or OrganizationSecurity(organization_id=principal.organization_id)
    settings.totp_required = required
    settings.updated_at = utcnow()
    session.add(settings)
    audit.record(session, principal, "organization.totp_required", str(required).lower())
    await session.commit()


async def require_second_factor(
    session: AsyncSession, principal: Principal, code: str | None, secret_box: SecretBox
) -> None:
    """Refuses (403) unless the organization does not require TOTP, or the member gave a
    valid code from their enrolled authenticator."""
    if not await totp_required(session, principal.organization_id):
        return
    member = await session.get(OrgMember, principal.member_id or "")
    if member is None or member.totp_secret_encrypted is None:
        raise Forbidden(
            DashboardError.TOTP_REQUIRED,
            "the organization requires a second factor for provider credentials: "
            "a member with TOTP set up must do this",
        )
    if not code_matches(secret_box.decrypt(member.totp_secret_encrypted), code):
        raise Forbidden(DashboardError.INVALID_TOTP, "the one-time code is missing or wrong")


async def _member(session: AsyncSession, principal: Principal) -> OrgMember:
    member = await session.get(OrgMember, principal.member_id or "")
    if member is None:
        raise NotFound("member")
    return member
