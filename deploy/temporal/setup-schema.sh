#!/bin/sh
# Makes Temporal's two databases' schemas on PostgreSQL (first start) and upgrades them to
# the server version's (later starts): temporal-sql-tool, in the temporalio/admin-tools
# image of the same version as temporalio/server. Idempotent: docker compose runs it on
# every `up`. The databases themselves are made by deploy/postgres/create-roles.sh (and,
# on a volume first started under temporalio/auto-setup, by auto-setup).
set -eu

: "${POSTGRES_SEEDS:?POSTGRES_SEEDS must be set (the PostgreSQL host)}"
: "${SQL_PASSWORD:?SQL_PASSWORD must be set (the temporal role's password)}"
DB_PORT="${DB_PORT:-5432}"
POSTGRES_USER="${POSTGRES_USER:-temporal}"
SCHEMA_ROOT="${TEMPORAL_HOME:-/etc/temporal}/schema/postgresql/v12"

sql_tool() {
    temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" \
        -u "$POSTGRES_USER" "$@"
}

for pair in temporal:temporal temporal_visibility:visibility; do
    database="${pair%%:*}"
    versions="$SCHEMA_ROOT/${pair#*:}/versioned"
    # An existing schema is brought up to date; a new database (no version table yet)
    # gets its version table first.
    if ! sql_tool --db "$database" update-schema -d "$versions"; then
        echo "schema of $database: not set up yet; setting it up"
        sql_tool --db "$database" setup-schema -v 0.0
        sql_tool --db "$database" update-schema -d "$versions"
    fi
    echo "schema of $database: up to date"
done
