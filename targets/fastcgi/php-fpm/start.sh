#!/bin/sh
# Runs PHP-FPM in the foreground with a static pool of PHP_FPM_CHILDREN
# workers listening for FastCGI on PORT.
set -eu
fpm=$(ls /usr/sbin/php-fpm* | head -n 1)
cat > /etc/php-fpm-webbench.conf <<CONF
[global]
error_log = /proc/self/fd/2
daemonize = no
[www]
user = www-data
group = www-data
listen = 0.0.0.0:${PORT:-9000}
pm = static
pm.max_children = ${PHP_FPM_CHILDREN:-4}
clear_env = no
CONF
# The harness reads this line to record the runtime version.
echo "runtime: php $(php -r 'echo PHP_VERSION;')"
exec "$fpm" --nodaemonize --fpm-config /etc/php-fpm-webbench.conf
