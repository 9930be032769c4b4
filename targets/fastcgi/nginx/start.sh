#!/bin/sh
# Writes nginx.conf for the FastCGI pool named by BACKEND_HOSTS and starts
# nginx in the foreground.
set -eu
: "${BACKEND_HOSTS:?the harness sets BACKEND_HOSTS to the backend replicas}"
port="${FASTCGI_PORT:-9000}"
servers=""
for h in $(echo "$BACKEND_HOSTS" | tr ',' ' '); do
  servers="$servers        server $h:$port;
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
        listen 80 default_server;
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
