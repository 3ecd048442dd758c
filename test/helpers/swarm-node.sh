#!/bin/bash
# One Swarm node's dockerd, run by swarm-cluster.ts inside `ip netns exec <ns> unshare --uts`.
# `ip netns exec` mounts a fresh /sys that hides the host's cgroup mounts, without which dockerd
# cannot start containers: re-create them from PID 1's view, then become dockerd.
set -eu
hostname "$1"; shift
grep ' /sys/fs/cgroup' /proc/1/mounts | while read -r source target type options _; do
  mkdir -p "$target"; mount -t "$type" -o "$options" "$source" "$target"
done
exec dockerd "$@"
