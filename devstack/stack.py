"""`ramp dev`: the whole stack (Temporal dev server, worker, API and, on PostgreSQL, a
webhook dispatcher) as one group: the sandbox (mock providers, a demo project) or,
with `--environment production`, production on one machine (real provider connectors
only, no sandbox endpoints, no demo project; `ramp project create` and `ramp
provider-account set` on the data dir set it up).

A child that crashes is restarted (with backoff, reported on stderr); Temporal comes
back on the same database file with every workflow, the API on the same port. Only
Ctrl-C (or SIGTERM) stops the group.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from sqlmodel.ext.asyncio.session import AsyncSession

from devstack.supervisor import ChildSpec, RestartPolicy, Supervisor
from devstack.temporal_server import dev_server_args, ensure_search_attributes, wait_until_serving
from ramp import projects, temporal
from ramp.config import Environment, Settings, WebhookDispatch
from ramp.db.engine import create_engine
from ramp.db.migrate import upgrade
from ramp.db.tables import Project
from ramp.onboarding.projects import load_project, set_onboarding_origins
from ramp.origins import DEV_ORIGINS
from ramp.security.encryption import SecretBox
from ramp.security.files import private_dir, private_process, tighten_files
from ramp.settings_loader import load_settings, mark_stack

DEMO_PROJECT_FILE = "demo-project.json"
STARTUP_TIMEOUT_SECONDS = 60.0
# `ramp dev --metrics-port P`: each child's metrics port is P plus its offset.
METRICS_PORT_OFFSETS = {"api": 0, "worker": 1, "dispatcher": 2}


@dataclass(frozen=True)
class DemoCredentials:
    project_id: str
    client_id: str
    client_secret: str


@dataclass
class DevStack:
    host: str
    port: int
    temporal_port: int
    ui_port: int
    temporal_address: str | None
    data_dir: Path
    database_url: str | None = None
    environment: Environment = Environment.SANDBOX
    # When `ramp dev` started (time.monotonic()): each step says how long it took and
    # the banner how long the whole start did.
    started_at: float = field(default_factory=time.monotonic)
    # `--metrics-port`: the API's metrics there, the worker's next, the dispatcher's after.
    metrics_port: int | None = None
    # Where each child serves them, once `run` knows the settings (for the banner).
    metrics_at: dict[str, str] = field(default_factory=dict)

    @property
    def api_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def settings(self) -> Settings:
        return load_settings(
            self.data_dir,
            RAMP_ENV=self.environment.value,
            DATABASE_URL=self.database_url or f"sqlite:///{self.data_dir / 'ramp.db'}",
            TEMPORAL_ADDRESS=self.temporal_address or f"{self.host}:{self.temporal_port}",
            RAMP_PUBLIC_URL=self.api_url,
            RAMP_TEMPORAL_UI_URL=""
            if self.temporal_address
            else f"http://{self.host}:{self.ui_port}",
        )

    def child_env(self, settings: Settings) -> dict[str, str]:
        """What the worker and API children are configured with."""
        return {
            "RAMP_ENV": settings.ramp_env.value,
            "RAMP_DATA_DIR": str(settings.data_dir),
            "DATABASE_URL": settings.database_url,
            "TEMPORAL_ADDRESS": settings.temporal_address,
            "TEMPORAL_NAMESPACE": settings.temporal_namespace,
            "RAMP_PUBLIC_URL": settings.public_url,
            "RAMP_TEMPORAL_UI_URL": settings.temporal_ui_url,
            "RAMP_SIGNING_KEY": settings.signing_key.get_secret_value(),
            "RAMP_ENCRYPTION_KEYS": settings.encryption_keys.get_secret_value(),
            "RAMP_WEBHOOK_DISPATCH": self.webhook_dispatch(settings).value,
            "RAMP_METRICS_HOST": settings.metrics_host,
        }

    def metrics_urls(self, settings: Settings) -> dict[str, str]:
        """Where each child serves its metrics (`--metrics-port`), by child."""
        if self.metrics_port is None:
            return {}
        children = ["api", "worker"]
        if self.webhook_dispatch(settings) is WebhookDispatch.SEPARATE:
            children.append("dispatcher")
        host = settings.metrics_host
        return {
            child: f"http://{host}:{self.metrics_port + METRICS_PORT_OFFSETS[child]}/metrics"
            for child in children
        }

    def metrics_env(self, env: dict[str, str], child: str) -> dict[str, str]:
        if self.metrics_port is None:
            return env
        return {**env, "RAMP_METRICS_PORT": str(self.metrics_port + METRICS_PORT_OFFSETS[child])}

    def webhook_dispatch(self, settings: Settings) -> WebhookDispatch:
        """On PostgreSQL, webhooks go from a dispatcher process of their own, off the
        worker's core; on SQLite, from the worker: a second writing process waits for
        SQLite's one write lock behind the worker's, seconds at a time under load
        (docs/decisions.md, "Issue 16"). RAMP_WEBHOOK_DISPATCH, when set (in the environment
        or .env), decides."""
        if "webhook_dispatch" in settings.model_fields_set:
            return settings.webhook_dispatch
        if settings.on_postgresql:
            return WebhookDispatch.SEPARATE
        return WebhookDispatch.WORKER

    def step(self, message: str, since: float) -> None:
        """One line of the start-up: what was done and how long it took (the supervisor's
        prefix, before the supervisor exists)."""
        print(f"[ramp] {message} ({time.monotonic() - since:.1f} s)", flush=True)

    def run(self) -> int:
        # Databases and keys live here: the service's user only (ramp/security/files.py),
        # whoever writes them: this process, Temporal's dev server (its SQLite files hold
        # labels, amounts, customer ids, deposit instructions), the worker or the API.
        private_process()
        private_dir(self.data_dir)
        tighten_files(self.data_dir)
        mark_stack(self.data_dir, self.environment, self.api_url, self.database_url)
        settings = self.settings()
        started = time.monotonic()
        upgrade(settings)
        self.step(f"database migrated in {self.data_dir}", started)
        demo: DemoCredentials | None = None
        if self.environment is Environment.SANDBOX:
            started = time.monotonic()
            marker = self.data_dir / DEMO_PROJECT_FILE
            known = json.loads(marker.read_text())["projectId"] if marker.exists() else None
            demo = asyncio.run(ensure_demo_project(settings, known))
            marker.write_text(json.dumps({"projectId": demo.project_id}))
            self.step(
                "demo project " + ("found" if known == demo.project_id else "created"), started
            )
        env = self.child_env(settings)
        self.metrics_at = self.metrics_urls(settings)
        ramp = [sys.executable, "-m", "devstack"]
        with Supervisor(restart=RestartPolicy()) as supervisor:
            started = time.monotonic()
            if self.temporal_address is None:
                supervisor.start(
                    ChildSpec(
                        "temporal",
                        dev_server_args(
                            host=self.host,
                            port=self.temporal_port,
                            ui_port=self.ui_port,
                            db_file=self.data_dir / "temporal.db",
                            namespace=settings.temporal_namespace,
                            # Its shutdown prints a dozen harmless warnings at "warn".
                            log_level="error",
                        ),
                    )
                )
            asyncio.run(self._temporal_ready(settings, lambda: supervisor.is_running("temporal")))
            self.step(
                "Temporal dev server answering"
                if self.temporal_address is None
                else f"Temporal at {self.temporal_address} answering",
                started,
            )
            supervisor.log("starting the worker and the API; waiting until /healthz answers")
            children_started = time.monotonic()
            supervisor.start(
                ChildSpec("worker", [*ramp, "worker"], env=self.metrics_env(env, "worker"))
            )
            if env["RAMP_WEBHOOK_DISPATCH"] == WebhookDispatch.SEPARATE:
                supervisor.start(
                    ChildSpec(
                        "dispatcher", [*ramp, "dispatcher"], env=self.metrics_env(env, "dispatcher")
                    )
                )
            supervisor.start(
                ChildSpec(
                    "api",
                    [*ramp, "api", "--host", self.host, "--port", str(self.port)],
                    env=self.metrics_env(env, "api"),
                )
            )
            threading.Thread(
                target=self._announce_when_healthy,
                args=(supervisor, demo, children_started),
                daemon=True,
            ).start()
            return supervisor.wait()

    async def _temporal_ready(self, settings: Settings, server_alive: Callable[[], bool]) -> None:
        await wait_until_serving(
            settings.temporal_address,
            settings.temporal_namespace,
            STARTUP_TIMEOUT_SECONDS,
            # Fail at once if the server we started died (its port may be taken).
            is_alive=server_alive if self.temporal_address is None else None,
        )
        if self.temporal_address is not None:
            # A server we did not start may not know our search attributes yet.
            client = await temporal.connect(settings)
            await ensure_search_attributes(client, settings.temporal_namespace)

    def _announce_when_healthy(
        self, supervisor: Supervisor, demo: DemoCredentials | None, children_started: float
    ) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.api_url}/healthz", timeout=2).status_code == 200:
                    now = time.monotonic()
                    supervisor.log(f"worker and API answering ({now - children_started:.1f} s)")
                    took = now - self.started_at
                    supervisor.log(self.banner(demo, took))
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        supervisor.request_stop("the API did not become healthy in time")

    def operations_lines(self) -> list[str]:
        lines = [f"  Readiness:          {self.api_url}/readyz"]
        for child, url in self.metrics_at.items():
            lines.append(f"  Metrics ({child}): ".ljust(22) + url)
        return lines

    def banner(self, demo: DemoCredentials | None, took: float) -> str:
        ramp = ramp_command()
        ui = (
            f"http://{self.host}:{self.ui_port}"
            if self.temporal_address is None
            else f"(Temporal at {self.temporal_address}: its own UI)"
        )
        if demo is None:
            data = f"--data-dir {self.data_dir}"
            return "\n".join(
                [
                    f"production (local) is ready ({took:.1f} s after start)",
                    f"  API base URL:       {self.api_url}/v1",
                    f"  Health:             {self.api_url}/healthz",
                    *self.operations_lines(),
                    *self.operations_lines(),
                    f"  Temporal UI:        {ui}",
                    f"  Dashboard:          {self.api_url}/dashboard",
                    f"  Data dir:           {self.data_dir}",
                    f"  Dashboard owner:    {ramp} org create --name NAME "
                    f"--owner-email EMAIL {data}",
                    f"  Create a project:   {ramp} project create --name NAME {data}",
                    f"  Connect a provider: {ramp} provider-account set --project-id ID "
                    f"--provider BRIDGE --credentials-file FILE {data}",
                    "  Stop with Ctrl-C.",
                ]
            )
        # The commands' own default is ./.ramp (or RAMP_DATA_DIR): another data dir is
        # named, or `org create` would make an organization in a database this stack
        # never reads, with a setup link to another port.
        default_dir = Path(os.environ.get("RAMP_DATA_DIR", ".ramp")).absolute()
        named_dir = f" --data-dir {self.data_dir}"
        if self.data_dir.absolute() == default_dir:
            named_dir = ""
        return "\n".join(
            [
                f"sandbox is ready ({took:.1f} s after start)",
                f"  API base URL:       {self.api_url}/v1",
                f"  Health:             {self.api_url}/healthz",
                *self.operations_lines(),
                f"  Temporal UI:        {ui}",
                f"  Dashboard:          {self.api_url}/dashboard "
                f"(first: {ramp} org create --name NAME --owner-email EMAIL{named_dir},",
                "                      which gets the demo project)",
                f"  Demo project id:    {demo.project_id}",
                f"  Demo client id:     {demo.client_id}",
                f"  Demo client secret: {demo.client_secret}",
                f"  Data dir:           {self.data_dir}",
                "  Stop with Ctrl-C.",
            ]
        )


def ramp_command() -> str:
    """How to type the `ramp` command that runs this stack: it is installed beside this
    Python (.venv/bin/ramp) and is not on the PATH unless the venv is activated, so the
    banner names its path, relative to the working directory where it lies below it
    (scripts/sandbox runs from the repository's root, where the README's commands are
    typed)."""
    installed = Path(sys.executable).parent / "ramp"
    if not installed.exists():
        return "ramp"
    try:
        return str(installed.relative_to(Path(os.getcwd())))
    except ValueError:
        return str(installed)


async def ensure_demo_project(settings: Settings, project_id: str | None) -> DemoCredentials:
    """The demo project, created on first start and found again (by id) on later ones.

    Its secret is read back from the database (it is stored encrypted for webhook
    signing), so nothing but the project id is kept in the data dir.
    """
    secret_box = SecretBox.from_settings(settings)
    engine = create_engine(settings)
    try:
        async with AsyncSession(engine, expire_on_commit=False) as session:
            if project_id is not None:
                project = await session.get(Project, project_id)
                if project is not None:
                    return DemoCredentials(
                        project_id=project.id,
                        client_id=project.client_id,
                        client_secret=secret_box.decrypt(project.client_secret_encrypted),
                    )
            created = await projects.create_project(
                session,
                name="Demo sandbox project",
                environment=Environment.SANDBOX,
                secret_box=secret_box,
            )
            # Any local web app may embed the hosted onboarding during development.
            demo = await load_project(session, created.projectId)
            await set_onboarding_origins(session, demo, DEV_ORIGINS)
        return DemoCredentials(
            project_id=created.projectId,
            client_id=created.clientId,
            client_secret=created.clientSecret,
        )
    finally:
        await engine.dispose()
