#!/usr/bin/env bash
# The share of loopback TCP_RR's CPU time spent in softirq (NET_RX run at local_bh_enable()),
# for `--softirq-pct`. Not part of the build or the tests:
#   bash scripts/measure/softirq_share.sh [CPU] [SECONDS] [RUNS]    (defaults: 1 4 3)
# Both ends run pinned to CPU, so that CPU's /proc/stat line holds the whole transaction:
# user + system + softirq. Without CONFIG_IRQ_TIME_ACCOUNTING the kernel samples the split
# at each tick (a statistical estimate, USER_HZ units); with it the split is exact.
set -euo pipefail
cpu=${1:-1} secs=${2:-4} runs=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
bin=$(mktemp -d)/tcp_rr
gcc -O2 -o "$bin" "$here/tcp_rr.c" -lpthread
for i in $(seq "$runs"); do
  read -r -a a < <(grep "^cpu$cpu " /proc/stat)
  "$bin" "$cpu" "$cpu" "$secs" $((23456 + i))
  read -r -a b < <(grep "^cpu$cpu " /proc/stat)
  # fields: cpuN user nice system idle iowait irq softirq steal
  user=$(( b[1] + b[2] - a[1] - a[2] )) sys=$(( b[3] - a[3] )) irq=$(( b[6] - a[6] ))
  soft=$(( b[7] - a[7] )) busy=$(( user + sys + irq + soft ))
  echo "run $i: user $user, system $sys, irq $irq, softirq $soft ticks: softirq $(( 100 * soft / busy ))% of busy"
done
