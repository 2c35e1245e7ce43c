#!/usr/bin/env python3
"""Where a preset's misses part from the kernel's own select path, on a trace recorded with
init.sh's `sis_select=1 sis_idle=1` (a kprobe on select_task_rq_fair(), a kprobe and a
kretprobe on available_idle_cpu()). Each kretprobe names its call site; SITES maps the
offsets of Debian's 6.12.107 and 6.1.170 amd64 builds (the two -idle-flags traces) to the
check they are, read from the order the asks come in (wake_affine_idle()'s this_cpu and prev,
select_idle_sibling()'s target, prev and recent_used_cpu, select_idle_cpu()'s loop: the one
that repeats). Given `sis replay --show N` of one preset on the same trace, each
disagreement is put in one class: the wake_affine target differs; the kernel found prev,
recent_used_cpu or the target idle; its loop found an idle CPU; its loop ran out (its
nr_idle_scan was the CPUs it asked about); it ran no loop (nr_idle_scan 0). Not part of the
build or the tests:

  python3 scripts/measure/miss_sites.py TRACE.ftrace.txt SHOW.txt
"""
import collections
import re
import sys

EVENT = re.compile(r"\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (\w+): (.*)")
SITES = {
    # Debian 6.12.107 amd64 (qemu-x86-16cpu-6.12-idle-flags)
    "0x7c4": "wa_this", "0x807": "wa_prev", "0x16a0": "wa_prev", "0x34a": "target",
    "0x15a5": "prev", "0x12bf": "recent", "0x68b": "loop",
    # Debian 6.1.170 amd64 (qemu-x86-16cpu-6.1-idle-flags)
    "0xce5": "wa_this", "0xd25": "wa_prev", "0x623": "target", "0x1449": "prev",
    "0x1330": "recent", "0x8f2": "loop",
    # Debian 5.10.223 amd64 (qemu-x86-8cpu-5.10-pipelines-sync; sd_flag=0x8 marks a wake-up)
    "0xc53": "wa_this", "0x364": "target", "0xe9d": "prev", "0xdcd": "recent", "0x9ff": "loop",
}


def kernel_paths(path):
    """Per sched_waking line: the (check, cpu, idle) its WF_TTWU select asked, in order."""
    waking, cur, out = {}, {}, {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            m = EVENT.match(line)
            if not m:
                continue
            cpu, kind, rest = int(m[3]), m[5], m[6]
            if kind == "sched_waking":
                waking[cpu] = n
            elif kind == "sis_select":
                flags = re.search(r"sd_flag=(0x[0-9a-f]+)", rest) or re.search(r"wake_flags=(0x[0-9a-f]+)", rest)
                ttwu = int(flags[1], 16) & 8
                cur[cpu] = out.setdefault(waking.pop(cpu), []) if ttwu and cpu in waking else None
            elif kind == "sis_idle" and cur.get(cpu) is not None:
                cur[cpu].append([None, int(re.search(r"cpu=(-?\d+)", rest)[1]), None])
            elif kind == "sis_idle_ret" and cur.get(cpu):
                site = re.search(r"\+(0x[0-9a-f]+)/", rest)[1]
                cur[cpu][-1][0] = SITES.get(site, site)
                cur[cpu][-1][2] = int(re.search(r"ret=(-?\d+)", rest)[1]) != 0
    return out


def classify(calls, preset_target):
    target = next((c[1] for c in calls if c[0] == "target"), None)
    if target is None:
        return "no probes"
    if target != preset_target:
        return "the wake_affine target differs"
    found = [c[0] for c in calls if c[0] in ("target", "prev", "recent") and c[2]]
    if found:
        return f"the kernel found its {found[0]} idle"
    loop = [c for c in calls if c[0] == "loop"]
    if not loop:
        return "the kernel ran no loop (nr_idle_scan 0)"
    return "the kernel's loop found an idle CPU" if loop[-1][2] else "the kernel's loop ran out"


def main(trace, show):
    paths = kernel_paths(trace)
    classes = collections.Counter()
    for block in open(show).read().split("\nline ")[1:]:
        m = re.match(r"(\d+) t=", block)
        t = re.search(r"target=(\d+)", block)
        if not m or not t:
            continue
        classes[classify(paths.get(int(m[1]), []), int(t[1]))] += 1
    for name, n in classes.most_common():
        print(f"{n:5d}  {name}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
