"""Provider connectors: how the service talks to each payment provider.

Every provider, the sandbox's mocks included, sits behind `Connector`
(ramp/adapters/contract.py); `Connectors` (ramp/adapters/registry.py) finds one by
provider code. A new provider is a package here, its catalog entries and its docs:
the workflow and the activities do not change. Nothing is imported here, so the
workflows can read the contract's declarations without loading a connector's HTTP
client.
"""
