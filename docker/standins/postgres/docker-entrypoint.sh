#!/bin/bash
# The official postgres image's entrypoint contract, in short: on an empty
# PGDATA, initdb as POSTGRES_USER with POSTGRES_PASSWORD (scram-sha-256 for
# TCP clients), create POSTGRES_DB, run /docker-entrypoint-initdb.d/* against
# a server listening on the Unix socket only (ON_ERROR_STOP: a failing seed
# stops the container), then start the server as given.
set -Eeuo pipefail

if [ "${1:0:1}" = '-' ]; then
	set -- postgres "$@"
fi
if [ "$1" != postgres ]; then
	exec "$@"
fi
if [ "$(id -u)" = 0 ]; then
	mkdir -p "$PGDATA"
	chown postgres:postgres "$PGDATA"
	chmod 700 "$PGDATA"
	exec gosu postgres "$BASH_SOURCE" "$@"
fi

: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
	if [ -z "${POSTGRES_PASSWORD:-}" ]; then
		echo >&2 'error: POSTGRES_PASSWORD is not set (the official image refuses to start without it too)'
		exit 1
	fi
	initdb --username="$POSTGRES_USER" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") ${POSTGRES_INITDB_ARGS:-}
	printf '\nhost all all all scram-sha-256\n' >> "$PGDATA/pg_hba.conf"
	pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p ${PGPORT:-5432}" -w start
	export PGPASSWORD="$POSTGRES_PASSWORD"
	psql=(psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --no-password --no-psqlrc)
	if [ "$POSTGRES_DB" != postgres ]; then
		"${psql[@]}" --dbname postgres --set db="$POSTGRES_DB" <<-'SQL'
			CREATE DATABASE :"db" ;
		SQL
	fi
	psql+=(--dbname "$POSTGRES_DB")
	for f in /docker-entrypoint-initdb.d/*; do
		case "$f" in
			*.sh)     echo "$0: running $f"; if [ -x "$f" ]; then "$f"; else . "$f"; fi ;;
			*.sql)    echo "$0: running $f"; "${psql[@]}" -f "$f" ;;
			*.sql.gz) echo "$0: running $f"; gunzip -c "$f" | "${psql[@]}" ;;
			*)        [ -e "$f" ] && echo "$0: ignoring $f" ;;
		esac
	done
	unset PGPASSWORD
	pg_ctl -D "$PGDATA" -m fast -w stop
	echo 'PostgreSQL init process complete; ready for start up.'
fi
exec "$@"
