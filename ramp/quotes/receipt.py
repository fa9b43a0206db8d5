"""The receipt of a new transaction: the provider's quote for the order, with the
project's partner fee, recorded on the transaction (`transaction.receipt`).

Asked by the create_transaction activity right after the order is placed. A receipt
never fails an order: without a quote (none offered, failed, too late) it is None.
"""

from __future__ import annotations

import asyncio
import logging

from ramp.adapters.contract import TransactionOrder
from ramp.catalog import MovementType, currency_by_code
from ramp.intents.models import Receipt, ReceiptFees
from ramp.quotes.models import Quoter, RailQuoteRequest
from ramp.quotes.partner_fee import after_partner_fee, partner_fee
from ramp.quotes.service import QUOTE_BUDGET_SECONDS

logger = logging.getLogger("ramp.quotes")


async def order_receipt(quoter: object, order: TransactionOrder, bps: int) -> Receipt | None:
    """The order's price as its provider quotes it now, with the project's partner fee
    (`bps`); None when there is no quote to be had (a receipt never fails an order)."""
    source = currency_by_code(order.source.currency_code)
    destination = currency_by_code(order.destination.currency_code)
    bank = order.source if order.movement_type is MovementType.ONRAMP else order.destination
    if not isinstance(quoter, Quoter) or source is None or destination is None or not bank.rail:
        return None
    request = RailQuoteRequest(
        source_currency=source.code,
        destination_currency=destination.code,
        amount=order.amount,
        movement_type=order.movement_type,
        rail=bank.rail,
    )
    try:
        quote = await asyncio.wait_for(quoter.quote(request), timeout=QUOTE_BUDGET_SECONDS)
    except Exception as error:  # the order stands without its receipt
        logger.warning("no receipt for transaction %s: %s", order.transaction_id, error)
        return None
    partner = partner_fee(order.amount, bps, source.decimals)
    return Receipt(
        initial_amount=order.amount,
        currency_code=source.code,
        fees=ReceiptFees(
            network_fee=quote.network_fee,
            processing_fee=quote.processing_fee,
            partner_fee=partner,
            total_fee=quote.fee + partner,
        ),
        exchange_rate=quote.exchange_rate,
        expected_final_amount=max(
            after_partner_fee(
                quote.destination_amount, partner, quote.exchange_rate, destination.decimals
            ),
            0,
        ),
        final_currency_code=destination.code,
        indicative=quote.indicative,
    )
