"""Organizations, their members and invites: `ramp org create`, the setup and invite
links, the members page.

A link is shown once (we send no email yet): only its token's hash is stored, and it
works once, within its lifetime. The owner's setup link is an invite with the owner role.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta

from sqlmodel import col, delete, func, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.tables import DashboardSession, Organization, OrgInvite, OrgMember, Project
from ramp.db.types import utcnow
from ramp.errors import Conflict, DashboardError, InvalidInput, NotFound
from ramp.organizations import audit
from ramp.organizations.access import Principal, Role
from ramp.organizations.secrets import hash_password, new_token, password_problem, token_hash

LINK_LIFETIME = timedelta(hours=24)
MAX_EMAIL_LENGTH = 320


@dataclass(frozen=True)
class IssuedLink:
    """A setup or invite link's token: the dashboard URL is `/dashboard/join/<token>`."""

    invite_id: str
    organization_id: str
    email: str
    role: Role
    token: str

    def url(self, public_url: str) -> str:
        return f"{public_url.rstrip('/')}/dashboard/join/{self.token}"


def normalize_email(email: str) -> str:
    email = email.strip().lower()
    local, at, domain = email.partition("@")
    if not at or not local or "." not in domain or len(email) > MAX_EMAIL_LENGTH or " " in email:
        raise InvalidInput(
            "VALIDATION_ERROR",
            "the email address is not valid",
            {"fields": [{"pointer": "/email", "reason": "is not an email address"}]},
        )
    return email


async def create_organization(session: AsyncSession, *, name: str, owner_email: str) -> IssuedLink:
    """A new organization and its owner's one-time setup link (24 h)."""
    name = name.strip()
    if not name or len(name) > 200:
        raise InvalidInput(
            "VALIDATION_ERROR", "the organization name must have 1 to 200 characters"
        )
    email = normalize_email(owner_email)
    await _refuse_existing_member(session, email)
    organization = Organization(id=str(uuid.uuid4()), name=name)
    session.add(organization)
    await session.flush()  # before its invite (no ORM relationship orders the inserts)
    link = _invite(session, organization.id, email, Role.OWNER)
    await session.commit()
    return link


async def adopt_unclaimed_project(
    session: AsyncSession, *, organization_id: str, project_id: str
) -> bool:
    """Moves the project into the organization if nobody can reach it now: its own
    organization has no member and no invite (the sandbox's demo project, which `ramp dev`
    creates before any organization exists). False, and nothing changed, otherwise."""
    project = await session.get(Project, project_id)
    if project is None or project.organization_id == organization_id:
        return False
    for table in (OrgMember, OrgInvite):
        claimed = (
            await session.exec(
                select(table.id).where(table.organization_id == project.organization_id)
            )
        ).first()
        if claimed is not None:
            return False
    project.organization_id = organization_id
    session.add(project)
    await session.commit()
    return True


async def invite_member(
    session: AsyncSession, principal: Principal, *, email: str, role: Role
) -> IssuedLink:
    """An invite link for `email` with `role` (owners only)."""
    principal.require(Role.OWNER)
    email = normalize_email(email)
    await _refuse_existing_member(session, email)
    link = _invite(session, principal.organization_id, email, role)
    audit.record(session, principal, "member.invited", email, details={"role": role.value})
    await session.commit()
    return link


async def accept_invite(session: AsyncSession, *, token: str, password: str, ip: str) -> OrgMember:
    """Sets the password of the link's member (creating them): the link is spent."""
    invite = await pending_invite(session, token)
    problem = password_problem(password)
    if problem is not None:
        raise InvalidInput(DashboardError.WEAK_PASSWORD, problem)
    await _refuse_existing_member(session, invite.email)
    member = OrgMember(
        id=str(uuid.uuid4()),
        organization_id=invite.organization_id,
        email=invite.email,
        role=invite.role,
        password_hash=hash_password(password),
    )
    invite.used_at = utcnow()
    session.add_all([member, invite])
    await session.flush()
    joined = Principal(invite.organization_id, Role(invite.role), invite.email, member.id, ip=ip)
    audit.record(session, joined, "member.joined", invite.email, details={"role": invite.role})
    await session.commit()
    await session.refresh(member)
    return member


async def pending_invite(session: AsyncSession, token: str) -> OrgInvite:
    """The unused, unexpired invite of `token`; InvalidInput INVALID_LINK otherwise."""
    invite = (
        await session.exec(select(OrgInvite).where(OrgInvite.token_hash == token_hash(token)))
    ).first()
    if invite is None or invite.used_at is not None or invite.expires_at <= utcnow():
        raise InvalidInput(
            DashboardError.INVALID_LINK,
            "this link is not valid: it was used already, expired, or never existed",
        )
    return invite


async def organization_exists(session: AsyncSession, organization_id: str) -> bool:
    return await session.get(Organization, organization_id) is not None


async def organization(session: AsyncSession, principal: Principal) -> Organization:
    found = await session.get(Organization, principal.organization_id)
    if found is None:
        raise NotFound("organization")
    return found


async def members(session: AsyncSession, principal: Principal) -> list[OrgMember]:
    principal.require(Role.OWNER)
    return list(
        (
            await session.exec(
                select(OrgMember)
                .where(OrgMember.organization_id == principal.organization_id)
                .order_by(col(OrgMember.created_at), col(OrgMember.email))
            )
        ).all()
    )


async def open_invites(session: AsyncSession, principal: Principal) -> list[OrgInvite]:
    principal.require(Role.OWNER)
    return list(
        (
            await session.exec(
                select(OrgInvite).where(
                    OrgInvite.organization_id == principal.organization_id,
                    col(OrgInvite.used_at).is_(None),
                    OrgInvite.expires_at > utcnow(),
                )
            )
        ).all()
    )


async def revoke_invite(session: AsyncSession, principal: Principal, invite_id: str) -> None:
    """Ends an unused invite now: its link stops working."""
    principal.require(Role.OWNER)
    invite = await session.get(OrgInvite, invite_id)
    if invite is None or invite.organization_id != principal.organization_id:
        raise NotFound("invite")
    if invite.used_at is None:
        invite.expires_at = utcnow()
        session.add(invite)
        audit.record(session, principal, "member.invite_revoked", invite.email)
        await session.commit()


async def change_role(
    session: AsyncSession, principal: Principal, member_id: str, role: Role
) -> OrgMember:
    principal.require(Role.OWNER)
    member = await _own_member(session, principal, member_id)
    if member.role == Role.OWNER and role != Role.OWNER:
        await _refuse_last_owner(session, principal.organization_id)
    member.role = role.value
    session.add(member)
    audit.record(session, principal, "member.role_changed", member.email, details={"role": role})
    await session.commit()
    await session.refresh(member)
    return member


async def remove_member(session: AsyncSession, principal: Principal, member_id: str) -> None:
    """Removes the member and ends their sessions."""
    principal.require(Role.OWNER)
    member = await _own_member(session, principal, member_id)
    if member.role == Role.OWNER:
        await _refuse_last_owner(session, principal.organization_id)
    await session.exec(delete(DashboardSession).where(col(DashboardSession.member_id) == member.id))
    audit.record(session, principal, "member.removed", member.email)
    await session.delete(member)
    await session.commit()


def _invite(session: AsyncSession, organization_id: str, email: str, role: Role) -> IssuedLink:
    token = new_token()
    invite = OrgInvite(
        id=str(uuid.uuid4()),
        organization_id=organization_id,
        email=email,
        role=role.value,
        token_hash=token_hash(token),
        expires_at=utcnow() + LINK_LIFETIME,
    )
    session.add(invite)
    return IssuedLink(invite.id, organization_id, email, role, token)


async def _refuse_existing_member(session: AsyncSession, email: str) -> None:
    if (await session.exec(select(OrgMember.id).where(OrgMember.email == email))).first():
        raise Conflict(DashboardError.MEMBER_EXISTS, f"{email} is already a member")


async def _own_member(session: AsyncSession, principal: Principal, member_id: str) -> OrgMember:
    member = await session.get(OrgMember, member_id)
    if member is None or member.organization_id != principal.organization_id:
        raise NotFound("member")
    return member


async def _refuse_last_owner(session: AsyncSession, organization_id: str) -> None:
    owners = (
        await session.exec(
            select(func.count())
            .select_from(OrgMember)
            .where(OrgMember.organization_id == organization_id, OrgMember.role == Role.OWNER)
        )
    ).one()
    if owners <= 1:
        raise Conflict(DashboardError.LAST_OWNER, "an organization keeps at least one owner")
