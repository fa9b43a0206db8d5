"""Checksums a regular expression cannot express, as JSON Schema `format` values:
`iban` (mod 97), `aba-routing-number`, `clabe` (check digit) and `evm-address` (EIP-55).
Validators that do not know them treat them as annotations; `validate_account` enforces them.
"""

from __future__ import annotations

import re

from jsonschema import FormatChecker

from .rails import CLABE, EVM_ADDRESS, IBAN, ROUTING_NUMBER

FORMAT_CHECKER = FormatChecker()


def _is_iban(value: object) -> bool:
    # The shape is the pattern's job; only a well-shaped value gets its checksum checked,
    # so one mistake yields one violation.
    if not isinstance(value, str) or not re.fullmatch(IBAN[1:-1], value):
        return True
    rearranged = value[4:] + value[:4]
    return int("".join(str(int(ch, 36)) for ch in rearranged)) % 97 == 1


def _is_aba_routing_number(value: object) -> bool:
    if not isinstance(value, str) or not re.fullmatch(ROUTING_NUMBER[1:-1], value):
        return True
    digits = [int(d) for d in value]
    weighted = sum(w * d for w, d in zip((3, 7, 1) * 3, digits, strict=True))
    return weighted % 10 == 0


def _is_clabe(value: object) -> bool:
    if not isinstance(value, str) or not re.fullmatch(CLABE[1:-1], value):
        return True
    total = sum((int(d) * w) % 10 for d, w in zip(value[:17], (3, 7, 1) * 6, strict=False))
    return (10 - total % 10) % 10 == int(value[17])


def _is_evm_address(value: object) -> bool:
    if not isinstance(value, str) or not re.fullmatch(EVM_ADDRESS[1:-1], value):
        return True
    digits = value[2:]
    if digits.islower() or digits.isupper() or digits.isdigit():
        return True  # single-case addresses carry no checksum
    # Imported lazily: the hashing backend is only needed for mixed-case addresses.
    from eth_utils.address import is_checksum_address

    return is_checksum_address(value)


# Registered by call rather than decorator: jsonschema is untyped, and a decorator would
# erase the functions' signatures for mypy.
FORMAT_CHECKER.checks("iban")(_is_iban)
FORMAT_CHECKER.checks("aba-routing-number")(_is_aba_routing_number)
FORMAT_CHECKER.checks("clabe")(_is_clabe)
FORMAT_CHECKER.checks("evm-address")(_is_evm_address)

FORMAT_NAMES = {
    "iban": "IBAN (checksum mismatch)",
    "aba-routing-number": "ABA routing number (checksum mismatch)",
    "clabe": "CLABE (check digit mismatch)",
    "evm-address": "EIP-55 checksummed address (wrong letter case)",
}
