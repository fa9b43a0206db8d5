"""The webhook side of the Monerium simulator (tests/simulators/monerium.py): its
subscriptions (`/webhooks`, created only once the URL answers the signed
`subscription.created` test call with a 2xx) and the events it signs as Standard
Webhooks with each subscriber's secret and sends to them."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx
from standardwebhooks.webhooks import Webhook
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from tests.simulators.monerium_rules import Invalid, check_subscription, error, now


@dataclass
class Delivery:
    url: str
    type: str
    status: int | None  # None: unreachable


@dataclass
class MoneriumWebhooks:
    """Subscriptions and deliveries; the simulator's routes for `/webhooks` are here."""

    subscriptions: dict[str, dict[str, Any]] = field(default_factory=dict)
    deliveries: list[Delivery] = field(default_factory=list)

    def signed(self, secret: str, body: bytes, message_id: str | None = None,
               at: datetime | None = None) -> dict[str, str]:  # fmt: skip
        """Standard Webhooks headers for `body` under `secret`."""
        moment = at or datetime.now(UTC)
        message_id = message_id or str(uuid.uuid4())
        signature = Webhook(secret).sign(message_id, moment, body.decode())
        return {
            "webhook-id": message_id,
            "webhook-timestamp": str(int(moment.timestamp())),
            "webhook-signature": signature,
            "content-type": "application/json",
        }

    async def deliver(self, url: str, secret: str, kind: str, data: dict[str, Any] | None,
                      message_id: str | None = None) -> int | None:  # fmt: skip
        event: dict[str, Any] = {"type": kind, "timestamp": now()}
        if data is not None:
            event["data"] = data
        body = json.dumps(event).encode()
        try:
            async with httpx.AsyncClient(timeout=10) as client:
                answer = await client.post(
                    url, content=body, headers=self.signed(secret, body, message_id)
                )
            status: int | None = answer.status_code
        except httpx.HTTPError:
            status = None
        self.deliveries.append(Delivery(url, kind, status))
        return status

    async def notify(self, kind: str, data: dict[str, Any]) -> None:
        """Delivers `kind` to every active subscription that asked for it."""
        for sub in list(self.subscriptions.values()):
            if sub["state"] == "active" and kind in sub["types"]:
                await self.deliver(sub["url"], sub["secret"], kind, json.loads(json.dumps(data)))

    async def _list_subscriptions(self, request: Request) -> Response:
        shown = [{k: v for k, v in s.items() if k != "secret"} for s in self.subscriptions.values()]
        return JSONResponse({"subscriptions": shown})

    async def _create_subscription(self, request: Request) -> Response:
        url, secret, types = check_subscription(await request.json())
        # The test call: no subscription unless the receiver answers it with a 2xx.
        status = await self.deliver(url, secret, "subscription.created", None)
        if status is None or not 200 <= status < 300:
            raise Invalid({"url": f"the subscription test call was answered {status}"})
        subscription_id = str(uuid.uuid4())
        sub = {"id": subscription_id, "url": url, "types": list(types), "state": "active",
               "secret": secret}  # fmt: skip
        self.subscriptions[subscription_id] = sub
        return JSONResponse({k: v for k, v in sub.items() if k != "secret"}, status_code=201)

    async def _update_subscription(self, request: Request) -> Response:
        sub = self.subscriptions.get(request.path_params["id"])
        if sub is None:
            return error(404, "Subscription not found")
        body = await request.json()
        if body.get("state") is not None:
            if body["state"] not in ("active", "inactive"):
                raise Invalid({"state": "active or inactive"})
            sub["state"] = body["state"]
        if body.get("types") is not None:
            sub["types"] = list(body["types"])
        return JSONResponse({k: v for k, v in sub.items() if k != "secret"})
