"""The synchronous client: `RampClient` for a project's calls (client id and secret),
`CustomerClient` (from `RampClient.as_customer`) for a customer's (access token)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel

from ramp_client import models as m
from ramp_client._endpoints import ENDPOINTS
from ramp_client._transport import (
    RETRIED_STATUSES,
    Credentials,
    Prepared,
    decode,
    next_page,
    prepare,
    retry_delay,
)

T = TypeVar("T")


class _Caller:
    """Sends prepared requests on one httpx.Client, retrying what may be retried."""

    def __init__(self, http: httpx.Client, credentials: Credentials, max_retries: int) -> None:
        self._http = http
        self._credentials = credentials
        self._max_retries = max_retries

    def call(
        self,
        operation_id: str,
        *,
        path: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
        body: BaseModel | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        endpoint = ENDPOINTS[operation_id]
        prepared = prepare(
            endpoint,
            self._credentials,
            path=path,
            query=query,
            body=body,
            idempotency_key=idempotency_key,
        )
        return decode(endpoint, self._send(prepared))

    def pages(self, operation_id: str, query: Mapping[str, Any] | None = None) -> Iterator[Any]:
        """Every item of a list, page after page (the `Link` header's next page)."""
        endpoint = ENDPOINTS[operation_id]
        prepared = prepare(endpoint, self._credentials, query=query)
        while True:
            response = self._send(prepared)
            yield from decode(endpoint, response)
            url = next_page(response)
            if url is None:
                return
            prepared = Prepared(endpoint, "GET", url, headers=prepared.headers)

    def _send(self, prepared: Prepared) -> httpx.Response:
        attempt = 0
        while True:
            try:
                response = self._http.request(
                    prepared.method,
                    prepared.url,
                    params=prepared.params or None,
                    headers=prepared.headers,
                    json=prepared.json,
                )
            except httpx.TransportError:
                if not prepared.retriable or attempt >= self._max_retries:
                    raise
                time.sleep(retry_delay(attempt, None))
            else:
                if (
                    response.status_code not in RETRIED_STATUSES
                    or not prepared.retriable
                    or attempt >= self._max_retries
                ):
                    return response
                time.sleep(retry_delay(attempt, response))
            attempt += 1


class RampClient:
    """A project's client: `RampClient("https://ramp.example.com", client_id, secret)`.

    Creating calls carry an Idempotency-Key (a fresh one unless you pass yours, which
    you should keep to retry across restarts); reads and keyed calls are retried on
    connection errors, 429 and 5xx answers up to `max_retries` times. Errors raise
    `RampError` subclasses (ramp_client.errors). Lists are iterators over every page.
    """

    def __init__(
        self,
        base_url: str,
        client_id: str,
        client_secret: str,
        *,
        timeout: float = 30.0,
        max_retries: int = 2,
        http: httpx.Client | None = None,
    ) -> None:
        self._http = http or httpx.Client(base_url=base_url, timeout=timeout)
        self._max_retries = max_retries
        self._credentials = Credentials(client_id, client_secret)
        self._caller = _Caller(self._http, self._credentials, max_retries)

    def as_customer(self, access_token: str) -> CustomerClient:
        """The calls a customer makes with its access token (`CustomerResource.access_token`)."""
        credentials = Credentials(access_token=access_token)
        return CustomerClient(_Caller(self._http, credentials, self._max_retries))

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> RampClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # --- customers and the catalog -------------------------------------------------

    def create_customer(
        self, body: m.CreateCustomer, *, idempotency_key: str | None = None
    ) -> m.CustomerResource:
        """Create or retrieve a customer, with a fresh access token."""
        result: m.CustomerResource = self._caller.call(
            "createCustomer", body=body, idempotency_key=idempotency_key
        )
        return result

    def list_customers(
        self, *, id: str | None = None, limit: int | None = None
    ) -> Iterator[m.CustomerResource]:
        return self._caller.pages("listCustomers", {"id": id, "limit": limit})

    def list_supported_routes(self) -> list[m.RouteResource]:
        result: list[m.RouteResource] = self._caller.call("listSupportedRoutes")
        return result

    def list_providers(self) -> list[m.ProviderResource]:
        result: list[m.ProviderResource] = self._caller.call("listProviders")
        return result

    def get_account_requirements(self, src: str, dest: str) -> m.RequirementsResource:
        result: m.RequirementsResource = self._caller.call(
            "getAccountRequirements", query={"src": src, "dest": dest}
        )
        return result

    def get_quotes(
        self,
        src_currency_code: str,
        dest_currency_code: str,
        src_amount: str,
        *,
        country_code: str | None = None,
        rails: str | None = None,
        provider_id: str | None = None,
    ) -> m.QuotesResource:
        result: m.QuotesResource = self._caller.call(
            "getQuotes",
            query={
                "srcCurrencyCode": src_currency_code,
                "destCurrencyCode": dest_currency_code,
                "srcAmount": src_amount,
                "countryCode": country_code,
                "rails": rails,
                "providerId": provider_id,
            },
        )
        return result

    def search_intents(
        self,
        *,
        status: str | None = None,
        customer_id: str | None = None,
        provider_id: str | None = None,
        created_from: datetime | None = None,
        created_to: datetime | None = None,
        updated_from: datetime | None = None,
        updated_to: datetime | None = None,
        limit: int | None = None,
    ) -> Iterator[m.IntentEnvelope]:
        """The project's intents, newest first, over every page."""
        return self._caller.pages(
            "searchIntents",
            {
                "status": status,
                "customerId": customer_id,
                "providerId": provider_id,
                "createdFrom": created_from,
                "createdTo": created_to,
                "updatedFrom": updated_from,
                "updatedTo": updated_to,
                "limit": limit,
            },
        )

    # --- sandbox --------------------------------------------------------------------

    def report_sandbox_provider_event(
        self, transaction_id: str, body: m.SandboxProviderEvent
    ) -> m.ProviderEventAccepted:
        result: m.ProviderEventAccepted = self._caller.call(
            "reportSandboxProviderEvent", path={"id": transaction_id}, body=body
        )
        return result

    def record_sandbox_step_outcome(
        self, intent_id: str, step_code: str, body: m.SandboxStepOutcome
    ) -> m.StepOutcomeAccepted:
        result: m.StepOutcomeAccepted = self._caller.call(
            "recordSandboxStepOutcome",
            path={"intentId": intent_id, "stepCode": step_code},
            body=body,
        )
        return result

    def advance_sandbox_intent_clock(
        self, intent_id: str, body: m.SandboxClockAdvance
    ) -> m.SandboxClockAdvanced:
        """Sandbox only: move one intent's timers (expiry, provider polls, webhook
        retries of its events) `body.seconds` forward; what is now due runs at once."""
        result: m.SandboxClockAdvanced = self._caller.call(
            "advanceSandboxIntentClock", path={"intentId": intent_id}, body=body
        )
        return result

    def set_sandbox_provider_behaviour(
        self, provider_id: str, body: m.SandboxProviderBehaviourBody
    ) -> m.SandboxProviderBehaviourResource:
        """Sandbox only: make one of the project's mock providers DOWN, SLOW or
        REFUSE_TRANSFERS (for `body.seconds`, or until set back to UP)."""
        result: m.SandboxProviderBehaviourResource = self._caller.call(
            "setSandboxProviderBehaviour", path={"providerId": provider_id}, body=body
        )
        return result

    # --- events -----------------------------------------------------------------------

    def list_events(
        self,
        *,
        event_type: str | Sequence[str] | None = None,
        intent_id: str | None = None,
        customer_id: str | None = None,
        created_from: datetime | None = None,
        created_to: datetime | None = None,
        limit: int | None = None,
    ) -> Iterator[m.WebhookEvent]:
        """The project's events, newest first, over every page, each the body its webhook
        carries; `event_type` one type or several, `created_from` inclusive and
        `created_to` exclusive bounds of their `timestamp`."""
        return self._caller.pages(
            "listEvents",
            {
                "type": event_type,
                "intentId": intent_id,
                "customerId": customer_id,
                "createdFrom": created_from,
                "createdTo": created_to,
                "limit": limit,
            },
        )

    def get_event(self, event_id: str) -> m.WebhookEvent:
        """One event: the `eventId` of a webhook body, its `webhook-id` header."""
        result: m.WebhookEvent = self._caller.call("getEvent", path={"eventId": event_id})
        return result

    # --- webhooks ---------------------------------------------------------------------

    def create_webhook_endpoint(
        self, body: m.CreateWebhookEndpoint, *, idempotency_key: str | None = None
    ) -> m.WebhookEndpointResource:
        result: m.WebhookEndpointResource = self._caller.call(
            "createWebhookEndpoint", body=body, idempotency_key=idempotency_key
        )
        return result

    def list_webhook_endpoints(self) -> list[m.WebhookEndpointResource]:
        result: list[m.WebhookEndpointResource] = self._caller.call("listWebhookEndpoints")
        return result

    def update_webhook_endpoint(
        self, endpoint_id: str, body: m.UpdateWebhookEndpoint
    ) -> m.WebhookEndpointResource:
        result: m.WebhookEndpointResource = self._caller.call(
            "updateWebhookEndpoint", path={"id": endpoint_id}, body=body
        )
        return result

    def delete_webhook_endpoint(self, endpoint_id: str) -> None:
        self._caller.call("deleteWebhookEndpoint", path={"id": endpoint_id})

    def list_webhook_deliveries(
        self,
        *,
        status: str | None = None,
        event_type: str | None = None,
        endpoint_id: str | None = None,
        intent_id: str | None = None,
        event_id: str | None = None,
        limit: int | None = None,
    ) -> Iterator[m.WebhookDeliveryResource]:
        return self._caller.pages(
            "listWebhookDeliveries",
            {
                "status": status,
                "eventType": event_type,
                "endpointId": endpoint_id,
                "intentId": intent_id,
                "eventId": event_id,
                "limit": limit,
            },
        )

    def get_webhook_delivery(self, delivery_id: str) -> m.WebhookDeliveryResource:
        result: m.WebhookDeliveryResource = self._caller.call(
            "getWebhookDelivery", path={"id": delivery_id}
        )
        return result

    def redeliver_webhook(self, delivery_id: str) -> m.WebhookDeliveryResource:
        result: m.WebhookDeliveryResource = self._caller.call(
            "redeliverWebhook", path={"id": delivery_id}
        )
        return result

    def recover_webhook_endpoint(
        self, endpoint_id: str, since: datetime
    ) -> m.WebhookRecoveryResource:
        result: m.WebhookRecoveryResource = self._caller.call(
            "recoverWebhookEndpoint", path={"id": endpoint_id}, query={"since": since}
        )
        return result

    # --- the hosted onboarding's setting and wallet sign-in --------------------------

    def get_onboarding_origins(self) -> m.OnboardingOriginsResource:
        result: m.OnboardingOriginsResource = self._caller.call("getOnboardingOrigins")
        return result

    def set_onboarding_origins(self, body: m.OnboardingOrigins) -> m.OnboardingOriginsResource:
        result: m.OnboardingOriginsResource = self._caller.call("setOnboardingOrigins", body=body)
        return result

    def issue_wallet_nonce(self) -> str:
        result: str = self._caller.call("issueWalletNonce")
        return result

    def verify_wallet_challenge(self, body: m.WalletChallenge) -> m.WalletToken:
        result: m.WalletToken = self._caller.call("verifyWalletChallenge", body=body)
        return result


class CustomerClient:
    """A customer's calls (Bearer access token): accounts, intents, transactions."""

    def __init__(self, caller: _Caller) -> None:
        self._caller = caller

    def create_external_accounts(
        self, body: m.CreateExternalAccounts, *, idempotency_key: str | None = None
    ) -> m.ExternalAccountPair:
        result: m.ExternalAccountPair = self._caller.call(
            "createExternalAccounts", body=body, idempotency_key=idempotency_key
        )
        return result

    def list_external_accounts(
        self, *, limit: int | None = None
    ) -> Iterator[m.ExternalAccountResource]:
        return self._caller.pages("listExternalAccounts", {"limit": limit})

    def create_intent(
        self,
        body: m.CreateIntent | m.CreateIntentWithAccounts,
        *,
        idempotency_key: str | None = None,
    ) -> m.IntentEnvelope:
        """An intent between registered accounts (CreateIntent) or with its accounts
        inline (CreateIntentWithAccounts: registered on the way, once per key)."""
        result: m.IntentEnvelope = self._caller.call(
            "createIntent", body=body, idempotency_key=idempotency_key
        )
        return result

    def list_intents(self, *, limit: int | None = None) -> Iterator[m.IntentEnvelope]:
        return self._caller.pages("listIntents", {"limit": limit})

    def get_intent_signing_request(self, intent_id: str) -> m.SigningRequestResource:
        """What the customer's wallet is to sign for the intent's provider (Monerium: the
        address link, a redeem order); 409 NOTHING_TO_SIGN when nothing is asked."""
        result: m.SigningRequestResource = self._caller.call(
            "getIntentSigningRequest", path={"intentId": intent_id}
        )
        return result

    def submit_intent_signature(
        self, intent_id: str, signature: m.SubmitSignature
    ) -> m.SignatureAccepted:
        """The customer's signature of the message `get_intent_signing_request` gave."""
        result: m.SignatureAccepted = self._caller.call(
            "submitIntentSignature", path={"intentId": intent_id}, body=signature
        )
        return result

    def get_intent(self, intent_id: str) -> m.IntentEnvelope:
        result: m.IntentEnvelope = self._caller.call("getIntent", path={"id": intent_id})
        return result

    def wait_for_intent(
        self,
        intent_id: str,
        until: Callable[[m.IntentEnvelope], bool],
        *,
        within: float = 30.0,
        interval: float = 0.2,
    ) -> m.IntentEnvelope:
        """The intent once `until` holds, read every `interval` seconds (outcomes and
        provider events apply a moment after they are accepted); TimeoutError after
        `within` seconds. For tests against the sandbox: in production, webhooks tell."""
        deadline = time.monotonic() + within
        while True:
            envelope = self.get_intent(intent_id)
            if until(envelope):
                return envelope
            if time.monotonic() > deadline:
                raise TimeoutError(f"intent {intent_id}: the condition did not hold in time")
            time.sleep(interval)

    def create_intent_transaction(
        self, intent_id: str, *, idempotency_key: str | None = None
    ) -> m.IntentEnvelope:
        result: m.IntentEnvelope = self._caller.call(
            "createIntentTransaction",
            path={"intentId": intent_id},
            body=m.ExecuteIntent(),
            idempotency_key=idempotency_key,
        )
        return result

    def get_intent_transaction(self, intent_id: str) -> m.TransactionResource:
        result: m.TransactionResource = self._caller.call(
            "getIntentTransaction", path={"intentId": intent_id}
        )
        return result

    def cancel_intent(
        self, intent_id: str, *, idempotency_key: str | None = None
    ) -> m.IntentEnvelope:
        result: m.IntentEnvelope = self._caller.call(
            "cancelIntent",
            path={"intentId": intent_id},
            body=m.ExecuteIntent(),
            idempotency_key=idempotency_key,
        )
        return result
