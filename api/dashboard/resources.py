"""Stored rows as admin API resources (shared by the admin API and the pages' JSON)."""

from __future__ import annotations

from api.dashboard.schemas import (
    AdminProjectResource,
    ApiKeyResource,
    AuditEventResource,
    IntentSummaryResource,
    MemberResource,
    TrustedIssuerResource,
)
from ramp.config import Environment
from ramp.db.tables import (
    AuditEvent,
    IntentRow,
    OrgApiKey,
    OrgMember,
    Project,
    TrustedIssuer,
)
from ramp.db.types import utcnow
from ramp.money import format_amount
from ramp.organizations.access import Role
from ramp.projects import previous_secret_valid


def project_resource(project: Project) -> AdminProjectResource:
    return AdminProjectResource(
        id=project.id,
        organization_id=project.organization_id,
        name=project.name,
        environment=Environment(project.environment),
        client_id=project.client_id,
        previous_secret_valid_until=project.previous_secret_expires_at
        if previous_secret_valid(project, utcnow())
        else None,
        onboarding_origins=list(project.onboarding_origins),
        created_at=project.created_at,
    )


def issuer_resource(issuer: TrustedIssuer) -> TrustedIssuerResource:
    return TrustedIssuerResource(
        id=issuer.id,
        issuer=issuer.issuer,
        audiences=list(issuer.audiences),
        jwks_url=issuer.jwks_url,
        created_at=issuer.created_at,
    )


def member_resource(member: OrgMember) -> MemberResource:
    return MemberResource(
        id=member.id,
        email=member.email,
        role=Role(member.role),
        totp_enabled=member.totp_secret_encrypted is not None,
        created_at=member.created_at,
    )


def api_key_resource(key: OrgApiKey) -> ApiKeyResource:
    return ApiKeyResource(
        id=key.id,
        name=key.name,
        role=Role(key.role),
        prefix=key.prefix,
        created_at=key.created_at,
        revoked_at=key.revoked_at,
        last_used_at=key.last_used_at,
    )


def audit_resource(event: AuditEvent) -> AuditEventResource:
    return AuditEventResource(
        id=event.id,
        project_id=event.project_id,
        actor=event.actor,
        action=event.action,
        target=event.target,
        details=dict(event.details),
        ip=event.ip,
        created_at=event.created_at,
    )


def intent_summary(intent: IntentRow) -> IntentSummaryResource:
    return IntentSummaryResource(
        id=intent.id,
        status=intent.status,
        customer_id=intent.customer_id,
        provider_code=intent.provider_code,
        amount=format_amount(intent.amount),
        currency_code=intent.currency_code,
        created_at=intent.created_at,
        updated_at=intent.updated_at,
    )
