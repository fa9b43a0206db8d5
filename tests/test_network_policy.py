"""Issue 23, server-side requests: where the service may send a request on a project's
behalf (ramp/security/network.py), checked at registration and on the very address each
request connects to.

The receivers all listen on loopback. A name that passes the registration check and
resolves to loopback only when the request is made needs an answer from DNS that
changes: there is no DNS server here to change, so `dns` answers for test names (and
only for those) in place of the system's resolver, as a rebinding DNS server would.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from api.app import create_app
from ramp import projects
from ramp.adapters.registry import Connectors
from ramp.config import Environment, Settings
from ramp.db.tables import TrustedIssuer
from ramp.db.types import utcnow
from ramp.errors import InvalidInput, Unavailable
from ramp.identity import oidc
from ramp.identity.oidc import MAX_JWKS_BYTES
from ramp.provider_accounts import service as provider_service
from ramp.security.encryption import SecretBox
from ramp.security.keys import generated_keys
from ramp.security.network import LOCAL_ALLOWED, PUBLIC_ONLY, literal_address
from ramp.settings_loader import load_settings, mark_stack
from ramp.webhooks.sender_process import sender_process
from ramp.webhooks.sending import Outgoing, Signer, http_client, send
from tests.helpers.cli import ramp_in_process as ramp
from tests.helpers.dashboard import join, new_organization
from tests.helpers.errors import assert_envelope
from tests.helpers.identity_provider import public_jwk, serve_jwks
from tests.helpers.projects import ProjectCredentials
from tests.helpers.servers import derive_settings, serve

# About where the service may send requests, not the database: one of the two passes runs it.
pytestmark = pytest.mark.either_database

ISSUER = "https://login.example/tenant"
AUDIENCE = "ramp-app"
KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
# A public address: where the rebinding name points when it is checked. An AS112 DNS
# sink (RFC 7535): nothing there listens on the test's port, should the network reach it.
PUBLIC_ADDRESS = "192.175.48.1"


class Dns:
    """Answers for test names in turn (the last one repeats); counts the questions."""

    def __init__(self) -> None:
        self.answers: dict[str, list[str]] = {}
        self.asked: dict[str, int] = {}


@pytest.fixture
def dns(monkeypatch: pytest.MonkeyPatch) -> Dns:
    system = socket.getaddrinfo
    fake = Dns()

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        answers = fake.answers.get(name)
        if answers is None:
            return system(host, port, *args, **kwargs)
        fake.asked[name] = fake.asked.get(name, 0) + 1
        address = answers.pop(0) if len(answers) > 1 else answers[0]
        return system(address, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return fake


class Listener:
    """A loopback port that counts the connections made to it (and closes them)."""

    def __init__(self) -> None:
        self.connections = 0
        self.port = 0


@asynccontextmanager
async def listening() -> AsyncIterator[Listener]:
    listener = Listener()

    async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        listener.connections += 1
        writer.close()

    server = await asyncio.start_server(accepted, "127.0.0.1", 0)
    listener.port = server.sockets[0].getsockname()[1]
    async with server:
        yield listener


@pytest.fixture
async def production_client(migrated: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with serve(create_app(derive_settings(migrated, RAMP_ENV="production"))) as http:
        yield http


@pytest.fixture
async def live(db: AsyncSession, migrated: Settings) -> ProjectCredentials:
    created = await projects.create_project(
        db,
        name="Live",
        environment=Environment.PRODUCTION,
        secret_box=SecretBox.from_settings(migrated),
    )
    return ProjectCredentials(
        created.organizationId, created.projectId, created.clientId, created.clientSecret
    )


def id_token(subject: str) -> str:
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": subject, "iat": now, "exp": now + 300}
    return jwt.encode(claims, KEY, algorithm="RS256", headers={"kid": "k1"})


# --- the policy -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "public", "local"),
    [
        ("93.184.215.14", True, True),
        ("2606:4700:4700::1111", True, True),
        ("127.0.0.1", False, True),
        ("::1", False, True),
        ("10.0.0.7", False, True),
        ("fd12::1", False, True),
        ("100.64.0.1", False, True),
        # Loopback and private v4 inside v6: mapped, NAT64 (well-known and local-use),
        # 6to4, compatible.
        ("::ffff:127.0.0.1", False, True),
        ("64:ff9b::7f00:1", False, True),
        ("64:ff9b::a00:7", False, True),
        ("64:ff9b::808:808", True, True),
        ("64:ff9b:1::7f00:1", False, True),
        ("2002:7f00:1::", False, True),
        ("::127.0.0.2", False, True),
        # Never: metadata (link-local and the providers' own), multicast, broadcast,
        # unspecified, "this network", reserved; inside v6 too.
        ("169.254.169.254", False, False),
        ("fe80::1", False, False),
        ("fd00:ec2::254", False, False),
        ("100.100.100.200", False, False),
        ("64:ff9b::a9fe:a9fe", False, False),
        # Local-use NAT64 around metadata: at the /96 place, and at the /48 one.
        ("64:ff9b:1::a9fe:a9fe", False, False),
        ("64:ff9b:1:a9fe:a9:fe00::", False, False),
        ("224.0.0.1", False, False),
        ("ff02::1", False, False),
        ("255.255.255.255", False, False),
        ("0.0.0.0", False, False),  # noqa: S104 (an address checked, not bound)
        ("::", False, False),
        ("0.1.2.3", False, False),
        ("240.0.0.1", False, False),
    ],
)
def test_which_addresses_each_policy_reaches(address: str, public: bool, local: bool) -> None:
    parsed = literal_address(address)
    assert parsed is not None
    assert PUBLIC_ONLY.permits(parsed) is public
    assert LOCAL_ALLOWED.permits(parsed) is local


# --- webhook endpoints ------------------------------------------------------------------


REFUSED_IN_PRODUCTION = [
    "https://localhost./hooks",
    "https://LOCALHOST/hooks",
    "https://api.localhost/hooks",
    "https://vm/hooks",
    "https://vm./hooks",
    "https://metadata.google.internal/computeMetadata/v1/",
    "https://db.internal/hooks",
    "https://printer.local/hooks",
    "https://[64:ff9b::7f00:1]/hooks",
    "https://[64:ff9b::a9fe:a9fe]/hooks",
    "https://[::ffff:7f00:1]/hooks",
    "https://224.0.0.1/hooks",
    "https://hooks.example.com:99999/hooks",
    "https://hooks.example.com:0/hooks",
]
REFUSED_EVERYWHERE = [
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://metadata/computeMetadata/v1/",
    "http://169.254.169.254/latest/meta-data/",
    "http://224.0.0.1/hooks",
    "http://[ff02::1]/hooks",
    "http://0.0.0.0:8080/hooks",
    "http://127.0.0.1:99999/hooks",
    # What urlsplit drops before parsing (so it judged another URL than the one stored).
    "http://hooks.exam\tple.com/hooks",
    "http://127.0.0.1\n.example.com/hooks",
    "https://hooks.example.com/a b",
]


async def test_production_endpoints_off_the_public_internet_are_refused_with_the_field_named(
    production_client: httpx.AsyncClient, live: ProjectCredentials
) -> None:
    for url in REFUSED_IN_PRODUCTION + REFUSED_EVERYWHERE:
        response = await production_client.post(
            "/v1/webhooks/endpoints", json={"url": url}, headers=live.basic
        )
        assert response.status_code == 400, (url, response.text)
        body = response.json()
        assert body["code"] == "INVALID_WEBHOOK_ENDPOINT", url
        assert [field["pointer"] for field in body["details"]["fields"]] == ["/url"], url
    accepted = await production_client.post(
        "/v1/webhooks/endpoints", json={"url": "https://hooks.example.com/x"}, headers=live.basic
    )
    assert accepted.status_code == 201, accepted.text
    changed = await production_client.patch(
        f"/v1/webhooks/endpoints/{accepted.json()['id']}",
        json={"url": "https://localhost./hooks"},
        headers=live.basic,
    )
    assert changed.status_code == 400
    assert changed.json()["details"]["fields"][0]["pointer"] == "/url"


async def test_sandbox_endpoints_may_be_local_but_never_metadata_multicast_or_bad_ports(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    for url in REFUSED_EVERYWHERE:
        response = await client.post(
            "/v1/webhooks/endpoints", json={"url": url}, headers=project.basic
        )
        assert response.status_code == 400, (url, response.text)
        assert response.json()["details"]["fields"][0]["pointer"] == "/url"
    # The sandbox's allowance: the developer's own receivers.
    for url in ("http://127.0.0.1:8080/hooks", "http://localhost:8080/hooks", "http://vm:81/"):
        response = await client.post(
            "/v1/webhooks/endpoints", json={"url": url}, headers=project.basic
        )
        assert response.status_code == 201, (url, response.text)


async def test_a_webhook_attempt_connects_to_the_address_it_checked(dns: Dns) -> None:
    """DNS rebinding: the name is public when checked, loopback a moment later."""
    async with listening() as listener, http_client(4) as http:
        name = f"rebind-{uuid.uuid4().hex[:8]}.example"
        dns.answers[name] = [PUBLIC_ADDRESS, "127.0.0.1"]
        sent = await send(
            http,
            f"http://{name}:{listener.port}/hooks",
            Outgoing("evt-1", "INTENT_STATUS_CHANGED", b"{}"),
            Signer("client-1", (SECRET,), public_only=True),
            2.0,
            datetime.now(UTC),
        )
    assert not sent.acknowledged
    assert listener.connections == 0
    assert dns.asked[name] == 1


async def test_a_production_webhook_to_a_name_of_loopback_is_not_sent(dns: Dns) -> None:
    async with listening() as listener, http_client(4) as http:
        dns.answers["hooks.shop.example"] = ["127.0.0.1"]
        sent = await send(
            http,
            f"https://hooks.shop.example:{listener.port}/hooks",
            Outgoing("evt-2", "INTENT_STATUS_CHANGED", b"{}"),
            Signer("client-1", (SECRET,), public_only=True),
            5.0,
            datetime.now(UTC),
        )
    assert sent.status_code is None
    assert "hooks.shop.example resolves to an address" in (sent.error or "")
    assert listener.connections == 0


# --- trusted issuers' keys --------------------------------------------------------------


async def test_a_production_issuer_on_an_internal_name_is_refused(
    db: AsyncSession, live: ProjectCredentials
) -> None:
    """`ramp project trust-issuer --jwks-url https://vm:18495/jwks`, `vm` in /etc/hosts."""
    for url in (
        "https://vm:18495/jwks",
        "https://localhost./jwks",
        "https://metadata.google.internal/jwks",
        "https://[64:ff9b::7f00:1]/jwks",
        "https://login.example:99999/jwks",
    ):
        with pytest.raises(ValueError, match="jwksUrl"):
            await projects.trust_issuer(
                db, project_id=live.project_id, issuer=ISSUER, audiences=[AUDIENCE], jwks_url=url
            )


async def test_production_issuer_keys_are_fetched_only_from_public_addresses(
    production_client: httpx.AsyncClient,
    db: AsyncSession,
    live: ProjectCredentials,
    dns: Dns,
) -> None:
    """Checked at the fetch, on the address connected to: a name that resolves to
    loopback (registered while it did not, or before this check existed) is not
    fetched from, and a sign-in with its token is refused."""
    async with listening() as listener:
        dns.answers["keys.login.example"] = ["127.0.0.1"]
        await projects.trust_issuer(
            db,
            project_id=live.project_id,
            issuer=ISSUER,
            audiences=[AUDIENCE],
            jwks_url=f"https://keys.login.example:{listener.port}/jwks",
        )
        signed_in = await production_client.post(
            "/v1/customers", json={"id": "ada", "subject_token": id_token("a")}, headers=live.basic
        )
        assert signed_in.status_code == 400, signed_in.text
        assert signed_in.json()["details"]["reason"] == "OIDC_KEYS_UNAVAILABLE"

        # Stored as the campaign registered it (before registrations were checked).
        db.add(
            TrustedIssuer(
                id=str(uuid.uuid4()),
                project_id=live.project_id,
                issuer="https://vm.issuer",
                audiences=[AUDIENCE],
                jwks_url=f"https://vm:{listener.port}/jwks",
            )
        )
        await db.commit()
        token = jwt.encode(
            {
                "iss": "https://vm.issuer",
                "aud": AUDIENCE,
                "sub": "b",
                "iat": int(time.time()),
                "exp": int(time.time()) + 300,
            },
            KEY,
            algorithm="RS256",
            headers={"kid": "k1"},
        )
        again = await production_client.post(
            "/v1/customers", json={"id": "bob", "subject_token": token}, headers=live.basic
        )
        assert again.status_code == 400, again.text
        assert again.json()["details"]["reason"] == "OIDC_KEYS_UNAVAILABLE"
    assert listener.connections == 0


def test_a_key_set_is_fetched_within_a_size_bound() -> None:
    """A JWKS endpoint cannot make the service read (and parse) an unbounded body."""
    server, stop = serve_jwks()
    try:
        padding = "x" * (MAX_JWKS_BYTES + 1)
        server.raw = json.dumps({"keys": [public_jwk(KEY, "k1", "RS256")], "pad": padding}).encode()
        issuer = oidc.TrustedIssuer(
            issuer=ISSUER, audiences=(AUDIENCE,), jwks_url=server.url, network=LOCAL_ALLOWED
        )
        with pytest.raises(oidc.IdentityTokenError) as refused:
            oidc.OidcVerifier().verify(id_token("a"), issuer)
        assert refused.value.code == "OIDC_KEYS_UNAVAILABLE"
        server.raw = None
        server.jwks = {"keys": [public_jwk(KEY, "k1", "RS256")]}
        assert oidc.OidcVerifier().verify(id_token("a"), issuer).subject == "a"
    finally:
        stop()


# --- provider base URLs -----------------------------------------------------------------


async def test_a_provider_base_url_reaches_only_public_addresses_unless_the_operator_allows(
    db: AsyncSession, live: ProjectCredentials, migrated: Settings, dns: Dns
) -> None:
    """An owner's `baseUrl` override is a URL the service calls with the account's API
    key: with the deployment's defaults (no `RAMP_PROVIDER_NETWORKS`) it cannot point at
    loopback, by address or by name."""
    async with listening() as listener:

        async def connect(base_url: str, connectors: Connectors) -> Any:
            return await provider_service.set_provider_account(
                db,
                project_id=live.project_id,
                provider_code="BRIDGE",
                credentials={"apiKey": "sk-test-0123456789", "environment": "sandbox",
                             "baseUrl": base_url},
                secret_box=SecretBox.from_settings(migrated),
                public_url=migrated.public_url,
                connectors=connectors,
            )  # fmt: skip

        for base_url in (
            f"http://127.0.0.1:{listener.port}/v0",
            f"http://vm:{listener.port}/v0",
            f"http://[64:ff9b::7f00:1]:{listener.port}/v0",
        ):
            with pytest.raises(InvalidInput) as refused:
                await connect(base_url, Connectors())
            assert refused.value.details["fields"][0]["pointer"] == "/baseUrl", base_url

        # A name that passes the check and resolves to loopback when called.
        dns.answers["bridge-proxy.example"] = ["127.0.0.1"]
        with pytest.raises(Unavailable):
            await connect(f"http://bridge-proxy.example:{listener.port}/v0", Connectors())
        assert listener.connections == 0

        # The operator's allowance (a staging proxy, here the listener) is honoured.
        allowed = Connectors.from_settings(
            derive_settings(migrated, RAMP_PROVIDER_NETWORKS="127.0.0.1/32")
        )
        with pytest.raises(Unavailable):  # the listener hangs up: no answer
            await connect(f"http://bridge-proxy.example:{listener.port}/v0", allowed)
        assert listener.connections >= 1


def test_the_cli_refuses_a_production_issuer_on_an_internal_name(tmp_path: Path) -> None:
    """The campaign's command, as an operator runs it (`vm` is in /etc/hosts)."""
    env = {"RAMP_ENV": "production", **generated_keys()}
    created = ramp("project", "create", "--name", "Live", "--data-dir", str(tmp_path), env=env)
    assert created.returncode == 0, created.stderr
    project_id = json.loads(created.stdout)["projectId"]
    for url in ("https://vm:18495/jwks", "https://[64:ff9b::7f00:1]:18495/jwks"):
        refused = ramp(
            "project", "trust-issuer", "--project-id", project_id, "--issuer", ISSUER,
            "--audience", AUDIENCE, "--jwks-url", url, "--data-dir", str(tmp_path), env=env,
        )  # fmt: skip
        assert refused.returncode == 1, refused.stdout
        assert "jwksUrl must name a public host" in refused.stderr
        assert "Traceback" not in refused.stderr
    accepted = ramp(
        "project", "trust-issuer", "--project-id", project_id, "--issuer", ISSUER,
        "--audience", AUDIENCE, "--jwks-url", "https://login.example/jwks",
        "--data-dir", str(tmp_path), env=env,
    )  # fmt: skip
    assert accepted.returncode == 0, accepted.stderr


async def test_the_admin_api_refuses_a_production_issuer_on_an_internal_name_with_the_field(
    client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    owner = await join(client, await new_organization(sessions, "owner@shop.test"))
    created = await client.post(
        "/v1/admin/projects",
        json={"name": "Live", "environment": "production"},
        headers=owner.write,
    )
    assert created.status_code == 201, created.text
    issuers = f"/v1/admin/projects/{created.json()['projectId']}/trusted-issuers"
    for url in ("https://vm:18495/jwks", "https://metadata.google.internal/jwks"):
        refused = await client.post(
            issuers,
            json={"issuer": ISSUER, "audiences": [AUDIENCE], "jwksUrl": url},
            headers=owner.write,
        )
        body = assert_envelope(refused, 400, "INVALID_ISSUER")
        assert [f["pointer"] for f in body["details"]["fields"]] == ["/jwksUrl"], url


async def test_the_workers_sender_process_sends_where_the_projects_policy_allows() -> None:
    """The same policy in the worker's child process: a production project's attempt to
    a name of loopback makes no connection, a sandbox project's does."""
    async with listening() as listener, sender_process(4) as sender:
        url = f"http://vm:{listener.port}/hooks"
        production = Signer("client-1", (SECRET,), public_only=True)
        refused = await sender.send(url, Outgoing("e-1", "T", b"{}"), production, 5, utcnow())
        assert refused.status_code is None
        assert listener.connections == 0
        sandbox = Signer("client-1", (SECRET,), public_only=False)
        await sender.send(url, Outgoing("e-2", "T", b"{}"), sandbox, 5, utcnow())
        assert listener.connections == 1


class _Drip(BaseHTTPRequestHandler):
    """A valid key set, sent a few bytes at a time over a minute."""

    def do_GET(self) -> None:
        server = self.server
        assert isinstance(server, DripServer)
        body = json.dumps({"keys": [public_jwk(KEY, "k1", "RS256")]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        step = max(1, len(body) // 300)
        for start in range(0, len(body), step):
            if server.stop.wait(0.2):
                return
            try:
                self.wfile.write(body[start : start + step])
                self.wfile.flush()
            except OSError:
                return  # the client hung up
        server.finished.set()

    def log_message(self, format: str, *args: Any) -> None:
        pass


class DripServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Drip)
        self.stop = threading.Event()
        self.finished = threading.Event()


def test_a_key_set_is_fetched_within_a_time_bound() -> None:
    """Each read within the timeout is not enough: a JWKS endpoint that answers a few
    bytes at a time cannot hold a sign-in (and a worker thread) for longer than the
    fetch's bound."""
    server = DripServer()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/jwks"
        issuer = oidc.TrustedIssuer(
            issuer=ISSUER, audiences=(AUDIENCE,), jwks_url=url, network=LOCAL_ALLOWED
        )
        with pytest.raises(oidc.IdentityTokenError) as refused:
            oidc.OidcVerifier().verify(id_token("a"), issuer)
        assert refused.value.code == "OIDC_KEYS_UNAVAILABLE"
        # Given up while the key set was still coming.
        assert not server.finished.is_set()
    finally:
        server.stop.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_only_a_local_stack_lets_provider_calls_reach_loopback_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("RAMP_PROVIDER_NETWORKS", "RAMP_ENV", "RAMP_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no .env of the repository's
    local = tmp_path / "local"
    mark_stack(local, Environment.PRODUCTION)
    assert load_settings(local).provider_networks == "127.0.0.0/8, ::1/128"
    monkeypatch.setenv("RAMP_PROVIDER_NETWORKS", "10.1.0.0/16")
    assert load_settings(local).provider_networks == "10.1.0.0/16"
    monkeypatch.delenv("RAMP_PROVIDER_NETWORKS")
    deployed = load_settings(tmp_path / "deployed", RAMP_ENV="production", **generated_keys())
    assert deployed.provider_networks == ""
    assert Connectors.from_settings(deployed).network == PUBLIC_ONLY
