#!/usr/bin/env bash
# An SSH server beside the second engine, in its network namespace: what a
# remote Docker host offers for `docker -H ssh://user@host` and for
# `docker context create NAME --docker host=ssh://user@host`. The Docker
# CLI's connection helper runs `ssh user@host docker system dial-stdio`;
# the `docker` run there reaches that namespace's engine (DOCKER_HOST, set
# by this server for every session), as it would the only engine of a
# remote machine.
#
#   netns-sshd.sh up N ENGINE_DIR DIR KEYS
#                        start it in namespace wbe2e<N> (made by
#                        netns-engine.sh up N ENGINE_DIR), listening on
#                        10.231.N.2:22, with its host key, config, pid and
#                        log under DIR. Only public-key logins, for the
#                        keys in the authorized_keys file KEYS; prints
#                        ssh://USER@10.231.N.2 (USER: whoever runs this).
#                        The host key to pin is DIR/ssh_host_ed25519_key.pub.
#   netns-sshd.sh down N DIR
#                        stop it and every session it started, remove DIR
#                        (idempotent)
#
# Needs root, nsenter and openssh-server's sshd: when sshd is missing and
# apt-get is there, it is installed (no service started: policy-rc.d).
set -euo pipefail
cmd=${1:?usage: netns-sshd.sh up N ENGINE_DIR DIR KEYS | down N DIR}
n=${2:?N (20-219)}
case $n in ''|*[!0-9]*) echo "N must be a number" >&2; exit 2;; esac
ns=wbe2e$n addr=10.231.$n.2 sshd=/usr/sbin/sshd

install_sshd() {
  [[ -x $sshd ]] && return 0
  if ! command -v apt-get >/dev/null 2>&1 || [[ $(id -u) != 0 ]]; then
    echo "no $sshd: install openssh-server (as root: apt-get install openssh-server)" >&2
    return 1
  fi
  # A package install must not start the distribution's sshd on the host.
  local policy=/usr/sbin/policy-rc.d made=
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod +x "$policy" && made=1
  fi
  local rc=0
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openssh-server >/dev/null; } || rc=$?
  [[ -n $made ]] && rm -f "$policy"
  return $rc
}

# sessions lists the sshd processes in the namespace: the listener and one
# per session (a session's `docker system dial-stdio` ends with it).
sessions() {
  local p
  for p in $(ip netns pids "$ns" 2>/dev/null); do
    [[ $(readlink "/proc/$p/exe" 2>/dev/null) == "$sshd" ]] && echo "$p"
  done
  return 0
}

down() {
  local dir=${1:?DIR}
  if [[ -f $dir/sshd.pid ]]; then kill -TERM "$(cat "$dir/sshd.pid")" 2>/dev/null || true; fi
  local left
  for _ in $(seq 20); do
    left=$(sessions)
    [[ -z $left ]] && break
    # shellcheck disable=SC2086
    kill -TERM $left 2>/dev/null || true
    sleep 0.25
  done
  left=$(sessions)
  # shellcheck disable=SC2086
  [[ -n $left ]] && kill -KILL $left 2>/dev/null || true
  rm -rf "$dir"
}

up() {
  local engine=${1:?ENGINE_DIR} dir=${2:?DIR} keys=${3:?KEYS}
  [[ -S $engine/docker.sock ]] || { echo "no engine at $engine/docker.sock (netns-engine.sh up $n $engine first)" >&2; return 1; }
  [[ -s $keys ]] || { echo "no keys in $keys" >&2; return 1; }
  install_sshd
  mkdir -p "$dir" /run/sshd # sshd's privilege separation folder
  chmod 700 "$dir"
  ssh-keygen -q -t ed25519 -N '' -C "webbench-netns-$n" -f "$dir/ssh_host_ed25519_key"
  install -m 600 "$keys" "$dir/authorized_keys"
  # StrictModes would refuse keys whose path runs through /tmp (mode 1777).
  cat > "$dir/sshd_config" <<EOF
ListenAddress $addr:22
HostKey $dir/ssh_host_ed25519_key
PidFile $dir/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
AuthenticationMethods publickey
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitEmptyPasswords no
PermitRootLogin prohibit-password
AllowUsers $(id -un)
UsePAM no
StrictModes no
PermitTTY no
X11Forwarding no
AllowTcpForwarding no
AllowAgentForwarding no
SetEnv DOCKER_HOST=unix://$engine/docker.sock
EOF
  "$sshd" -t -f "$dir/sshd_config"
  nsenter --net="/var/run/netns/$ns" "$sshd" -f "$dir/sshd_config" -E "$dir/sshd.log" < /dev/null
  for _ in $(seq 40); do
    if [[ -s $dir/sshd.pid ]] && nsenter --net="/var/run/netns/$ns" bash -c "exec 3<>/dev/tcp/$addr/22" 2>/dev/null; then
      echo "ssh://$(id -un)@$addr"
      return 0
    fi
    sleep 0.25
  done
  echo "sshd not listening on $addr:22 after 10s; its log:" >&2
  tail -20 "$dir/sshd.log" >&2 || true
  return 1
}

case $cmd in
  up) up "${3:-}" "${4:-}" "${5:-}" || { down "${4:?DIR}"; exit 1; } ;;
  down) down "${3:-}" ;;
  *) echo "usage: netns-sshd.sh up N ENGINE_DIR DIR KEYS | down N DIR" >&2; exit 2 ;;
esac
