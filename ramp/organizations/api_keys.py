"""Organization API keys: the admin API without a browser (`Authorization: Bearer`).

A key is shown once; only its hash is kept. Each is scoped to a role, and never more
than its creator's (owners create keys). A revoked key authenticates nothing.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.tables import OrgApiKey
from ramp.db.types import utcnow
from ramp.errors import DashboardError, InvalidInput, NotAuthenticated, NotFound
from ramp.organizations import audit
from ramp.organizations.access import Principal, Role
from ramp.organizations.secrets import new_token, token_hash
from ramp.organizations.sessions import SCHEME

KEY_PREFIX = "rk_"


@dataclass(frozen=True)
class NewApiKey:
    key: OrgApiKey
    secret: str  # shown once


async def create_key(
    session: AsyncSession, principal: Principal, *, name: str, role: Role
) -> NewApiKey:
    principal.require(Role.OWNER)
    name = name.strip()
    if not name or len(name) > 200:
        raise InvalidInput("VALIDATION_ERROR", "the key's name must have 1 to 200 characters")
    secret = new_token(KEY_PREFIX)
    key = OrgApiKey(
        id=str(uuid.uuid4()),
        organization_id=principal.organization_id,
        name=name,
        role=role.value,
        prefix=secret[:10],
        key_hash=token_hash(secret),
    )
    session.add(key)
    audit.record(session, principal, "api_key.created", name, details={"role": role.value})
    await session.commit()
    await session.refresh(key)
    return NewApiKey(key, secret)


async def list_keys(session: AsyncSession, principal: Principal) -> list[OrgApiKey]:
    principal.require(Role.OWNER)
    return list(
        (
            await session.exec(
                select(OrgApiKey)
                .where(OrgApiKey.organization_id == principal.organization_id)
                .order_by(col(OrgApiKey.created_at))
            )
        ).all()
    )


async def revoke_key(session: AsyncSession, principal: Principal, key_id: str) -> OrgApiKey:
    principal.require(Role.OWNER)
    key = await session.get(OrgApiKey, key_id)
    if key is None or key.organization_id != principal.organization_id:
        raise NotFound("API key")
    if key.revoked_at is None:
        key.revoked_at = utcnow()
        session.add(key)
        audit.record(session, principal, "api_key.revoked", key.name)
        await session.commit()
        await session.refresh(key)
    return key


async def principal_of_key(session: AsyncSession, secret: str, ip: str) -> Principal:
    """Who a Bearer key acts as; NotAuthenticated for an unknown or revoked key."""
    key = (
        await session.exec(select(OrgApiKey).where(OrgApiKey.key_hash == token_hash(secret)))
    ).first()
    if key is None or key.revoked_at is not None:
        raise NotAuthenticated(DashboardError.INVALID_API_KEY, "the API key is not valid", SCHEME)
    key.last_used_at = utcnow()
    session.add(key)
    await session.commit()
    return Principal(
        key.organization_id, Role(key.role), f"api key {key.name}", api_key_id=key.id, ip=ip
    )
