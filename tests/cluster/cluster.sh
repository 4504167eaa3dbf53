#!/usr/bin/env bash
# cluster.sh: a cluster of N "nodes" on one machine, for mpirun tests.
#
#   cluster.sh up [N] [--rate RATE]   create nodes node0..node(N-1) (default 2)
#   cluster.sh down                   remove them
#   cluster.sh shape --rate RATE|off  limit (tc tbf) or unlimit the links
#   cluster.sh exec NODE cmd...       run cmd on NODE
#   cluster.sh status
#   rsh NODE cmd...                   (this script called through a link named
#                                      rsh) the remote shell agent for mpirun:
#                                      runs "cmd..." on NODE in a clean
#                                      environment, as ssh would
#
# Every node is a network namespace (its own interface gc0 with address
# 10.87.0.(i+1)/24) plus a UTS namespace (its own hostname). Commands run
# in a private mount namespace in which /etc/hosts names the nodes, /sys is
# the node's own sysfs (so MPI and hwloc see the node's interfaces only)
# and /proc/sys/kernel/random/boot_id differs per node (UCX and gpumap tell
# hosts apart by it). IPv6 is off on the links: OpenMPI's TCP components
# otherwise try link-local addresses that do not route between namespaces.
# This kernel has tbf but no netem: links can be rate-limited, not delayed.
# Must run as root.
set -euo pipefail
P=${GPUMAP_CLUSTER:-gpm}
NET=10.87.0
IF=gc0
S=/run/gpumap-cluster/$P

die() { echo "cluster: $*" >&2; exit 1; }
nodes() { cat "$S/nodes" 2>/dev/null || echo 0; }
is_up() { [[ -f $S/nodes ]] && ip netns list | grep -qw "^$P-node0"; }

node_of() { # node0 | 10.87.0.1 | user@node0 -> node0
  local h=${1#*@} i
  [[ $h =~ ^node([0-9]+)$ ]] && ((BASH_REMATCH[1] < $(nodes))) && { echo "$h"; return; }
  for ((i = 0; i < $(nodes); i++)); do [[ $h == "$NET.$((i + 1))" ]] && { echo "node$i"; return; }; done
  die "unknown node '$1'"
}

shape() { # RATE|"" for every node
  local i
  for ((i = 0; i < $(nodes); i++)); do
    ip netns exec "$P-node$i" tc qdisc del dev "$IF" root 2>/dev/null || true
    if [[ -n $1 ]]; then
      ip netns exec "$P-node$i" tc qdisc add dev "$IF" root tbf rate "$1" burst 64kb latency 100ms
    fi
  done
}

down() {
  local ns pids f
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$P-(node[0-9]+|sw)$" || true); do
    pids=$(ip netns pids "$ns" || true)
    if [[ -n $pids ]]; then
      kill -TERM $pids 2>/dev/null || true
      sleep 0.3
      pids=$(ip netns pids "$ns" || true)
      [[ -z $pids ]] || kill -KILL $pids 2>/dev/null || true
    fi
    ip netns del "$ns" || true
  done
  for f in "$S"/uts/*; do [[ -e $f ]] && { umount "$f" 2>/dev/null || true; }; done
  rm -rf "$S"
}

up() {
  local n=2 rate="" i
  while (($#)); do
    case $1 in
      --rate) rate=$2; shift 2 ;;
      [0-9]*) n=$1; shift ;;
      *) die "up: unknown argument $1" ;;
    esac
  done
  ((n >= 1 && n <= 64)) || die "node count $n out of range"
  down
  mkdir -p "$S/uts"
  echo "127.0.0.1 localhost" >"$S/hosts"
  for ((i = 0; i < n; i++)); do
    ip netns add "$P-node$i"
    ip -n "$P-node$i" link set lo up
    touch "$S/uts/node$i"
    unshare --uts="$S/uts/node$i" hostname "node$i"
    echo "$NET.$((i + 1)) node$i" >>"$S/hosts"
    cat /proc/sys/kernel/random/uuid >"$S/boot_id.node$i"
  done
  if ((n == 2)); then
    ip -n "$P-node0" link add "$IF" type veth peer name "$IF" netns "$P-node1"
  elif ((n == 1)); then
    ip -n "$P-node0" link add "$IF" type veth peer name "${IF}p"
    ip -n "$P-node0" link set "${IF}p" up
  else
    ip netns add "$P-sw"
    ip -n "$P-sw" link add br0 type bridge
    ip -n "$P-sw" link set br0 up
    for ((i = 0; i < n; i++)); do
      ip -n "$P-sw" link add "p$i" type veth peer name "$IF" netns "$P-node$i"
      ip -n "$P-sw" link set "p$i" master br0 up
    done
  fi
  for ((i = 0; i < n; i++)); do
    ip netns exec "$P-node$i" sysctl -qw "net.ipv6.conf.$IF.disable_ipv6=1"
    ip -n "$P-node$i" addr add "$NET.$((i + 1))/24" dev "$IF"
    ip -n "$P-node$i" link set "$IF" up
  done
  for ((i = 0; i < n; i++)); do # carrier first: MPI ignores links that are still down
    for _ in $(seq 50); do
      [[ $(ip netns exec "$P-node$i" cat "/sys/class/net/$IF/operstate") == up ]] && break
      sleep 0.1
    done
  done
  echo "$n" >"$S/nodes"
  shape "$rate"
  echo "cluster $P: $n nodes up"
}

run_on() { # NODE cmd...
  local node; node=$(node_of "$1"); shift
  exec nsenter --net="/run/netns/$P-$node" --uts="$S/uts/$node" -- \
    unshare --mount --propagation private -- /bin/sh -c '
      mount --bind "$0/hosts" /etc/hosts &&
      mount -t sysfs sysfs /sys &&
      mount --bind "$0/boot_id.$1" /proc/sys/kernel/random/boot_id &&
      shift && exec "$@"' "$S" "$node" "$@"
}

agent() { # ssh-like: options, host, command words joined by spaces
  while [[ ${1:-} == -* ]]; do
    case $1 in
      -n) exec </dev/null ;;
      -l | -p | -o | -i) shift ;;
    esac
    shift
  done
  (($# >= 2)) || die "usage: rsh NODE cmd..."
  local h=$1; shift
  # Like ssh, start from a clean environment (catches a missing mpirun -x).
  run_on "$h" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME="${HOME:-/root}" LANG=C.UTF-8 GPUMAP_CLUSTER="$P" /bin/sh -c "$*"
}

status() {
  is_up || { echo "cluster $P: down"; return 0; }
  local i
  for ((i = 0; i < $(nodes); i++)); do
    echo "node$i $NET.$((i + 1)) $(ip netns exec "$P-node$i" tc qdisc show dev "$IF" | head -1)"
  done
}

[[ $(id -u) == 0 ]] || die "must run as root (network namespaces)"
[[ $(basename "$0") == rsh ]] && { agent "$@"; exit; }
cmd=${1:-help}
shift || true
case $cmd in
  up) up "$@" ;;
  down) down; echo "cluster $P: down" ;;
  status) status ;;
  exec) (($# >= 2)) || die "usage: exec NODE cmd..."; run_on "$@" ;;
  shape)
    is_up || die "cluster is not up"
    case ${1:-} in
      off) shape "" ;;
      --rate) shape "$2" ;;
      *) die "usage: shape --rate RATE|off" ;;
    esac
    status ;;
  *) sed -n '2,14p' "$0"; [[ $cmd == help ]] || exit 2 ;;
esac
