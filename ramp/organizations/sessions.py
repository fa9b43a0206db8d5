"""Dashboard logins: email + password (+ TOTP once the member has one), server-side
sessions, their expiry, logout and logout everywhere.

Failed logins are paced per (account, address) and per address (login_throttle.py):
the address that has been guessing waits, the account is never locked.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

import pyotp
from sqlmodel import col, delete, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.tables import DashboardSession, OrgMember
from ramp.db.types import utcnow
from ramp.errors import DashboardError, NotAuthenticated
from ramp.organizations.access import Principal, Role
from ramp.organizations.login_throttle import LoginAttempt
from ramp.organizations.secrets import new_token, password_matches, token_hash
from ramp.security.encryption import SecretBox

# A session ends 2 hours after its last use, and 12 hours after the login at the latest.
IDLE_TIMEOUT = timedelta(hours=2)
ABSOLUTE_TIMEOUT = timedelta(hours=12)
# last_seen_at is written at most this often (not on every page view).
_TOUCH_EVERY = timedelta(minutes=1)
SCHEME = "ADMIN"


@dataclass(frozen=True)
class LoggedIn:
    token: str  # the cookie's value: shown to the browser only
    session: DashboardSession
    member: OrgMember

    def principal(self, ip: str) -> Principal:
        return principal_of(self.member, ip)


def principal_of(member: OrgMember, ip: str) -> Principal:
    return Principal(member.organization_id, Role(member.role), member.email, member.id, ip=ip)


def _refused(code: str, message: str) -> NotAuthenticated:
    return NotAuthenticated(code, message, SCHEME)


async def login(
    session: AsyncSession,
    *,
    email: str,
    password: str,
    ip: str,
    secret_box: SecretBox,
    totp_code: str | None = None,
    attempt: LoginAttempt | None = None,
) -> LoggedIn:
    """Logs the member in. `attempt` paces the guesses (Throttled while its address must
    wait); without one (just after setting a password) nothing is counted."""
    if attempt is not None:
        await attempt.begin()
    now = utcnow()
    member = (
        await session.exec(select(OrgMember).where(OrgMember.email == email.strip().lower()))
    ).first()
    # Compared even for an unknown email (against a dummy hash): the time taken does not
    # tell which addresses are members.
    matches = password_matches(password, member.password_hash if member else None)
    if member is None or not matches:
        raise _refused(DashboardError.INVALID_LOGIN, "wrong email address or password")
    if member.totp_secret_encrypted is not None:
        secret = secret_box.decrypt(member.totp_secret_encrypted)
        if not totp_code:
            # The first step of a login with a second factor: not a guess.
            if attempt is not None:
                await attempt.not_a_guess()
            raise _refused(DashboardError.INVALID_TOTP, "the one-time code is missing or wrong")
        if not pyotp.TOTP(secret).verify(totp_code.strip(), valid_window=1):
            raise _refused(DashboardError.INVALID_TOTP, "the one-time code is missing or wrong")
    if attempt is not None:
        await attempt.succeeded()
    token = new_token()
    opened = DashboardSession(
        id=token_hash(token),
        member_id=member.id,
        csrf_token=new_token(),
        ip=ip[:64],
        created_at=now,
        last_seen_at=now,
        expires_at=now + ABSOLUTE_TIMEOUT,
    )
    session.add(opened)
    await session.commit()
    await session.refresh(opened)
    await session.refresh(member)
    return LoggedIn(token, opened, member)


async def resume(session: AsyncSession, token: str) -> tuple[DashboardSession, OrgMember]:
    """The live session of a cookie's token; NotAuthenticated if none or expired (an
    expired one is deleted)."""
    now = utcnow()
    found = await session.get(DashboardSession, token_hash(token))
    if found is None:
        raise _refused(DashboardError.NOT_LOGGED_IN, "log in first")
    if found.expires_at <= now or found.last_seen_at + IDLE_TIMEOUT <= now:
        await session.delete(found)
        await session.commit()
        raise _refused(DashboardError.SESSION_EXPIRED, "the session expired: log in again")
    member = await session.get(OrgMember, found.member_id)
    if member is None:
        raise _refused(DashboardError.NOT_LOGGED_IN, "log in first")
    if now - found.last_seen_at >= _TOUCH_EVERY:
        found.last_seen_at = now
        session.add(found)
        await session.commit()
        await session.refresh(found)
        await session.refresh(member)
    return found, member


async def logout(session: AsyncSession, token: str) -> None:
    await session.exec(
        delete(DashboardSession).where(col(DashboardSession.id) == token_hash(token))
    )
    await session.commit()


async def logout_everywhere(session: AsyncSession, member_id: str) -> int:
    """Ends every session of the member (this one included); how many there were."""
    result = await session.exec(
        delete(DashboardSession).where(col(DashboardSession.member_id) == member_id)
    )
    await session.commit()
    return int(result.rowcount)
