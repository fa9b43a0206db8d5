"""A typed client of the payment ramp orchestration service's API.

    from ramp_client import RampClient, models

    ramp = RampClient("http://127.0.0.1:8000", client_id, client_secret)
    customer = ramp.create_customer(models.CreateCustomer(id="alice"))
    alice = ramp.as_customer(customer.access_token)

`AsyncRampClient` makes the same calls with `await`. The reference of every call and
field is the service's /v1/docs.
"""

from ramp_client import models
from ramp_client.aio import AsyncCustomerClient, AsyncRampClient
from ramp_client.client import CustomerClient, RampClient
from ramp_client.errors import (
    AuthenticationError,
    ConflictError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    RampError,
    RateLimitedError,
    ServiceError,
)
from ramp_client.webhooks import WebhookVerificationError, verify_webhook

__all__ = [
    "AsyncCustomerClient",
    "AsyncRampClient",
    "AuthenticationError",
    "ConflictError",
    "CustomerClient",
    "InvalidRequestError",
    "NotFoundError",
    "PermissionDeniedError",
    "RampClient",
    "RampError",
    "RateLimitedError",
    "ServiceError",
    "WebhookVerificationError",
    "models",
    "verify_webhook",
]
