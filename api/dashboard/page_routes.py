"""The dashboard's pages under /dashboard (HTML), and their static files."""

from __future__ import annotations

from pathlib import Path

from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from api.dashboard import pages_auth as auth
from api.dashboard import pages_intents as intents
from api.dashboard import pages_org as org
from api.dashboard import pages_projects as projects
from api.dashboard import pages_providers as providers
from api.dashboard import pages_webhooks as webhooks

STATIC = Path(__file__).resolve().parent.parent / "static" / "dashboard"
P = "/projects/{projectId}"


class DashboardAssets(StaticFiles):
    methods = ("GET", "HEAD")  # what a 405 names in `Allow`


def _get(path: str, endpoint: object) -> Route:
    return Route(path, endpoint, methods=["GET"])  # type: ignore[arg-type]


def _post(path: str, endpoint: object) -> Route:
    return Route(path, endpoint, methods=["POST"])  # type: ignore[arg-type]


PAGES: list[BaseRoute] = [
    Mount("/assets", app=DashboardAssets(directory=STATIC)),
    _get("/login", auth.login_page),
    _post("/login", auth.login),
    _post("/logout", auth.logout),
    _post("/logout-everywhere", auth.logout_everywhere),
    _get("/join/{token}", auth.join_page),
    _post("/join/{token}", auth.join),
    _post("/projects", projects.create_project),
    _get(P, projects.project_page),
    _post(P + "/rotate-secret", projects.rotate_secret),
    _post(P + "/revoke-previous-secret", projects.revoke_previous),
    _post(P + "/issuers", projects.add_issuer),
    _post(P + "/issuers/{issuerId}/remove", projects.remove_issuer),
    _post(P + "/origins", projects.set_origins),
    _post(P + "/partner-fee", projects.set_partner_fee),
    _post(P + "/routing", projects.set_routing),
    _get(P + "/providers", providers.providers_page),
    _post(P + "/providers/{provider}", providers.provider_action),
    _post(P + "/provider-accounts/{providerAccountId}", providers.account_action),
    _get("/security", providers.security_page),
    _post("/security", providers.security_action),
    _get(P + "/webhooks", webhooks.webhooks_page),
    _post(P + "/webhooks", webhooks.add_endpoint),
    _post(P + "/webhooks/{endpointId}", webhooks.change_endpoint),
    _post(P + "/deliveries/{deliveryId}/redeliver", webhooks.redeliver),
    _get(P + "/intents", intents.intents_page),
    _get(P + "/unmatched", intents.unmatched_page),
    _get(P + "/intents/{intentId}", intents.intent_page),
    _post(P + "/intents/{intentId}/sandbox", intents.sandbox_action),
    _get("/members", org.members_page),
    _post("/members/invite", org.invite),
    _post("/invites/{inviteId}/revoke", org.revoke_invite),
    _post("/members/{memberId}", org.change_member),
    _get("/api-keys", org.keys_page),
    _post("/api-keys", org.create_key),
    _post("/api-keys/{keyId}/revoke", org.revoke_key),
    _get("/audit", org.audit_page),
]

# The home page is `/dashboard` itself (a Mount matches only below it).
DASHBOARD: list[BaseRoute] = [_get("/dashboard", projects.home), Mount("/dashboard", routes=PAGES)]
