"""A Bridge simulator: a real HTTP server on loopback, written from apidocs.bridge.xyz.

It checks what an integration must get right (the `Api-Key` header, an
`Idempotency-Key` on every POST and on no other method, paths, bodies), answers with
the documented shapes, replays idempotent POSTs (same key and body: the first answer;
same key, other body: 422), and can be told to fail (a status such as 503 or 429 with
`Retry-After`, 401, or an answer slower than the client waits), and screens transfers
as Bridge's compliance does: a customer put on `aml_flagged` (by e-mail) has each new
transfer refused with `403 aml_violation`, the way apidocs.bridge.xyz's "Transfer errors &
recovery" lists it (a refusal of that request, not of the key). It signs webhooks as
Bridge documents: RSA over the SHA-256 digest of `<t>.<raw body>`, sent as
`X-Webhook-Signature: t=<ms>,v0=<base64>`, with a key per webhook endpoint. Exchange
rates come from a fixed table (tests/simulators/bridge_rates.py).

Nothing here imports the adapter: it is the other side of the wire.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

import httpx
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.simulators.bridge_rates import DEFAULT_RATES, exchange_rates
from tests.simulators.loopback import Gate, answer_of, on_loopback

PREFIX = "/v0"
BANK_RAILS = {"ach", "ach_push", "ach_same_day", "wire", "sepa", "spei"}
CHAINS = {"ethereum", "polygon", "base", "solana", "arbitrum", "optimism", "stellar", "tron"}


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    api_key: str | None
    idempotency_key: str | None
    body: Any


@dataclass
class Fault:
    status: int | None = None  # answer with this status instead of serving
    retry_after: str | None = None
    delay: float = 0.0  # serve, then answer this late (the client may have given up)
    path: str | None = None  # only requests whose path starts with this
    api_key: str | None = None  # only requests with this Api-Key (one account's)
    # The error body answered with `status`: Bridge's `code` and `message`.
    code: str = "unavailable"
    message: str = "simulated"


def _error(status: int, code: str, message: str, key: str | None = None) -> JSONResponse:
    body: dict[str, Any] = {"code": code, "message": message}
    if key:
        body["source"] = {"location": "body", "key": key}
    return JSONResponse(body, status_code=status)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _aba_valid(number: str) -> bool:
    if len(number) != 9 or not number.isdigit():
        return False
    d = [int(c) for c in number]
    return (3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + d[2] + d[5] + d[8]) % 10 == 0


class Invalid(Exception):
    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key, self.message = key, message


def _need(body: dict[str, Any], path: str) -> Any:
    value: Any = body
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    if value in (None, ""):
        raise Invalid(path, f"{path} is required")
    return value


@dataclass
class BridgeSimulator:
    api_keys: set[str] = field(default_factory=lambda: {"sk-test-simulated-key"})
    requests: list[Recorded] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    customers: dict[str, dict[str, Any]] = field(default_factory=dict)
    kyc_links: dict[str, dict[str, Any]] = field(default_factory=dict)
    external_accounts: dict[str, dict[str, Any]] = field(default_factory=dict)
    transfers: dict[str, dict[str, Any]] = field(default_factory=dict)
    webhooks: dict[str, dict[str, Any]] = field(default_factory=dict)
    rates: dict[tuple[str, str], tuple[str, str, str]] = field(default_factory=dict)
    # E-mails of customers whose transfers compliance screening refuses.
    aml_flagged: set[str] = field(default_factory=set)
    _idempotency: dict[str, tuple[str, int, Any]] = field(default_factory=dict)
    url: str = ""

    def __post_init__(self) -> None:
        # The key Bridge assigns to our webhook endpoint (its public half is ours).
        self.rates.update(DEFAULT_RATES)
        self.webhook_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)

    # --- controls for tests ------------------------------------------------------------

    def reset(self) -> None:
        for store in (self.requests, self.faults):
            store.clear()
        self.aml_flagged.clear()
        for table in (
            self.customers,
            self.kyc_links,
            self.external_accounts,
            self.transfers,
            self.webhooks,
        ):
            table.clear()
        self._idempotency.clear()
        self.rates.clear()
        self.rates.update(DEFAULT_RATES)

    def fail_next(self, fault: Fault, times: int = 1) -> None:
        self.faults.extend([fault] * times)

    def set_state(self, transfer_id: str, state: str) -> None:
        self.transfers[transfer_id]["state"] = state
        self.transfers[transfer_id]["updated_at"] = _now()

    def set_kyc(
        self,
        link_id: str,
        *,
        kyc_status: str,
        tos_status: str | None = None,
        person: dict[str, Any] | None = None,
    ) -> None:
        """The customer's progress in Bridge's hosted flows; `person`: what they typed
        there (`first_name`, `last_name`, `address`...), which the customer object shows
        (GET /customers/{id}, as in Bridge's reference: names, e-mail, residential
        address with an alpha-3 country)."""
        link = self.kyc_links[link_id]
        link["kyc_status"] = kyc_status
        customer = self.customers[link["customer_id"]]
        customer["status"] = "active" if kyc_status == "approved" else kyc_status
        customer.update(person or {})
        if tos_status:
            link["tos_status"] = tos_status
        if kyc_status == "rejected":
            link["rejection_reasons"] = [
                {
                    "developer_reason": "Document expired (internal)",
                    "reason": "Cannot validate ID -- upload a valid ID",
                    "created_at": _now(),
                }
            ]

    def expire_idempotency_keys(self) -> None:
        """Bridge keeps a key for 24 hours; after that, reusing it is a 422."""
        for key in list(self._idempotency):
            self._idempotency[key] = ("expired", 422, {"code": "idempotency_key_expired",
                                      "message": "Idempotency-Key has expired"})  # fmt: skip

    def posts(self, path: str) -> list[Recorded]:
        return [r for r in self.requests if r.method == "POST" and r.path == path]

    @property
    def webhook_public_key(self) -> str:
        return (
            self.webhook_key.public_key()
            .public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
            .decode()
        )

    def event(self, category: str, obj: dict[str, Any], mutation: str = "updated") -> bytes:
        """A webhook body in Bridge's event shape, for `obj` (a transfer, a KYC link...)."""
        status = obj.get("state") or obj.get("kyc_status")
        event = {
            "api_version": "v0",
            "event_id": f"wh_{uuid.uuid4().hex[:22]}",
            "event_developer_id": "dev_simulated",
            "event_category": category,
            "event_type": f"{category}.{mutation}",
            "event_object_id": obj["id"],
            "event_object_status": status,
            "event_object": obj,
            "event_object_changes": {},
            "event_created_at": _now(),
        }
        return json.dumps(event).encode()

    def sign(self, body: bytes, at_ms: int | None = None) -> dict[str, str]:
        """Bridge's signature header for `body`: RSA over SHA-256 of `<t>.<body>`."""
        timestamp = str(at_ms if at_ms is not None else int(time.time() * 1000))
        digest = hashlib.sha256(timestamp.encode() + b"." + body).digest()
        signature = self.webhook_key.sign(digest, padding.PKCS1v15(), hashes.SHA256())
        header = f"t={timestamp},v0={base64.b64encode(signature).decode()}"
        return {"X-Webhook-Signature": header, "Content-Type": "application/json"}

    async def deliver(self, url: str, body: bytes, at_ms: int | None = None) -> int:
        """POSTs a signed event to a webhook endpoint, as Bridge does; its status."""
        async with httpx.AsyncClient(timeout=10) as client:
            response = await client.post(url, content=body, headers=self.sign(body, at_ms))
        return response.status_code

    # --- the HTTP side -------------------------------------------------------------------

    def app(self) -> Starlette:
        routes = [
            Route(PREFIX + "/customers", self._list_customers, methods=["GET"]),
            Route(PREFIX + "/customers/{id}", self._get_customer, methods=["GET"]),
            Route(PREFIX + "/kyc_links", self._list_kyc_links, methods=["GET"]),
            Route(PREFIX + "/kyc_links", self._create_kyc_link, methods=["POST"]),
            Route(PREFIX + "/kyc_links/{id}", self._get_kyc_link, methods=["GET"]),
            Route(
                PREFIX + "/customers/{id}/external_accounts",
                self._create_external_account,
                methods=["POST"],
            ),
            Route(PREFIX + "/webhooks", self._list_webhooks, methods=["GET"]),
            Route(PREFIX + "/webhooks", self._create_webhook, methods=["POST"]),
            Route(PREFIX + "/webhooks/{id}", self._update_webhook, methods=["PUT"]),
            Route(PREFIX + "/transfers", self._create_transfer, methods=["POST"]),
            Route(PREFIX + "/transfers/{id}", self._get_transfer, methods=["GET"]),
            Route(PREFIX + "/transfers/{id}", self._delete_transfer, methods=["DELETE"]),
            Route(PREFIX + "/exchange_rates", self._exchange_rates, methods=["GET"]),
        ]
        app = Starlette(routes=routes)
        app.add_middleware(_Gate, simulator=self)
        return app

    async def _exchange_rates(self, request: Request) -> Response:
        return exchange_rates(self.rates, request)

    async def _list_customers(self, request: Request) -> Response:
        limit = int(request.query_params.get("limit", "10"))
        data = list(self.customers.values())[:limit]
        return JSONResponse({"count": len(data), "data": data})

    async def _get_customer(self, request: Request) -> Response:
        customer = self.customers.get(request.path_params["id"])
        return (
            JSONResponse(customer) if customer else _error(404, "not_found", "Customer not found")
        )

    async def _list_kyc_links(self, request: Request) -> Response:
        email = request.query_params.get("email")
        data = [k for k in self.kyc_links.values() if email is None or k["email"] == email]
        return JSONResponse({"count": len(data), "data": data})

    async def _get_kyc_link(self, request: Request) -> Response:
        link = self.kyc_links.get(request.path_params["id"])
        return JSONResponse(link) if link else _error(404, "not_found", "KYC link not found")

    async def _create_kyc_link(self, request: Request) -> Response:
        body = await request.json()
        email, kind = _need(body, "email"), _need(body, "type")
        if kind not in ("individual", "business"):
            raise Invalid("type", "type must be individual or business")
        customer_id, link_id = str(uuid.uuid4()), str(uuid.uuid4())
        self.customers[customer_id] = {"id": customer_id, "email": email, "type": kind,
                                       "status": "not_started", "created_at": _now()}  # fmt: skip
        link = {
            "id": link_id,
            "full_name": body.get("full_name"),
            "email": email,
            "type": kind,
            "kyc_link": f"https://bridge.withpersona.com/verify?reference-id={link_id}",
            "tos_link": f"https://dashboard.bridge.xyz/accept-terms-of-service?t={link_id}",
            "kyc_status": "not_started",
            "rejection_reasons": [],
            "tos_status": "pending",
            "customer_id": customer_id,
            "created_at": _now(),
        }
        self.kyc_links[link_id] = link
        return JSONResponse(link)

    async def _list_webhooks(self, request: Request) -> Response:
        data = list(self.webhooks.values())
        return JSONResponse({"count": len(data), "data": data})

    async def _create_webhook(self, request: Request) -> Response:
        body = await request.json()
        url = str(_need(body, "url"))
        _need(body, "event_epoch")
        if not url.startswith(("https://", "http://")):
            raise Invalid("url", "url must be an https URL")
        webhook_id = f"wep_{uuid.uuid4().hex[:16]}"
        endpoint = {"id": webhook_id, "url": url, "status": "disabled",
                    "event_categories": body.get("event_categories", []),
                    "public_key": self.webhook_public_key, "created_at": _now()}  # fmt: skip
        self.webhooks[webhook_id] = endpoint
        return JSONResponse(endpoint, status_code=201)

    async def _update_webhook(self, request: Request) -> Response:
        endpoint = self.webhooks.get(request.path_params["id"])
        if endpoint is None:
            return _error(404, "not_found", "webhook not found")
        body = await request.json()
        if body.get("status") in ("active", "disabled"):
            endpoint["status"] = body["status"]
        return JSONResponse(endpoint)

    async def _create_external_account(self, request: Request) -> Response:
        customer_id = request.path_params["id"]
        if customer_id not in self.customers:
            return _error(404, "not_found", "customer not found")
        body = await request.json()
        kind = body.get("account_type", "us")
        _need(body, "account_owner_name")
        if kind == "us":
            routing = str(_need(body, "account.routing_number"))
            number = str(_need(body, "account.account_number"))
            if not _aba_valid(routing):
                raise Invalid("account.routing_number", "routing number is not a valid ABA number")
            _need(body, "address.street_line_1")
            _need(body, "address.country")
            last_4 = number[-4:]
        elif kind == "iban":
            last_4 = str(_need(body, "iban.account_number"))[-4:]
            _need(body, "iban.country")
            if _need(body, "account_owner_type") == "individual":
                _need(body, "first_name")
                _need(body, "last_name")
        elif kind == "clabe":
            clabe = str(_need(body, "clabe.account_number"))
            if len(clabe) != 18 or not clabe.isdigit():
                raise Invalid("clabe.account_number", "CLABE must have 18 digits")
            last_4 = clabe[-4:]
        else:
            raise Invalid("account_type", f"unsupported account_type {kind}")
        account_id = str(uuid.uuid4())
        account = {"id": account_id, "customer_id": customer_id, "account_type": kind,
                   "currency": body.get("currency", "usd"), "last_4": last_4, "active": True,
                   "created_at": _now()}  # fmt: skip
        self.external_accounts[account_id] = account
        return JSONResponse(account)

    async def _create_transfer(self, request: Request) -> Response:
        body = await request.json()
        customer_id = _need(body, "on_behalf_of")
        if customer_id not in self.customers:
            raise Invalid("on_behalf_of", "unknown customer")
        if self.customers[customer_id]["email"] in self.aml_flagged:
            return _error(403, "aml_violation", "the transfer was blocked by AML screening")
        try:
            if Decimal(str(_need(body, "amount"))) <= 0:
                raise Invalid("amount", "amount must be positive")
        except InvalidOperation:
            raise Invalid("amount", "amount must be a decimal string") from None
        source_rail = _need(body, "source.payment_rail")
        _need(body, "source.currency")
        destination_rail = _need(body, "destination.payment_rail")
        _need(body, "destination.currency")
        if destination_rail in CHAINS:
            _need(body, "destination.to_address")
        elif destination_rail in BANK_RAILS:
            account = self.external_accounts.get(_need(body, "destination.external_account_id"))
            if account is None or account["customer_id"] != customer_id:
                raise Invalid("destination.external_account_id", "unknown external account")
        else:
            raise Invalid("destination.payment_rail", f"unsupported rail {destination_rail}")
        transfer_id = str(uuid.uuid4())
        transfer = {
            "id": transfer_id,
            "client_reference_id": body.get("client_reference_id"),
            "state": "awaiting_funds",
            "on_behalf_of": customer_id,
            "amount": body["amount"],
            "currency": body["source"]["currency"] if source_rail in BANK_RAILS else "usd",
            "developer_fee": "0.0",
            "source": body["source"],
            "destination": body["destination"],
            "source_deposit_instructions": self._instructions(body, transfer_id),
            "created_at": _now(),
            "updated_at": _now(),
        }
        self.transfers[transfer_id] = transfer
        return JSONResponse(transfer, status_code=201)

    def _instructions(self, body: dict[str, Any], transfer_id: str) -> dict[str, Any]:
        rail, currency = body["source"]["payment_rail"], body["source"]["currency"]
        common = {"payment_rail": rail, "amount": body["amount"], "currency": currency}
        memo = "BRG" + transfer_id.replace("-", "")[:10].upper()
        if rail in ("ach_push", "wire"):
            return {**common, "deposit_message": memo, "bank_name": "Lead Bank",
                    "bank_address": "1801 Main St., Kansas City, MO 64108",
                    "bank_routing_number": "101019644", "bank_account_number": "215268129123",
                    "bank_beneficiary_name": "Bridge Ventures Inc",
                    "bank_beneficiary_address": "1 Market St, San Francisco, CA 94105"}  # fmt: skip
        if rail == "sepa":
            return {**common, "deposit_message": memo, "iban": "IE48MODR99035501927000",
                    "bic": "MODRIE22XXX", "account_holder_name": "Bridge Building Sp.z.o.o.",
                    "bank_name": "Modulr Finance Ireland",
                    "bank_address": "Floor 6, 2 Grand Canal Square, Dublin 2"}  # fmt: skip
        if rail == "spei":
            return {**common, "deposit_message": memo, "clabe": "646180157000000004",
                    "account_holder_name": "Bridge Ventures MX", "bank_name": "STP"}  # fmt: skip
        address = "0x" + hashlib.sha256(transfer_id.encode()).hexdigest()[:40]
        return {**common, "to_address": address, "from_address": body["source"].get("from_address")}

    async def _get_transfer(self, request: Request) -> Response:
        transfer = self.transfers.get(request.path_params["id"])
        return JSONResponse(transfer) if transfer else _error(404, "not_found", "not found")

    async def _delete_transfer(self, request: Request) -> Response:
        transfer = self.transfers.get(request.path_params["id"])
        if transfer is None:
            return _error(404, "not_found", "transfer not found")
        if transfer["state"] != "awaiting_funds":
            return _error(400, "invalid_state", "only a transfer awaiting funds can be deleted")
        self.set_state(transfer["id"], "canceled")
        return JSONResponse(transfer)


class _Gate(Gate["BridgeSimulator"]):
    """What every Bridge request goes through: faults, auth, idempotency, validation."""

    async def answer(self, request: Request, raw: bytes) -> Response:
        body = json.loads(raw) if raw else None
        method, path = request.method, request.url.path
        key, api_key = request.headers.get("idempotency-key"), request.headers.get("api-key")
        self.sim.requests.append(
            Recorded(method, path, dict(request.query_params), api_key, key, body)
        )
        return await self._answer(request, raw, body, key, api_key)

    async def _answer(
        self, request: Request, raw: bytes, body: Any, key: str | None, api_key: str | None
    ) -> Response:
        method, path = request.method, request.url.path
        fault = next(
            (
                f
                for f in self.sim.faults
                if (f.path is None or path.startswith(f.path))
                and (f.api_key is None or f.api_key == api_key)
            ),
            None,
        )
        if fault is not None:
            self.sim.faults.remove(fault)
            if fault.status is not None:
                headers = {"Retry-After": fault.retry_after} if fault.retry_after else {}
                return JSONResponse({"code": fault.code, "message": fault.message},
                                    status_code=fault.status, headers=headers)  # fmt: skip
        if api_key not in self.sim.api_keys:
            return _error(401, "unauthorized", "Invalid API key")
        if method == "POST" and not key:
            return _error(400, "missing_idempotency_key", "Idempotency-Key header is required")
        if method != "POST" and key:
            return _error(400, "unexpected_idempotency_key", "only POST takes an Idempotency-Key")
        fingerprint = hashlib.sha256(method.encode() + path.encode() + raw).hexdigest()
        if key is not None and key in self.sim._idempotency:
            stored_fingerprint, status, stored = self.sim._idempotency[key]
            if stored_fingerprint == "expired":
                return JSONResponse(stored, status_code=status)
            if stored_fingerprint != fingerprint:
                return _error(422, "idempotency_key_reused",
                              "Idempotency-Key was used with a different request")  # fmt: skip
            return JSONResponse(stored, status_code=status)
        try:
            response = await answer_of(self.app, request, raw)
        except Invalid as exc:
            response = _error(400, "invalid_parameters", exc.message, exc.key)
        if key is not None and response.status_code < 500:
            self.sim._idempotency[key] = (
                fingerprint,
                response.status_code,
                json.loads(bytes(response.body)),
            )
        if fault is not None and fault.delay:
            await asyncio.sleep(fault.delay)  # served, but later than the client waits
        return response


@asynccontextmanager
async def running(simulator: BridgeSimulator) -> AsyncIterator[BridgeSimulator]:
    """Serves the simulator with uvicorn on a free loopback port, in this event loop."""
    async with on_loopback(simulator.app()) as origin:
        simulator.url = f"{origin}{PREFIX}"
        yield simulator
