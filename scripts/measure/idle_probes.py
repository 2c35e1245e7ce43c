#!/usr/bin/env python3
"""What the kernel's own select path looked at, against a preset's misses.

A trace recorded with init.sh's `sis_idle=1` has a kprobe and a kretprobe on
available_idle_cpu() (select_idle_sibling() and select_idle_cpu() are inlined into
select_task_rq_fair() in Debian's 6.1 and 6.12; available_idle_cpu() is not): between a
waking's sched_waking and the next waking on that CPU, the CPUs the kernel asked about and
what it was told. Given `sis replay --show N` of one preset on the same trace, this sorts
the misses where the preset's scan found an idle CPU X and the kernel kept a busy prev or
target: did the kernel ask about X at all (its scan stopped before X, or did not run), or ask
and see it busy (the rebuild's idle view is wrong there)? Not part of the build or the tests:

  python3 scripts/measure/idle_probes.py TRACE.ftrace.txt SHOW.txt
"""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from miss_sites import kernel_paths  # noqa: E402

MISS = re.compile(
    r"line (\d+) t=\d+ns: waker cpu (\d+) \(pid \d+\) wakes pid \d+, prev (\d+), "
    r"kernel chose cpu (\d+)"
)


def kernel_calls(trace_path):
    """Per sched_waking line (1-based): [(cpu asked about, idle?)] by its WF_TTWU select."""
    return {n: [(cpu, idle) for _, cpu, idle in asks]
            for n, asks in kernel_paths(trace_path).items()}


def misses(show_path):
    out, cur = [], None
    with open(show_path) as f:
        for line in f:
            m = MISS.match(line)
            if m:
                cur = {"line": int(m[1]), "prev": int(m[3]), "kernel": int(m[4])}
                out.append(cur)
                continue
            m = re.match(r"      => cpu (\d+) by (\S+)", line)
            if m and cur is not None:
                cur["model"], cur["by"] = int(m[1]), m[2]
            m = re.match(r"    line \d+ .* target=(\d+)", line)
            if m and cur is not None:
                cur["target"] = int(m[1])
    return out


def main():
    calls = kernel_calls(sys.argv[1])
    counts = collections.Counter()
    for x in misses(sys.argv[2]):
        if x.get("by") != "select_idle_cpu" or x["kernel"] not in (x["prev"], x.get("target")):
            continue
        asked = [idle for cpu, idle in calls.get(x["line"], []) if cpu == x["model"]]
        if not asked:
            counts["the kernel never asked about it"] += 1
        elif any(asked):
            counts["the kernel asked and was told idle"] += 1
        else:
            counts["the kernel asked and was told busy"] += 1
    total = sum(counts.values())
    print(f"misses where the preset's scan found an idle CPU and the kernel kept a busy "
          f"prev or target: {total}")
    for k, v in counts.most_common():
        print(f"  {v:5d}  {k}")


if __name__ == "__main__":
    main()
