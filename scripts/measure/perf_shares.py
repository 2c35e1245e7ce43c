#!/usr/bin/env python3
"""Shares of CPU cycles and cache-line latencies from a `perf report` or `perf c2c report`
text, for comparing the model with a profile of a real machine (docs/machines.md, xeon-spr's
core-to-core row; the guide's "Where the model differs", "The seed machine's own profile").

    git --git-dir=REPO show HEAD:results/sis/netperf_perf_no_sis_current.log \
        | python3 scripts/measure/perf_shares.py report
    git --git-dir=REPO show HEAD:results/sis/netperf_perf_c2c_no_sis_current.log \
        | python3 scripts/measure/perf_shares.py c2c

REPO is a clone of github.com/yu-chen-surf/schedtests (results/sis/, commit 89166ec,
Chen Yu, 2023-05-08: netperf on a Xeon Platinum 8480+ with 112 CPUs online, Linux
6.3.0-rc7 with SIS_CURRENT v8 applied; `no_sis_current` is the feature off, that is
6.3's own path with SIS_UTIL).

`report` prints children% and self% of the symbols the wake-up path is made of and the
cycles counted; `c2c` prints, per contended cache line and code address and then per line,
the median local HITM latency in cycles over the per-process rows.
"""
import re
import statistics
import sys

REPORT_SYMBOLS = [
    "do_idle", "flush_smp_call_function_queue", "sched_ttwu_pending", "intel_idle",
    "net_rx_action", "try_to_wake_up", "select_task_rq_fair", "available_idle_cpu",
    "ttwu_queue_wakelist", "update_cfs_group", "update_load_avg", "__schedule",
    "__send", "recv",
]


def report(lines):
    for line in lines:
        if line.startswith("# Event count") or line.startswith("# os release"):
            print(line.strip())
    seen = set()
    for line in lines:
        m = re.match(r"\s+([\d.]+)%\s+([\d.]+)%\s+\S+\s+\[[.k]\]\s+(\S+)", line)
        if m and m.group(3) in REPORT_SYMBOLS and m.group(3) not in seen:
            seen.add(m.group(3))
            print(f"{m.group(3):32} children {m.group(1):>6}%  self {m.group(2):>6}%")


def c2c(lines):
    line_addr, rows = None, {}
    for line in lines:
        head = re.match(r"\s+\d+(\s+\d+){5}\s+(0x[0-9a-f]+)$", line)
        if head:
            line_addr = head.group(2)
            continue
        f = line.split()
        if line_addr and len(f) > 18 and f[0].endswith("%") and "[k]" in f:
            sym = f[f.index("[k]") + 1]
            offset, pid, lcl_hitm = f[5], f[8], int(f[11])
            if pid != "0" and lcl_hitm > 0:
                rows.setdefault((line_addr, offset, sym), []).append(lcl_hitm)
    per_line = {}
    for (addr, offset, sym), hitm in rows.items():
        per_line.setdefault(addr, []).extend(hitm)
        print(f"{addr}+{offset} {sym:24} local HITM cycles: median {statistics.median(hitm):.0f}"
              f" over {len(hitm)} processes (min {min(hitm)}, max {max(hitm)})")
    for addr, hitm in per_line.items():
        print(f"{addr} (every access) local HITM cycles: median {statistics.median(hitm):.1f}"
              f" over {len(hitm)} rows")


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode not in ("report", "c2c"):
        sys.exit("usage: perf_shares.py report|c2c < perf-report.txt")
    text = sys.stdin.read().split("\n")
    report(text) if mode == "report" else c2c(text)
