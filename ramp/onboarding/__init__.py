"""Hosted onboarding: what the customer fills in for each requirement, how the sandbox
verifies it, and which origins may embed the page.

Pure code (no database, no clock of the workflow): the API validates submissions with
`forms`, the onboarding activity asks a `verification.Verifier` for a verdict, and the
page's content security policy is built by `origins`.
"""
