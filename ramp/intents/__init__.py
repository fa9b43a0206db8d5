"""Payment intents: amounts, compliance, state machines and the workflow's models."""
