# Run by the entrypoint once, after initdb: the server that starts after the
# seed reads the target's settings (postgresql.conf in this folder).
echo "include '/etc/webbench/postgresql.conf'" >> "$PGDATA/postgresql.conf"
