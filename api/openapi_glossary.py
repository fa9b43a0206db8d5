"""What each field of the OpenAPI document means, where its model does not say.

A field's own `description` (pydantic's Field) wins; otherwise `Schema.field` here,
then the field name alone. `{thing}` is the schema's name in words ("IntentResource":
"intent"). tests/test_api_reference.py fails on a field that none of them describes,
so a new field gets its words here or on its model.
"""

from __future__ import annotations

import re
from typing import Any

_WHEN = "(ISO 8601, UTC, milliseconds)"

BY_NAME: dict[str, str] = {
    "id": "The {thing}'s id (a UUID unless said otherwise)",
    "createdAt": f"When the {{thing}} was created {_WHEN}",
    "updatedAt": f"When the {{thing}} last changed {_WHEN}",
    "status": "The {thing}'s status (docs/states.md lists every status and transition)",
    "previousStatus": "The status before this change; null when the event reports a creation",
    "type": "The {thing}'s kind",
    "name": "The {thing}'s name",
    "code": "The {thing}'s stable code",
    "description": "What the {thing} is, in words for people",
    "label": "Free text for the project's own reference (stored, returned)",
    "metadata": "Free-form JSON object, stored and returned as sent",
    "intentId": "Id of the intent",
    "customerId": "Id of the customer (the service's id, not the project's own)",
    "projectId": "Id of the project",
    "organizationId": "Id of the organization that owns the project",
    "transactionId": "Id of the intent's transaction",
    "endpointId": "Id of the webhook endpoint",
    "eventId": "Id of the event: `webhook-id` of its deliveries; the same on every retry",
    "eventType": "The event's type (the `webhooks` section of this document lists them)",
    "eventTypes": "The event types the endpoint receives",
    "providerId": "Id of the provider (one of a route's `providerIds`)",
    "providerCode": "The provider's code (e.g. sandbox_atlas, bridge)",
    "providerName": "The provider's name, for people",
    "providerReference": "The provider's reference of the transaction (quote it to them)",
    "currencyCode": "Currency code: ISO 4217 for fiat, {TICKER}_{BLOCKCHAIN} for crypto",
    "amount": "Decimal string in the currency's units (at most its `decimals` places)",
    "failureReason": "Why it failed, in words; null unless the status is FAILED",
    "reason": "Why, in words",
    "url": "The URL",
    "enabled": "Whether events are sent to the endpoint",
    "environment": "`sandbox` (mock providers, test money) or `production`",
    "clientId": "The project's client id (Basic auth user name)",
    "clientSecret": "The project's client secret: shown once, keep it secret",
    "previousSecretValidUntil": "Until when the secret before the last rotation still "
    f"works (null when there is none) {_WHEN}",
    "role": "The role: owner, developer or viewer (what each may do: docs/dashboard.md)",
    "email": "The member's email address",
    "actor": "Who acted: a member's email, or an API key's name",
    "requirementCode": "The compliance requirement's code (e.g. KYC_BASIC)",
    "stepCode": "The compliance requirement's code of the step",
    "dependsOn": "Codes of the requirements that must be completed before this one",
    "outcome": "VERIFIED, REJECTED or SUBMITTED (docs/sandbox.md)",
    "autoExecute": "Whether the transaction is created as soon as the compliance plan completes",
    "redirectUrl": "Where to send the customer after onboarding (as given)",
    "onboardingRedirectUrl": "Where the hosted onboarding sends the customer once done",
    "checkoutRedirectUrl": "Where the hosted onboarding sends the customer after the "
    "deposit instructions",
    "expiredAt": f"When the intent expires unless it has a transaction by then {_WHEN}",
    "expiresAt": f"When it expires {_WHEN}",
    "transferAmount": "The amount the customer sends, in the source currency",
    "source": "The source side (where the money comes from)",
    "destination": "The destination side (where the money goes)",
    "src": "The source external account",
    "dest": "The destination external account",
    "rail": "The payment rail (ACH, WIRE, SEPA, PIX, SPEI, FPS)",
    "rails": "The payment rails",
    "fees": "The fees, in the source currency",
    "networkFee": "The blockchain's fee",
    "processingFee": "The provider's fee",
    "partnerFee": "The project's own fee (its partner fee in basis points of the amount)",
    "totalFee": "The sum of the fees",
    "issuer": "The issuer",
    "audiences": "The audiences (`aud`) an ID token of the issuer may name",
    "jwksUrl": "Where the issuer's signing keys are (JSON Web Key Set)",
    "totpRequired": "Whether every member must use a second factor (TOTP) to log in",
    "prefix": "The key's first characters, to recognise it (the key is shown once)",
    "revokedAt": f"When the key was revoked; null while it works {_WHEN}",
    "lastUsedAt": f"When the key last authenticated a call; null if never {_WHEN}",
    "address": "The address",
    "message": "The message",
    "token": "The token",
    "since": f"The start of the time range {_WHEN}",
    "file": "The document's file",
    "documentType": "The kind of document",
    "instructions": "What to send, where (the type's instructions)",
    "depositInstructions": "How the customer pays the deposit: one entry per way to pay",
    "provider": "The provider",
}

BY_FIELD: dict[str, str] = {
    # customers
    "CreateCustomer.id": "The project's own id of the customer (create-or-retrieve by it)",
    "CreateCustomer.subject_token": "An OIDC ID token from an issuer the project trusts, or "
    "the token of a wallet sign-in: the customer is the token's subject",
    "CustomerResource.access_token": "The customer's access token (a JWT) for the Bearer "
    "calls; a fresh one on every POST /customers; null on lists",
    "CustomerResource.metadata": "Free-form JSON object, as sent on creation; null if none",
    # catalog
    "CurrencyResource.ticker": "The ticker (USD, USDC...)",
    "CurrencyResource.decimals": "Decimal places an amount in the currency may have",
    "CurrencyResource.type": "FIAT or CRYPTO",
    "CurrencyResource.name": "The currency's name, for people",
    "RouteResource.providerIds": "Providers serving the route: any is a valid `providerId`",
    "AccountSideResource.currencies": "Currency codes of the side",
    "AccountSideResource.accountType": "BANK_ACCOUNT or CRYPTO_ADDRESS",
    "AccountSideResource.rails": "Rails a bank account of the side may use (empty for crypto)",
    "AccountSideResource.countries": "ISO 3166-1 alpha-2 countries the side serves",
    "AmountLimitResource.minimum": "The smallest amount, a decimal string",
    "AmountLimitResource.maximum": "The largest amount, a decimal string",
    "CorridorResource.type": "ONRAMP (fiat to crypto) or OFFRAMP (crypto to fiat)",
    "CorridorResource.source": "What the source side takes",
    "CorridorResource.destination": "What the destination side takes",
    "CorridorResource.limits": "Amount limits per source currency",
    "ProviderResource.code": "The provider's code (e.g. sandbox_atlas)",
    "ProviderResource.corridors": "The money movements the provider offers",
    "ProviderResource.requirements": "The compliance requirements the provider asks for",
    "RequirementResource.code": "The requirement's code (TERMS_OF_SERVICE, KYC_BASIC...)",
    "RequirementsResource.source": "JSON Schema (draft 2020-12) of the source account, "
    "with valid `examples`",
    "RequirementsResource.destination": "JSON Schema (draft 2020-12) of the destination "
    "account, with valid `examples`",
    "RequirementsResource.src": "Source currency code",
    "RequirementsResource.dest": "Destination currency code",
    # external accounts
    "ExternalAccountResource.type": "BANK_ACCOUNT or CRYPTO_ADDRESS",
    "ExternalAccountResource.metadata": "The account as registered (the route's schema)",
    "ExternalAccountResource.currencyId": "Id of the account's currency",
    "ExternalAccountResource.currency": "The account's currency",
    "ExternalAccountResource.customerId": "Id of the customer who owns the account",
    "ExternalAccountPair.source": "The source account (its id is `srcExternalAccountId`)",
    "ExternalAccountPair.destination": "The destination account "
    "(its id is `destExternalAccountId`)",
    # intents
    "IntentEnvelope.intent": "The intent",
    "IntentEnvelope.workflowId": "The intent's workflow while it is onboarding, or null",
    "IntentEnvelope.transaction": "The intent's transaction, or null before it exists",
    "IntentResource.currentRequirementCode": "The compliance step to complete next; null "
    "when none is pending",
    "IntentResource.mmPlan": "The money movement plan: which provider moves the money",
    "IntentResource.compliancePlan": "The compliance plan: the steps before a transaction",
    "CompliancePlanResource.currentStepCode": "The step to complete next; null when none",
    "ComplianceStepResource.code": "The requirement's code (TERMS_OF_SERVICE, KYC_BASIC...)",
    "ComplianceStepResource.complianceEdge": "The step's link to the customer's record",
    "ComplianceEdgeResource.id": "Id of the customer's record of the requirement",
    "MoneyMovementPlanResource.type": "ONRAMP or OFFRAMP",
    "MoneyMovementPlanResource.providerAccountId": "Id of the provider account that moves "
    "the money",
    "MoneyMovementPlanResource.providerAccount": "The provider account that moves the money",
    "ProviderAccountResource.id": "Id of the project's provider account",
    "TransferAmountResource.amount": "Decimal string in the source currency",
    "TransferAmountResource.currencyCode": "The source currency's code",
    "TransactionResource.context": "The deposit instructions",
    "TransactionResource.lastActivityAt": f"When the provider last reported progress {_WHEN}",
    "TransactionResource.intentId": "Id of the transaction's intent",
    "TransactionContext.depositInstructions": "How the customer pays the deposit",
    "DepositInstruction.type": "BANK (a transfer to a bank account) or CRYPTO (a transfer "
    "to an address)",
    "DepositInstruction.encoding": "DISPLAY: fields to show the customer as they are",
    "BankDepositInstructions.amount": "The amount to send, decimal string",
    "BankDepositInstructions.currencyCode": "The currency to send",
    "BankDepositInstructions.beneficiaryName": "Who the transfer is to",
    "BankDepositInstructions.bankName": "The receiving bank",
    "BankDepositInstructions.accountIdentifier": "The receiving account (routing and account "
    "numbers, IBAN and BIC, CLABE, PIX key: as the rail names them)",
    "BankDepositInstructions.reference": "The reference the transfer must carry: without "
    "it the deposit cannot be matched to the intent",
    "BankDepositInstructions.rail": "The rail to send it by",
    "CryptoDepositInstructions.address": "The address to send to",
    "CryptoDepositInstructions.currencyCode": "The currency to send",
    "CryptoDepositInstructions.chain": "The blockchain",
    "CryptoDepositInstructions.chainId": "The EVM chain id; null on other chains",
    "CryptoDepositInstructions.amount": "The amount to send, decimal string",
    "CryptoDepositInstructions.amountInSmallestUnit": "The amount in the token's smallest "
    "unit (integer string)",
    "CryptoDepositInstructions.tokenContract": "The token's contract; null for a chain's own coin",
    "CryptoDepositInstructions.memo": "What the payment must carry on chains that need a "
    "memo; null elsewhere",
    "CryptoDepositInstructions.paymentUri": "A wallet-ready payment URI (EIP-681, BIP-21, "
    "Solana Pay)",
    "CryptoDepositInstructions.encodedData": "For a token: the calldata of "
    "`transfer(address,uint256)` to send to `tokenContract`",
    "Receipt.initialAmount": "What the customer sends, in `currencyCode`",
    "Receipt.currencyCode": "The source currency",
    "Receipt.exchangeRate": "Destination units per source unit",
    "Receipt.expectedFinalAmount": "What should arrive, in `finalCurrencyCode`",
    "Receipt.finalCurrencyCode": "The destination currency",
    "Receipt.indicative": "Whether the provider's price may still move",
    # quotes
    "QuoteResource.type": "ONRAMP or OFFRAMP",
    "QuoteResource.srcCurrencyCode": "The source currency",
    "QuoteResource.destCurrencyCode": "The destination currency",
    "QuoteResource.srcAmount": "The amount priced, in the source currency",
    "QuoteResource.destAmount": "What would arrive, in the destination currency",
    "QuoteResource.hasIndicativePrice": "Whether the price may still move",
    "QuotesResource.quotes": "One price per provider and rail that answered",
    "QuotesResource.unavailable": "The providers that did not price it, and why",
    "UnavailableQuoteResource.message": "Why, in words",
    "PartnerFeeResource.bps": "The project's fee in basis points of the source amount",
    # sandbox
    "SandboxProviderEvent.type": "What the provider reports (docs/sandbox.md)",
    "SandboxProviderEvent.reason": "Why, for a FAILED or RETURNED event",
    "SandboxStepOutcome.reason": "Why, for a REJECTED outcome",
    "ProviderEventAccepted.type": "The event reported",
    "ProviderEventAccepted.eventId": "Id of the provider event, as recorded",
    # events
    "WebhookEvent.timestamp": f"When the change happened {_WHEN}",
    "WebhookEvent.data": "What changed: the event type's object",
    "IntentProviderMoved.movedFromProviderCode": "Code of the provider the intent left: it "
    "failed to create the transaction for reasons of its own",
    "IntentProviderMoved.movedToProviderCode": "Code of the provider the intent moved to "
    "(the next eligible one; the intent keeps its id)",
    "IntentProviderMoved.moveReason": "Why the intent moved: the left provider's failure, in words",
    "DepositUnmatched.intentId": "Id of the intent the money came for; null when no intent "
    "matches it (money without our reference, or quoting one no transfer has)",
    "DepositUnmatched.customerId": "Id of the customer (the service's id); null when no "
    "intent matches and the provider's customer is not one of ours",
    "DepositUnmatched.unmatchedReason": "Why the deposit cannot be taken: the intent had "
    "ended, the amount differs, or no intent matches it",
    "DepositUnmatched.transactionId": "Id of the intent's transaction, if it has one",
    "DepositUnmatched.providerReference": "The provider's reference of the transfer, or, "
    "with no intent, of the payment (Monerium's order id, Bridge's transfer id): what to "
    "quote to the provider to refund it; null without a transaction",
    "DepositUnmatched.amount": "The amount that arrived, where the provider states it (money "
    "with no intent); null otherwise",
    "DepositUnmatched.currency": "The currency of `amount` (`EUR`); null with it",
    "DepositUnmatched.providerAccountId": "The provider account the money reached (money "
    "with no intent); null otherwise",
    # webhook endpoints and deliveries
    "CreateWebhookEndpoint.url": "Where to POST the events: https and a public host in production",
    "UpdateWebhookEndpoint.url": "The new URL (the same rules as on creation)",
    "CreateWebhookEndpoint.description": "What the endpoint is for, for people",
    "UpdateWebhookEndpoint.description": "What the endpoint is for, for people",
    "UpdateWebhookEndpoint.eventTypes": "The event types the endpoint receives from now on",
    "UpdateWebhookEndpoint.enabled": "false stops deliveries; true starts them again",
    "WebhookEndpointResource.disabledReason": "Why the service disabled it (410 Gone, or "
    "failing for 3 days); null otherwise",
    "WebhookDeliveryResource.url": "The endpoint's URL when the delivery was made",
    "WebhookDeliveryResource.attemptCount": "Attempts made so far",
    "WebhookDeliveryResource.maxAttempts": "Attempts the retry schedule allows",
    "WebhookDeliveryResource.lastStatusCode": "The HTTP status of the last attempt; null "
    "when it got no answer",
    "WebhookDeliveryResource.lastError": "What went wrong on the last attempt; null if nothing",
    "WebhookDeliveryResource.nextAttemptAt": f"When the next attempt is due; null when "
    f"none is {_WHEN}",
    "WebhookDeliveryResource.attempts": "Every attempt, oldest first",
    "WebhookAttemptResource.number": "The attempt's number, from 1",
    "WebhookAttemptResource.attemptedAt": f"When it was made {_WHEN}",
    "WebhookAttemptResource.latencyMs": "How long the endpoint took to answer, in ms",
    "WebhookAttemptResource.error": "What went wrong (a timeout, a refused connection...); "
    "null on an answer",
    "WebhookRecoveryResource.since": f"The start of the range recovered {_WHEN}",
    "WebhookRecoveryResource.endpointId": "Id of the endpoint recovered",
    # provider webhooks
    "ProviderWebhookReceived.received": "Events taken from the delivery",
    "ProviderWebhookReceived.duplicates": "Events already received before (ignored)",
    # wallet sign-in
    "WalletChallenge.message": "The signed Sign-In with Ethereum message (EIP-4361)",
    "WalletChallenge.signature": "The message's signature (hex)",
    "WalletChallenge.ttlInSeconds": "How long the token returned is valid, in seconds",
    "WalletToken.token": "Give it as `subject_token` to POST /customers",
    # hosted onboarding
    "OnboardingResource.planStatus": "The compliance plan's status",
    "OnboardingResource.provider": "The provider the customer onboards with",
    "OnboardingProvider.code": "The provider's code",
    "OnboardingProvider.name": "The provider's name, for people",
    "OnboardingStep.code": "The requirement's code (the step's form)",
    "OnboardingTransaction.id": "Id of the transaction",
    "OnboardingTransaction.status": "The transaction's status",
    "OnboardingTransaction.depositInstructions": "How the customer pays the deposit",
    "OnboardingDepositInstruction.type": "BANK or CRYPTO",
    "OnboardingField.kind": "The input to render: text, textarea, date, country, select, "
    "file or checkbox",
    "OnboardingField.required": "Whether the field must be filled",
    "OnboardingField.maxLength": "The longest value accepted; null for no limit",
    "OnboardingField.autocomplete": "The HTML autocomplete token of the input, if any",
    "OnboardingHandoff.mode": "LINK: the customer completes it at `url`; WAIT: the provider "
    "reaches the customer itself",
    "OnboardingTerms.title": "The terms' title",
    "OnboardingTerms.paragraphs": "The terms, paragraph by paragraph",
    "OnboardingOrigins.origins": "Origins (scheme, host, port) allowed to embed the page",
    "OnboardingOriginsResource.origins": "Origins (scheme, host, port) allowed to embed the page",
    "Address.line1": "Street and number",
    "Address.line2": "Apartment, floor...",
    "Address.city": "City",
    "Address.region": "State, province or region",
    "Address.postalCode": "Postal code",
    "Address.country": "ISO 3166-1 alpha-2 country code",
    "Document.filename": "The file's name",
    "Document.contentType": "The file's media type (image/jpeg, image/png, application/pdf)",
    "IdentityDocument.documentType": "PASSPORT, NATIONAL_ID or DRIVERS_LICENSE",
    "IdentityDocument.documentNumber": "The document's number",
    "KycBasicSubmission.firstName": "Given name(s)",
    "KycBasicSubmission.lastName": "Family name",
    "KycBasicSubmission.nationality": "ISO 3166-1 alpha-2 country code",
    "KycBasicSubmission.address": "Residential address",
    "KycBasicSubmission.idDocument": "An identity document",
    "KycEnhancedSubmission.occupation": "The customer's occupation",
    "KycEnhancedSubmission.employer": "The customer's employer, if any",
    "KycEnhancedSubmission.selfie": "A photo of the customer",
    "ProofOfAddressSubmission.documentType": "The kind of document (a utility bill, a "
    "bank statement...)",
    "ProofOfAddressSubmission.issuer": "Who issued the document",
    "ProofOfAddressSubmission.file": "The document",
    "SourceOfFundsSubmission.source": "Where the money comes from",
    "SourceOfFundsSubmission.description": "More about it, in words",
    "SourceOfFundsSubmission.evidence": "A supporting document, if any",
    # the dashboard's admin API
    "AdminProjectResource.onboardingOrigins": "Origins allowed to embed the hosted onboarding page",
    "ApiKeyResource.name": "The key's name, for people",
    "ApiKeyResource.role": "What the key may do: owner, developer or viewer",
    "CreateApiKey.name": "The key's name, for people",
    "CreateApiKey.role": "What the key may do: owner, developer or viewer",
    "NewApiKeyResource.name": "The key's name, for people",
    "NewApiKeyResource.role": "What the key may do: owner, developer or viewer",
    "AuditEventResource.projectId": "The project concerned; null for the organization",
    "AuditEventResource.action": "What was done (e.g. project.rotate_secret)",
    "AuditEventResource.target": "What it was done to",
    "AuditEventResource.details": "More about it (never a secret)",
    "AuditEventResource.ip": "The address the call came from",
    "IntentSummaryResource.providerCode": "The provider's code",
    "IntentSummaryResource.amount": "The amount, in the source currency",
    "IntentSummaryResource.currencyCode": "The source currency",
    "CreateInvite.email": "Who to invite",
    "CreateInvite.role": "The role they get",
    "InviteResource.url": "The invitation link (shown once)",
    "OpenInviteResource.expiresAt": f"When the invitation expires {_WHEN}",
    "MemberResource.totpEnabled": "Whether the member has a second factor (TOTP)",
    "ChangeRole.role": "The member's new role",
    "CreateProject.name": "The project's name",
    "ConnectProvider.credentials": "The provider's credentials (its `credentialsSchema`); "
    "stored encrypted, never returned",
    "ProjectProviderResource.provider": "The provider's code",
    "ProjectProviderResource.mock": "Whether it is a sandbox mock provider",
    "ProjectProviderResource.statusReason": "Why it has that status, in words",
    "ProjectProviderResource.credentialsHint": "The stored credentials, masked; null if none",
    "ProjectProviderResource.credentialsSchema": "JSON Schema of the credentials it takes; "
    "null for mock providers",
    "RotateClientSecret.force": "Rotate even while the previous rotation's grace period "
    "runs (its oldest secret stops working at once)",
    "RouteAvailabilityResource.from": "Source currency code",
    "RouteAvailabilityResource.to": "Destination currency code",
    "RouteAvailabilityResource.available": "Whether the project can use the route now",
    "RouteAvailabilityResource.providers": "Codes of the providers that serve it",
    "RouteAvailabilityResource.reason": "Why it is not available; null when it is",
    "SessionResource.csrfToken": "Send it as X-CSRF-Token on every call that changes state; "
    "null for an API key",
    "TrustIssuer.issuer": "The issuer's URL (`iss` of its ID tokens)",
    "TrustedIssuerResource.issuer": "The issuer's URL (`iss` of its ID tokens)",
    "ErrorEnvelope.statusCode": "The HTTP status",
    "IntentStatusChanged.status": "The intent's status now",
    "ComplianceUpdated.status": "The step's status now",
    "MoneyMovementUpdated.status": "The transaction's status now",
    "IntentSummaryResource.status": "The intent's status",
    "OnboardingResource.status": "The intent's status",
    "AdminProjectResource.id": "The project's id",
    "AdminProjectResource.name": "The project's name",
    "NewApiKeyResource.id": "The key's id",
    "ApiKeyResource.id": "The key's id",
    "OpenInviteResource.id": "The invitation's id",
    "InviteResource.id": "The invitation's id",
    "ProjectProviderResource.name": "The provider's name, for people",
    "WebhookDeliveryResource.status": "PENDING, RETRYING, SUCCEEDED, EXHAUSTED, GONE or "
    "CANCELLED (docs/webhooks.md)",
}


def _thing(schema_name: str) -> str:
    """The schema's name in words: "MoneyMovementPlanResource" -> "money movement plan"."""
    base = schema_name.removesuffix("Resource") or schema_name
    return " ".join(word.lower() for word in re.findall(r"[A-Z][a-z0-9]*", base)) or base


def describe_fields(components: dict[str, Any]) -> None:
    """Gives every property of `components` without a description its glossary entry."""
    for name, schema in components.items():
        for field, property_schema in (schema.get("properties") or {}).items():
            if property_schema.get("description"):
                continue
            words = BY_FIELD.get(f"{name}.{field}") or BY_NAME.get(field)
            if words is not None:
                property_schema["description"] = words.replace("{thing}", _thing(name))
