#!/bin/sh
# Registers $TEMPORAL_NAMESPACE (if missing) and ramp's custom search attributes in it on
# the server at $TEMPORAL_ADDRESS. Idempotent: docker compose runs it on every `up`.
#
# Runs in the temporalio/admin-tools image (any image with the `temporal` CLI works).
# The names must match SEARCH_ATTRIBUTES in ramp/temporal.py (tests/test_supervisor.py
# checks this): without them every workflow task that upserts one fails, forever.
set -eu

: "${TEMPORAL_ADDRESS:?TEMPORAL_ADDRESS must be set (HOST:PORT)}"
export TEMPORAL_ADDRESS
NAMESPACE="${TEMPORAL_NAMESPACE:-default}"
KEYWORD_ATTRIBUTES="RampIntentStatus RampProjectId RampCustomerId RampProviderCode RampCurrentStep RampMoneyIssue"
# How long closed workflow histories (finished intents) stay queryable, for a new namespace.
RETENTION="${TEMPORAL_RETENTION:-720h}"
WAIT_SECONDS="${WAIT_SECONDS:-120}"

# The server's port opens before it serves: wait for its own health check.
waited=0
until temporal operator cluster health >/dev/null 2>&1; do
    if [ "$waited" -ge "$WAIT_SECONDS" ]; then
        echo "Temporal at $TEMPORAL_ADDRESS is not healthy after ${WAIT_SECONDS}s" >&2
        exit 1
    fi
    sleep 2
    waited=$((waited + 2))
done

if temporal operator namespace describe --namespace "$NAMESPACE" >/dev/null 2>&1; then
    echo "namespace $NAMESPACE: already registered"
else
    temporal operator namespace create --namespace "$NAMESPACE" --retention "$RETENTION"
    echo "namespace $NAMESPACE: registered (retention $RETENTION)"
fi

# A namespace just registered is not served at once: the server's namespace registry
# (which also remembers a "not found", such as the describe above, for a while) catches
# up within seconds. Until then listing its attributes answers "not found": wait for it.
waited=0
until existing="$(temporal operator search-attribute list --namespace "$NAMESPACE" 2>&1)"; do
    if [ "$waited" -ge "$WAIT_SECONDS" ]; then
        printf '%s\n' "$existing" >&2
        echo "namespace $NAMESPACE is not served after ${WAIT_SECONDS}s" >&2
        exit 1
    fi
    sleep 1
    waited=$((waited + 1))
done
for name in $KEYWORD_ATTRIBUTES; do
    # -w: whole word, so a registered "RampIntentStatusOld" does not count.
    if printf '%s\n' "$existing" | grep -qw "$name"; then
        echo "search attribute $name: already registered in $NAMESPACE"
    else
        # One name per call: older CLIs want a --type for every --name.
        temporal operator search-attribute create --namespace "$NAMESPACE" \
            --name "$name" --type Keyword
        echo "search attribute $name: registered in $NAMESPACE"
    fi
done
