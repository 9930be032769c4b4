#!/bin/sh
# Writes nginx.conf for the FastCGI pool at BACKEND_ADDRS (host:port of each
# replica) and starts nginx in the foreground, listening on PORT.
set -eu
: "${BACKEND_ADDRS:?the harness sets BACKEND_ADDRS to the backend replicas}"
servers=""
for a in $(echo "$BACKEND_ADDRS" | tr ',' ' '); do
  servers="$servers        server $a;
"
done
cat > /etc/nginx/nginx.conf <<CONF
worker_processes ${CPUS:-1};
error_log stderr warn;
pid /run/nginx.pid;
events { worker_connections 4096; }
http {
    access_log off;
    upstream fastcgi_backend {
$servers    }
    server {
        listen ${PORT:-80} default_server;
        server_name _;
        fastcgi_keep_conn off;
        fastcgi_request_buffering off;
        location / {
            include /etc/nginx/fastcgi_params;
            fastcgi_param SCRIPT_FILENAME /app/index.php;
            fastcgi_pass fastcgi_backend;
        }
    }
}
CONF
# The harness reads this line to record the runtime version.
echo "runtime: $(nginx -v 2>&1 | sed 's/^nginx version: //')"
exec nginx -g 'daemon off;'
