#!/usr/bin/env bash
# A second Docker engine on this machine, in a network namespace of its own
# joined to the host's by a veth pair: as far as the network goes, another
# machine. The end-to-end test and `make two-engines` use it to run targets
# on one engine and the load generator on another for real.
#
#   netns-engine.sh up N DIR     start it: namespace wbe2e<N>, host end
#                                10.231.N.1, engine at tcp://10.231.N.2:2375,
#                                its files under DIR; prints the engine URL
#   netns-engine.sh down N DIR   stop it and remove all of that (idempotent)
#
# Needs root, iproute2, nsenter (util-linux) and dockerd. `ip netns exec`
# would remount /sys and the engine would fail with "Devices cgroup isn't
# mounted"; nsenter --net does not. The engine listens on plain TCP, on the
# veth address only: never do this on an address others can reach.
set -euo pipefail
cmd=${1:?usage: netns-engine.sh up|down N DIR} n=${2:?N (20-219)} dir=${3:?DIR}
case $n in ''|*[!0-9]*) echo "N must be a number" >&2; exit 2;; esac
ns=wbe2e$n vh=wbh$n vn=wbn$n host=10.231.$n.1 addr=10.231.$n.2

down() {
  if [[ -f $dir/dockerd.pid ]]; then
    pid=$(cat "$dir/dockerd.pid")
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  # What the engine mounted under DIR (layers, its netns files), deepest first.
  awk -v d="$dir/" 'index($2, d) == 1 {print $2}' /proc/self/mounts | sort -r | while read -r m; do
    umount -l "$m" || true
  done
  rm -rf "$dir"
  ip link del "$vh" 2>/dev/null || true
  ip netns del "$ns" 2>/dev/null || true
}

up() {
  driver=$(docker info --format '{{.Driver}}')
  mkdir -p "$dir"
  ip netns add "$ns"
  ip link add "$vh" type veth peer name "$vn"
  ip link set "$vn" netns "$ns"
  ip addr add "$host/24" dev "$vh"
  ip link set "$vh" up
  nsenter --net="/var/run/netns/$ns" ip addr add "$addr/24" dev "$vn"
  nsenter --net="/var/run/netns/$ns" ip link set "$vn" up
  nsenter --net="/var/run/netns/$ns" ip link set lo up
  # An empty config: the host's daemon.json may set data-root too.
  echo '{}' > "$dir/daemon.json"
  setsid nsenter --net="/var/run/netns/$ns" dockerd --config-file "$dir/daemon.json" \
    --data-root "$dir/data" --exec-root "$dir/exec" --pidfile "$dir/dockerd.pid" \
    -H "unix://$dir/docker.sock" -H "tcp://$addr:2375" --tls=false \
    --bridge none --iptables=false --ip6tables=false --storage-driver "$driver" \
    > "$dir/dockerd.log" 2>&1 < /dev/null &
  for _ in $(seq 90); do
    if docker -H "tcp://$addr:2375" version >/dev/null 2>&1; then
      echo "tcp://$addr:2375"
      return 0
    fi
    sleep 1
  done
  echo "second engine not up after 90s; its log:" >&2
  tail -20 "$dir/dockerd.log" >&2
  return 1
}

case $cmd in
  up) up || { down; exit 1; } ;;
  down) down ;;
  *) echo "usage: netns-engine.sh up|down N DIR" >&2; exit 2 ;;
esac
