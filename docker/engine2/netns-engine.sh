#!/usr/bin/env bash
# A further Docker engine on this machine, in a network namespace of its own
# joined to the host's by a veth pair: as far as the network goes, another
# machine. The end-to-end tests use it to run targets on one engine and the
# load generators on others for real.
#
#   netns-engine.sh up N DIR [DATA]
#                                start it: namespace wbe2e<N>, host end
#                                10.231.N.1, engine at tcp://10.231.N.2:2375,
#                                its files under DIR; prints the engine URL.
#                                DATA, if given, is its data root (images,
#                                layers) instead of DIR/data: a folder kept
#                                between starts, as another machine keeps
#                                its images. One engine at a time on it:
#                                exit 3, and nothing made, if another holds it
#   netns-engine.sh down N DIR [DATA]
#                                stop it and remove all of that, DATA's
#                                mounts but not its files (idempotent)
#   netns-engine.sh link N M     join two such namespaces, both up, by a veth
#                                pair of their own, so that each engine's
#                                containers reach the other's address as
#                                machines on one LAN do (the host's firewall,
#                                which may drop forwarded packets, is not on
#                                the way); `down` of either removes it
#
# Several engines run at once, each with its own N and DIR: the names
# (namespace, veth, link ends wbl<N>p<M>), the addresses and the data roots
# all derive from them.
#
# Needs root, iproute2, nsenter (util-linux) and dockerd. `ip netns exec`
# would remount /sys and the engine would fail with "Devices cgroup isn't
# mounted"; nsenter --net does not. The engine listens on plain TCP, on the
# veth address only: never do this on an address others can reach.
set -euo pipefail
usage="usage: netns-engine.sh up|down N DIR [DATA], or link N M"
cmd=${1:?$usage} n=${2:?N (1-254)} dir=${3:?DIR (up, down) or M (link)}
data=${4:-$dir/data}
number() { # N and M name interfaces and make addresses 10.231.N.x
  case $1 in ''|*[!0-9]*) echo "$2 must be a number from 1 to 254" >&2; exit 2;; esac
  if (( $1 < 1 || $1 > 254 )); then echo "$2 must be a number from 1 to 254" >&2; exit 2; fi
}
number "$n" N
ns=wbe2e$n vh=wbh$n vn=wbn$n host=10.231.$n.1 addr=10.231.$n.2
in_ns() { nsenter --net="/var/run/netns/$1" "${@:2}"; }

down() {
  if [[ -f $dir/dockerd.pid ]]; then
    pid=$(cat "$dir/dockerd.pid")
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  # What the engine mounted under DIR and DATA (layers, its netns files),
  # deepest first.
  awk -v d="$dir/" -v r="$data/" 'index($2, d) == 1 || index($2, r) == 1 {print $2}' /proc/self/mounts | sort -r | while read -r m; do
    umount -l "$m" || true
  done
  rm -rf "$dir"
  # Its links to other namespaces: deleting one end removes the pair, so
  # none is left in a namespace that outlives this one.
  if [[ -e /var/run/netns/$ns ]]; then
    for l in $(in_ns "$ns" ip -o link show | awk -F': ' '{sub(/@.*/, "", $2); print $2}' | grep "^wbl${n}p" || true); do
      in_ns "$ns" ip link del "$l" || true
    done
  fi
  ip link del "$vh" 2>/dev/null || true
  ip netns del "$ns" 2>/dev/null || true
}

# hold_data takes DATA's lock (DATA.lock) on fd 9, which dockerd inherits:
# one engine at a time on a data root, for as long as that engine runs.
hold_data() {
  mkdir -p "$(dirname "$data")"
  exec 9>>"$data.lock"
  flock -n 9 || { echo "data root $data is in use by another engine" >&2; return 1; }
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
    --data-root "$data" --exec-root "$dir/exec" --pidfile "$dir/dockerd.pid" \
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

# link joins namespace N to namespace M (both made by up) by a veth pair
# with no addresses of its own: a host route in each sends the other's
# engine address over it, from its own. (Called as `link || …`, where set -e
# does not hold: hence the &&.)
link() {
  local m=$dir
  number "$m" M
  if (( m == n )); then echo "link: N and M are one namespace" >&2; exit 2; fi
  local mns=wbe2e$m a=wbl${n}p$m b=wbl${m}p$n maddr=10.231.$m.2
  ip link add "$a" type veth peer name "$b" &&
    ip link set "$a" netns "$ns" &&
    ip link set "$b" netns "$mns" &&
    in_ns "$ns" ip link set "$a" up &&
    in_ns "$mns" ip link set "$b" up &&
    in_ns "$ns" ip route add "$maddr/32" dev "$a" src "$addr" &&
    in_ns "$mns" ip route add "$addr/32" dev "$b" src "$maddr"
}

# unlink_pair removes what a failed link made, wherever its end got to.
unlink_pair() {
  ip link del "wbl${n}p$dir" 2>/dev/null || in_ns "$ns" ip link del "wbl${n}p$dir" 2>/dev/null || true
}

case $cmd in
  up) hold_data || exit 3; up || { down; exit 1; } ;;
  down) down ;;
  link) link || { unlink_pair; exit 1; } ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
