"""Customers of a project: who they are (external id, linked identities) and how they
sign in (a subject token from a trusted issuer, or a wallet's signed message)."""
