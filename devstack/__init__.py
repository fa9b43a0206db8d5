"""The sandbox tooling: the `ramp` command, `ramp dev`'s supervisor and local Temporal
server, the local webhook listener.

It may import the applications (api, worker) and the shared package `ramp`; nothing
imports it, so none of it ships inside the service's own code paths.
"""
