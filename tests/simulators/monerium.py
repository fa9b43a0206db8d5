"""A Monerium simulator: a real HTTP server on loopback, written from Monerium's OpenAPI
document (monerium/js-monorepo, packages/openapi/openapi.yml).

It checks what an integration must get right: the v2 media type in `Accept` on every
API call, a bearer token from `POST /auth/token` (form-encoded client credentials) that
expires (`token_lifetime`, `expire_tokens`), paths and bodies against the documented
schemas (UUID v4 ids, EVM addresses, chains of the environment, whole-cent amounts,
the redeem message's shape and its timestamp window, EIP-191 signatures recovered to
the signing address, a supporting document from 15,000 EUR). It answers with the
documented shapes and statuses: 201/409 for profiles, 201/202 for address links,
202/304 for IBANs (provisioned right after the 202 and announced by `iban.updated`),
200 for orders. Webhooks are signed as Standard Webhooks with the subscriber's secret,
and a subscription is created only when its URL answers the signed
`subscription.created` test call with a 2xx. Tests drive what Monerium decides:
`incoming_sepa` (an issue order), `set_order_state`, `set_profile_state`.

The documented rules a request is checked against are in monerium_rules.py, the
subscriptions and the signed events in monerium_webhooks.py. Nothing here imports the
adapter: it is the other side of the wire.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.simulators.loopback import Gate, answer_of, on_loopback
from tests.simulators.monerium_rules import (
    ADDRESS,
    LINK_MESSAGE,
    MEDIA_TYPE,
    PERSONAL_REQUIRED,
    PRODUCTION_CHAINS,
    SANDBOX_CHAINS,
    UUID4,
    Invalid,
    check_details,
    check_link,
    check_order_id,
    check_redeem,
    check_upload,
    error,
    now,
    signed_by,
)
from tests.simulators.monerium_webhooks import Delivery, MoneriumWebhooks

__all__ = ["MEDIA_TYPE", "Delivery", "Fault", "MoneriumSimulator", "Recorded", "running"]


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    accept: str | None
    authorization: str | None
    body: Any


@dataclass
class Fault:
    status: int | None = None
    retry_after: str | None = None
    delay: float = 0.0
    path: str | None = None
    message: str = "simulated"


@dataclass
class MoneriumSimulator(MoneriumWebhooks):
    clients: dict[str, str] = field(default_factory=lambda: {
        "a08bfa22-e6d6-41ed-891c-2ea11c960b3f": "simulated-client-secret"})  # fmt: skip
    environment: str = "sandbox"
    token_lifetime: int = 3600
    requests: list[Recorded] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    tokens: dict[str, float] = field(default_factory=dict)  # token -> expiry (monotonic)
    tokens_issued: int = 0
    profiles: dict[str, dict[str, Any]] = field(default_factory=dict)
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    addresses: dict[str, dict[str, Any]] = field(default_factory=dict)  # by lower address
    ibans: dict[str, dict[str, Any]] = field(default_factory=dict)
    orders: dict[str, dict[str, Any]] = field(default_factory=dict)
    url: str = ""
    _background: set[asyncio.Task[None]] = field(default_factory=set)

    # --- controls for tests ------------------------------------------------------------

    def reset(self) -> None:
        for store in (self.requests, self.faults, self.deliveries):
            store.clear()
        for table in (self.tokens, self.profiles, self.addresses, self.ibans, self.orders,
                      self.subscriptions, self.files):  # fmt: skip
            table.clear()
        self.tokens_issued = 0
        self.token_lifetime = 3600

    def fail_next(self, fault: Fault, times: int = 1) -> None:
        self.faults.extend([fault] * times)

    def expire_tokens(self) -> None:
        """Every token issued so far expires now (as an hour passing would do)."""
        for token in self.tokens:
            self.tokens[token] = 0.0

    def calls(self, method: str, path: str) -> list[Recorded]:
        return [r for r in self.requests if r.method == method and r.path == path]

    @property
    def chains(self) -> set[str]:
        return SANDBOX_CHAINS if self.environment == "sandbox" else PRODUCTION_CHAINS

    async def set_profile_state(
        self, profile_id: str, state: str, sections: dict[str, str] | None = None
    ) -> None:
        profile = self.profiles[profile_id]
        profile["state"] = state
        for name, section_state in (sections or {}).items():
            if name in ("details", "form"):
                profile[name]["state"] = section_state
            else:
                for item in profile["verifications"]:
                    if item["kind"] == name:
                        item["state"] = section_state
        await self.notify("profile.updated", profile)

    async def incoming_sepa(
        self,
        iban: str,
        amount: str,
        memo: str | None,
        *,
        payer_iban: str = "DE89370400440532013000",
        payer_name: str = "Alex Morgan",
        reference_number: str | None = None,
    ) -> dict[str, Any]:
        """A SEPA payment lands on `iban`: an issue order, announced by `order.created`."""
        account = self.ibans[iban.replace(" ", "")]
        order = {
            "id": str(uuid.uuid4()),
            "kind": "issue",
            "profile": account["profile"],
            "address": account["address"],
            "chain": account["chain"],
            "currency": "eur",
            "amount": amount,
            "counterpart": {
                "identifier": {"standard": "iban", "iban": payer_iban},
                "details": {"name": payer_name},
            },
            "memo": memo,
            "state": "pending",
            "meta": {"placedAt": now()},
        }
        if reference_number:
            order["referenceNumber"] = reference_number
        self.orders[order["id"]] = order
        await self.notify("order.created", order)
        return order

    async def set_order_state(self, order_id: str, state: str, reason: str | None = None) -> None:
        order = self.orders[order_id]
        order["state"] = state
        if state == "processed":
            order["meta"]["processedAt"] = now()
            order["meta"]["txHashes"] = ["0x" + uuid.uuid4().hex * 2]
        if state == "rejected":
            order["meta"]["rejectedReason"] = reason or "Declined due to insufficient funds."
        await self.notify("order.updated", order)

    # --- the HTTP side -------------------------------------------------------------------

    def app(self) -> Starlette:
        routes = [
            Route("/auth/token", self._token, methods=["POST"]),
            Route("/profiles", self._create_profile, methods=["POST"]),
            Route("/profiles/{id}", self._get_profile, methods=["GET"]),
            Route("/profiles/{id}/details", self._patch_details, methods=["PATCH"]),
            Route("/profiles/{id}/verifications", self._patch_verifications, methods=["PATCH"]),
            Route("/files", self._upload_file, methods=["POST"]),
            Route("/addresses", self._link_address, methods=["POST"]),
            Route("/addresses", self._list_addresses, methods=["GET"]),
            Route("/ibans", self._request_iban, methods=["POST"]),
            Route("/ibans", self._list_ibans, methods=["GET"]),
            Route("/ibans/{iban}", self._move_iban, methods=["PATCH"]),
            Route("/orders", self._place_order, methods=["POST"]),
            Route("/orders", self._list_orders, methods=["GET"]),
            Route("/orders/{id}", self._get_order, methods=["GET"]),
            Route("/webhooks", self._list_subscriptions, methods=["GET"]),
            Route("/webhooks", self._create_subscription, methods=["POST"]),
            Route("/webhooks/{id}", self._update_subscription, methods=["PATCH"]),
        ]
        app = Starlette(routes=routes)
        app.add_middleware(_Gate, simulator=self)
        return app

    async def _token(self, request: Request) -> Response:
        if not request.headers.get("content-type", "").startswith(
            "application/x-www-form-urlencoded"
        ):
            return error(400, "the token endpoint takes a form")
        form = await request.form()
        if form.get("grant_type") != "client_credentials":
            return error(400, "The client is not authorized to request a token using this method.")
        client_id, secret = str(form.get("client_id") or ""), str(form.get("client_secret") or "")
        if self.clients.get(client_id) != secret or not secret:
            return error(401, "Invalid client credentials")
        token = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        self.tokens[token] = time.monotonic() + self.token_lifetime
        self.tokens_issued += 1
        return JSONResponse({"access_token": token, "expires_in": self.token_lifetime,
                             "refresh_token": "unused", "token_type": "Bearer"})  # fmt: skip

    async def _create_profile(self, request: Request) -> Response:
        body = await request.json()
        kind = body.get("kind")
        if kind not in ("personal", "corporate"):
            raise Invalid({"kind": "must be personal or corporate"})
        profile_id = body.get("id") or str(uuid.uuid4())
        if not UUID4.match(str(profile_id)):
            raise Invalid({"id": "must be a version-4 UUID"})
        if profile_id in self.profiles:
            return error(409, "Profile already exists")
        profile = {
            "id": profile_id,
            "kind": kind,
            "name": "",
            "state": "created",
            "details": {"state": "incomplete"},
            "form": {"state": "incomplete"},
            "verifications": [
                {"kind": "idDocument", "state": "incomplete"},
                {"kind": "proofOfResidency", "state": "incomplete"},
            ],
        }
        self.profiles[profile_id] = profile
        return JSONResponse(profile, status_code=201)

    async def _get_profile(self, request: Request) -> Response:
        profile = self.profiles.get(request.path_params["id"])
        if profile is None:
            return error(404, "Profile not found")
        return JSONResponse(profile)

    async def _patch_details(self, request: Request) -> Response:
        profile = self.profiles.get(request.path_params["id"])
        if profile is None:
            return error(404, "Profile not found")
        if profile["details"]["state"] == "approved":
            return error(409, "The profile details have already been approved and need not "
                          "be submitted again")  # fmt: skip
        personal = check_details((await request.json()).get("personal"))
        profile["submittedDetails"] = personal
        profile["name"] = f"{personal.get('firstName', '')} {personal.get('lastName', '')}".strip()
        complete = all(personal.get(name) for name in PERSONAL_REQUIRED)
        profile["details"]["state"] = "pending" if complete else "incomplete"
        return JSONResponse({}, status_code=202)

    async def _upload_file(self, request: Request) -> Response:
        async with request.form() as form:
            upload = form.get("file")
            if upload is None or isinstance(upload, str):
                raise Invalid({"file": "a multipart file is required"})
            content = await upload.read()
            filename, content_type = upload.filename, upload.content_type
        check_upload(content, filename, content_type)
        file_id = str(uuid.uuid4())
        record = {"id": file_id, "name": filename, "type": content_type,
                  "size": len(content)}  # fmt: skip
        self.files[file_id] = record
        return JSONResponse(record)

    async def _patch_verifications(self, request: Request) -> Response:
        profile = self.profiles.get(request.path_params["id"])
        if profile is None:
            return error(404, "Profile not found")
        items = (await request.json()).get("personal")
        if not isinstance(items, list) or not items:
            raise Invalid({"personal": "a list of verifications"})
        for item in items:
            documents = item.get("documents") or []
            if any(d.get("fileId") not in self.files for d in documents):
                raise Invalid({"documents": "unknown fileId"})
            found = next((v for v in profile["verifications"] if v["kind"] == item.get("kind")),
                         None)  # fmt: skip
            if found is None:
                found = {"kind": item.get("kind"), "state": "incomplete"}
                profile["verifications"].append(found)
            found["state"] = "pending" if documents else "incomplete"
        return JSONResponse({}, status_code=202)

    async def _link_address(self, request: Request) -> Response:
        body = await request.json()
        check_link(body, self.chains, self.environment)
        address, chain = str(body["address"]), body["chain"]
        signature, profile_id = str(body.get("signature") or ""), body.get("profile")
        if profile_id not in self.profiles:
            raise Invalid({"profile": "unknown profile"})
        entry = self.addresses.setdefault(
            address.lower(), {"profile": profile_id, "address": address, "chains": []}
        )
        if signature == "0x":
            entry.setdefault("pendingChains", []).append(chain)
            return JSONResponse({"code": 202, "status": "Accepted"}, status_code=202)
        if not signed_by(LINK_MESSAGE, signature, address):
            self.addresses.pop(address.lower(), None) if not entry["chains"] else None
            raise Invalid({"signature": "Signature does not match the address"})
        if chain not in entry["chains"]:
            entry["chains"].append(chain)
        return JSONResponse({}, status_code=201)

    async def _list_addresses(self, request: Request) -> Response:
        profile, chain = request.query_params.get("profile"), request.query_params.get("chain")
        found = [
            {"profile": a["profile"], "address": a["address"], "chains": a["chains"]}
            for a in self.addresses.values()
            if (profile is None or a["profile"] == profile)
            and (chain is None or chain in a["chains"])
            and a["chains"]
        ]
        return JSONResponse({"addresses": found})

    async def _request_iban(self, request: Request) -> Response:
        body = await request.json()
        address, chain = str(body.get("address") or ""), body.get("chain")
        if not ADDRESS.match(address):
            raise Invalid({"address": "Address missing"})
        linked = self.addresses.get(address.lower())
        if linked is None or chain not in linked["chains"]:
            raise Invalid({"address": "the address is not linked on this chain"})
        profile = linked["profile"]
        if any(i["profile"] == profile for i in self.ibans.values()):
            return Response(status_code=304)
        task = asyncio.create_task(self._provision(profile, address, chain))
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return JSONResponse({}, status_code=202)

    async def _provision(self, profile: str, address: str, chain: str) -> None:
        number = (
            "EE"
            + str(10 + len(self.ibans))
            + "".join(str(int(c, 16) % 10) for c in uuid.uuid4().hex[:16])
        )
        record = {"iban": number, "name": self.profiles[profile].get("name") or "Customer",
                  "bic": "EAPFESM2XXX", "profile": profile, "address": address,
                  "chain": chain}  # fmt: skip
        self.ibans[number] = record
        await self.notify("iban.updated", {**record, "state": "approved"})

    async def _list_ibans(self, request: Request) -> Response:
        profile = request.query_params.get("profile")
        found = [i for i in self.ibans.values() if profile is None or i["profile"] == profile]
        return JSONResponse({"ibans": found})

    async def _move_iban(self, request: Request) -> Response:
        record = self.ibans.get(request.path_params["iban"])
        if record is None:
            return error(404, "IBAN not found")
        body = await request.json()
        linked = self.addresses.get(str(body.get("address") or "").lower())
        if linked is None or body.get("chain") not in linked["chains"]:
            raise Invalid({"address": "the address is not linked on this chain"})
        record.update(address=body["address"], chain=body["chain"])
        return JSONResponse({})

    async def _place_order(self, request: Request) -> Response:
        body = await request.json()
        check_order_id(body)
        if body.get("id") in self.orders:
            return error(409, "Order already exists")
        check_redeem(body)
        linked = self.addresses.get(body["address"].lower())
        if linked is None or body["chain"] not in linked["chains"]:
            raise Invalid({"address": "the address is not linked on this chain"})
        if not signed_by(body["message"], body["signature"], body["address"]):
            raise Invalid({"signature": "Signature does not match the address"})
        memo = body.get("memo")
        order = {
            "id": body.get("id") or str(uuid.uuid4()),
            "kind": "redeem",
            "profile": linked["profile"],
            "address": body["address"],
            "chain": body["chain"],
            "currency": body["currency"],
            "amount": body["amount"],
            "counterpart": body["counterpart"],
            "memo": memo,
            "state": "placed",
            "meta": {"placedAt": now()},
        }
        self.orders[order["id"]] = order
        await self.notify("order.created", order)
        return JSONResponse(order)

    async def _list_orders(self, request: Request) -> Response:
        q = request.query_params
        found = [
            o for o in self.orders.values()
            if all(q.get(k) is None or o.get(k) == q.get(k)
                   for k in ("profile", "memo", "state", "address"))
        ]  # fmt: skip
        return JSONResponse({"orders": found})

    async def _get_order(self, request: Request) -> Response:
        order = self.orders.get(request.path_params["id"])
        if order is None:
            return error(404, "Order not found")
        return JSONResponse(order)


class _Gate(Gate["MoneriumSimulator"]):
    """What every request goes through: faults, the media type, the bearer token."""

    async def answer(self, request: Request, raw: bytes) -> Response:
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode(errors="replace")
        self.sim.requests.append(Recorded(
            request.method, request.url.path, dict(request.query_params),
            request.headers.get("accept"), request.headers.get("authorization"), body,
        ))  # fmt: skip
        return await self._answer(request, raw)

    async def _answer(self, request: Request, raw: bytes) -> Response:
        path = request.url.path
        fault = next((f for f in self.sim.faults if f.path is None or path.startswith(f.path)),
                     None)  # fmt: skip
        if fault is not None:
            self.sim.faults.remove(fault)
            if fault.status is not None:
                headers = {"Retry-After": fault.retry_after} if fault.retry_after else {}
                return JSONResponse({"code": fault.status, "status": "Error",
                                     "message": fault.message},
                                    status_code=fault.status, headers=headers)  # fmt: skip
        if path != "/auth/token":
            if request.headers.get("accept") != MEDIA_TYPE:
                return error(400, f"Accept must be {MEDIA_TYPE}")
            auth = request.headers.get("authorization", "")
            token = auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else None
            expiry = self.sim.tokens.get(token or "")
            if expiry is None or expiry <= time.monotonic():
                return error(401, "Not authenticated")
        try:
            response = await answer_of(self.app, request, raw)
        except Invalid as exc:
            response = error(exc.status, "Validation errors", exc.errors)
        if fault is not None and fault.delay:
            await asyncio.sleep(fault.delay)  # served, but later than the client waits
        return response


@asynccontextmanager
async def running(simulator: MoneriumSimulator) -> AsyncIterator[MoneriumSimulator]:
    """Serves the simulator with uvicorn on a free loopback port, in this event loop."""
    async with on_loopback(simulator.app()) as origin:
        simulator.url = origin
        try:
            yield simulator
        finally:
            for pending in list(simulator._background):
                pending.cancel()
