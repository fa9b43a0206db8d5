"""GET /v1/intent/quote: the sandbox's deterministic rate table, the partner fee, a
failing and a slow provider left out, filters, errors and authentication; the partner
fee set by `ramp project set-partner-fee`. Through HTTP and the database."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.catalog import provider_by_code
from ramp.config import Settings
from ramp.quotes.partner_fee import set_partner_fee
from ramp.quotes.service import QUOTE_BUDGET_SECONDS
from tests.helpers.cli import ramp_in_process as ramp
from tests.helpers.payments import ATLAS, BEACON
from tests.helpers.projects import ProjectCredentials, bearer, make_project

PATH = "/v1/intent/quote"


async def quotes(
    client: httpx.AsyncClient, project: ProjectCredentials, **params: str
) -> dict[str, Any]:
    query = {"srcCurrencyCode": "USD", "destCurrencyCode": "USDC_ETHEREUM", "srcAmount": "100.00"}
    response = await client.get(PATH, params={**query, **params}, headers=project.basic)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def by_provider(body: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(q["providerCode"], q["rail"]): q for q in body["quotes"]}


async def test_every_provider_of_the_route_quotes_from_the_rate_table(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    body = await quotes(client, project)
    found = by_provider(body)
    assert set(found) == {(ATLAS, "ACH"), (BEACON, "ACH")}
    atlas = found[(ATLAS, "ACH")]
    assert atlas == {
        "providerId": provider_by_code(ATLAS).id,  # type: ignore[union-attr]
        "providerCode": ATLAS,
        "type": "ONRAMP",
        "rail": "ACH",
        "srcCurrencyCode": "USD",
        "destCurrencyCode": "USDC_ETHEREUM",
        "srcAmount": "100.00",
        # (100.00 - 1.50 network - 1.00 processing) x 0.995
        "destAmount": "97.012500",
        "exchangeRate": "0.995000000000",
        "fees": {
            "currencyCode": "USD",
            "networkFee": "1.50",
            "processingFee": "1.00",
            "partnerFee": "0.00",
            "totalFee": "2.50",
        },
        "expiresAt": atlas["expiresAt"],
        "hasIndicativePrice": True,
        # Issue 26: held for POST /intent, the one FIRST_ELIGIBLE routing picks, healthy.
        "quoteId": atlas["quoteId"],
        "selected": True,
        "providerStatus": "HEALTHY",
    }
    assert atlas["expiresAt"].endswith("Z")
    beacon = found[(BEACON, "ACH")]
    # Beacon: 25 bps spread, 1.5 % processing.
    assert beacon["exchangeRate"] == "0.997500000000"
    assert beacon["fees"]["processingFee"] == "1.50"
    assert beacon["destAmount"] == "96.757500"  # (100.00 - 1.50 - 1.50) x 0.9975
    # Atlas' WIRE corridor starts at 1000.00: named, not fatal.
    assert body["unavailable"] == [
        {
            "providerId": provider_by_code(ATLAS).id,  # type: ignore[union-attr]
            "providerCode": ATLAS,
            "rail": "WIRE",
            "reason": "AMOUNT_OUT_OF_RANGE",
            "message": "Atlas Payments (sandbox) takes 1000.00 to 1000000.00 USD on WIRE",
        }
    ]
    # Deterministic: the same request, the same prices.
    again = by_provider(await quotes(client, project))
    assert again[(ATLAS, "ACH")]["destAmount"] == "97.012500"


async def test_the_partner_fee_is_added_and_taken_from_what_arrives(
    client: httpx.AsyncClient, project: ProjectCredentials, db: AsyncSession, migrated: Settings
) -> None:
    await set_partner_fee(db, project.project_id, 50)
    atlas = by_provider(await quotes(client, project))[(ATLAS, "ACH")]
    assert atlas["fees"]["partnerFee"] == "0.50"
    assert atlas["fees"]["totalFee"] == "3.00"
    assert atlas["destAmount"] == "96.515000"  # 97.0125 - 0.50 x 0.995
    # Another project's fee is its own.
    other = await make_project(db, migrated, "Other")
    theirs = by_provider(await quotes(client, other))[(ATLAS, "ACH")]
    assert theirs["fees"]["partnerFee"] == "0.00"


async def test_a_failing_provider_is_named_in_unavailable(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    body = await quotes(client, project, srcAmount="100.13")
    assert set(by_provider(body)) == {(ATLAS, "ACH")}
    [failed] = [u for u in body["unavailable"] if u["providerCode"] == BEACON]
    assert failed["reason"] == "PROVIDER_ERROR"


async def test_a_slow_provider_is_left_out_after_its_budget(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    # The slow sandbox answer takes 10 s: the answer comes without it, once its budget
    # ran out, with the others' quotes.
    body = await quotes(client, project, srcAmount="100.14")
    assert set(by_provider(body)) == {(ATLAS, "ACH")}
    [late] = [u for u in body["unavailable"] if u["providerCode"] == BEACON]
    assert late["reason"] == "TIMEOUT"
    assert (
        late["message"] == f"Beacon Ramp (sandbox) did not answer within {QUOTE_BUDGET_SECONDS} s"
    )


async def test_filters_and_other_routes(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    wire = await quotes(client, project, srcAmount="5000.00", rails="WIRE")
    assert set(by_provider(wire)) == {(ATLAS, "WIRE")}
    only_beacon = await quotes(client, project, providerId=provider_by_code(BEACON).id)  # type: ignore[union-attr]
    assert set(by_provider(only_beacon)) == {(BEACON, "ACH")}
    nowhere = await quotes(client, project, countryCode="DE")
    assert nowhere == {"quotes": [], "unavailable": []}
    # The reference's headline route, and an off-ramp quoted in the crypto currency.
    euro = await quotes(client, project, srcCurrencyCode="EUR", destCurrencyCode="USDC_GNOSIS")
    [meridian] = euro["quotes"]
    assert (meridian["providerCode"], meridian["rail"]) == ("sandbox_meridian", "SEPA")
    assert meridian["fees"]["networkFee"] == "0.01"  # 0.01 USD in EUR, rounded up
    offramp = await quotes(
        client, project, srcCurrencyCode="USDC_GNOSIS", destCurrencyCode="USD", srcAmount="50"
    )
    assert {q["type"] for q in offramp["quotes"]} == {"OFFRAMP"}
    assert by_provider(offramp)[(ATLAS, "ACH")]["fees"]["currencyCode"] == "USDC_GNOSIS"


async def test_errors_and_authentication(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    base = {"srcCurrencyCode": "USD", "destCurrencyCode": "USDC_ETHEREUM", "srcAmount": "100.00"}
    for change, code in (
        ({"srcAmount": ""}, "VALIDATION_ERROR"),
        ({"srcAmount": "1e3"}, "AMOUNT_VALIDATION_ERROR"),
        ({"srcAmount": "100.001"}, "AMOUNT_VALIDATION_ERROR"),
        ({"srcAmount": "0"}, "AMOUNT_VALIDATION_ERROR"),
        ({"srcCurrencyCode": "XYZ"}, "UNSUPPORTED_ROUTE"),
        ({"destCurrencyCode": "EURE_GNOSIS"}, "UNSUPPORTED_ROUTE"),  # nobody serves USD->EURe
        ({"rails": "ACH,SWIFT"}, "VALIDATION_ERROR"),
    ):
        response = await client.get(PATH, params={**base, **change}, headers=project.basic)
        assert response.status_code == 400, (change, response.text)
        assert response.json()["code"] == code, change
    # Each named (issue 23: these answered 200 with an empty list).
    refusals: list[tuple[Any, str]] = [
        ({**base, "countryCode": "ZZZ"}, "/countryCode"),
        ({**base, "countryCode": "us"}, "/countryCode"),
        ({**base, "providerId": "00000000-0000-4000-8000-000000000000"}, "/providerId"),
        ([*base.items(), ("srcAmount", "5.00")], "/srcAmount"),
    ]
    for params, pointer in refusals:
        refused = await client.get(PATH, params=params, headers=project.basic)
        assert refused.status_code == 400, (params, refused.text)
        assert refused.json()["code"] == "VALIDATION_ERROR", params
        assert [f["pointer"] for f in refused.json()["details"]["fields"]] == [pointer], params
    missing = await client.get(PATH, params={"srcAmount": "1"}, headers=project.basic)
    assert missing.status_code == 400
    pointers = {f["pointer"] for f in missing.json()["details"]["fields"]}
    assert pointers == {"/srcCurrencyCode", "/destCurrencyCode"}
    assert (await client.get(PATH, params=base)).status_code == 401
    customer_token = await client.get(PATH, params=base, headers=bearer(customer["access_token"]))
    assert customer_token.status_code == 401
    assert customer_token.json()["code"] == "INVALID_AUTH_SCHEME"


def test_the_partner_fee_is_set_with_the_cli(tmp_path: Path) -> None:
    created = ramp("project", "create", "--name", "Fees", "--data-dir", str(tmp_path))
    project_id = json.loads(created.stdout)["projectId"]
    set_fee = ramp(
        "project", "set-partner-fee", "--project-id", project_id, "--bps", "75",
        "--data-dir", str(tmp_path),
    )  # fmt: skip
    assert set_fee.returncode == 0, set_fee.stderr
    assert json.loads(set_fee.stdout) == {"projectId": project_id, "partnerFeeBps": 75}
    too_much = ramp(
        "project", "set-partner-fee", "--project-id", project_id, "--bps", "5000",
        "--data-dir", str(tmp_path),
    )  # fmt: skip
    assert too_much.returncode == 1
    assert "0 to 1000 basis points" in too_much.stderr
    assert "Traceback" not in too_much.stderr
