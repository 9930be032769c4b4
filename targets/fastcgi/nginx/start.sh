#!/bin/sh
# Writes nginx.conf for the FastCGI pool at BACKEND_ADDRS (host:port of each
# replica) and starts nginx in the foreground, listening on PORT. Given
# TLS_CERT_FILE and TLS_KEY_FILE it listens with TLS, ALPN offering h2 and
# http/1.1 (nginx 1.25.1 and later say so with "http2 on"; earlier ones,
# Debian bookworm's 1.22, with "listen ... ssl http2").
#
# With NGINX_ALONE=1 it has no backend: every request gets nginx's own
# `return 200 "Hello, World!"`, the front by itself, the ceiling this
# topology can reach whatever the backends do (study 003's limits).
set -eu
if [ "${NGINX_ALONE:-}" = 1 ]; then
  upstream=""
  location='default_type text/plain;
            return 200 "Hello, World!";'
else
  : "${BACKEND_ADDRS:?the harness sets BACKEND_ADDRS to the backend replicas}"
  servers=""
  for a in $(echo "$BACKEND_ADDRS" | tr ',' ' '); do
    servers="$servers        server $a;
"
  done
  upstream="upstream fastcgi_backend {
$servers    }"
  location='include /etc/nginx/fastcgi_params;
            fastcgi_param SCRIPT_FILENAME /app/index.php;
            fastcgi_pass fastcgi_backend;'
fi
version=$(nginx -v 2>&1 | sed 's|^nginx version: nginx/||')
listen="listen ${PORT:-80} default_server;"
tls=""
if [ -n "${TLS_CERT_FILE:-}" ]; then
  if [ "$(printf '%s\n' 1.25.1 "$version" | sort -V | head -n1)" = 1.25.1 ]; then
    listen="listen ${PORT:-80} ssl default_server;"
    tls="http2 on;"
  else
    listen="listen ${PORT:-80} ssl http2 default_server;"
  fi
  tls="$tls
        ssl_certificate ${TLS_CERT_FILE};
        ssl_certificate_key ${TLS_KEY_FILE};
        ssl_protocols TLSv1.2 TLSv1.3;"
fi
cat > /etc/nginx/nginx.conf <<CONF
worker_processes ${CPUS:-1};
error_log stderr warn;
pid /run/nginx.pid;
events { worker_connections 4096; }
http {
    access_log off;
    $upstream
    server {
        $listen
        server_name _;
        $tls
        fastcgi_keep_conn off;
        fastcgi_request_buffering off;
        location / {
            $location
        }
    }
}
CONF
# The harness reads this line to record the runtime version.
echo "runtime: $(nginx -v 2>&1 | sed 's/^nginx version: //')"
exec nginx -g 'daemon off;'
