#!/bin/sh
# First start of the PostgreSQL volume only (docker-entrypoint-initdb.d): one role per
# service, so neither Temporal nor ramp runs as the superuser.
#   temporal: owns Temporal's two databases (temporal-schema makes their schemas)
#   ramp:     owns the ramp database (migrations create its tables)
# No `set -u`: the image's entrypoint sources this file into its own shell.
set -e

: "${TEMPORAL_DB_PASSWORD:?TEMPORAL_DB_PASSWORD must be set}"
: "${RAMP_DB_PASSWORD:?RAMP_DB_PASSWORD must be set}"

# psql variables (:'name') quote the passwords as SQL literals.
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
    -v temporal_password="$TEMPORAL_DB_PASSWORD" \
    -v ramp_password="$RAMP_DB_PASSWORD" <<'SQL'
CREATE ROLE temporal LOGIN PASSWORD :'temporal_password';
CREATE DATABASE temporal OWNER temporal;
CREATE DATABASE temporal_visibility OWNER temporal;
CREATE ROLE ramp LOGIN PASSWORD :'ramp_password';
CREATE DATABASE ramp OWNER ramp;
SQL
