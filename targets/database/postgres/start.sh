#!/bin/sh
# Starts PostgreSQL through the image's own entrypoint, listening on PORT
# (the harness sets it: in host and shared network modes every service of a
# target has its own). The entrypoint seeds the database on a server that
# listens on the Unix socket only, so the TCP port the harness waits for
# opens when the seed is in and the server accepts queries.
set -eu
export PGPORT="${PORT:-5432}"
# The harness reads this line to record the runtime version.
echo "runtime: PostgreSQL $(postgres --version | sed 's/^postgres (PostgreSQL) //')"
exec docker-entrypoint.sh postgres "$@"
