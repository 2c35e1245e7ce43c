#!/usr/bin/env python3
"""Regenerates docs/replay.md's one table ("The table") from `sis replay --format json`, and
the ceiling table under it from `sis replay`'s notes.

For every trace of tests/replay_corpus_cases.rs's CORPUS (its topology and own preset read from
there), every preset is replayed once; the rows are the wake-ups per class, the own preset,
the best preset where it is another, and keep_prev. The trace's name and "kernel, machine"
cells are kept from the table as it stands; the sample's rows (many-threads, replayed with
--autogroup) are kept as they are. Not part of the build or the tests (the test
docs_replays_one_table_has_every_trace_with_its_pinned_counts checks the result):

  cargo build --release -p sis-cli && python3 scripts/measure/replay_table.py
"""
import json
import re
import subprocess

CORPUS = "crates/sis-core/tests/replay_corpus_cases.rs"
DOC = "docs/replay.md"
CLASSES = ["all", "prev_idle", "prev_busy_some_idle", "none_idle", "kernel_moved", "rt"]
BASELINES = ("keep_prev", "waker_cpu")


def cases():
    src = open(CORPUS).read()
    for blk in re.findall(r'file: "[^"]+",.*?keep_prev_agrees: \d+,', src, re.S):
        g = lambda k: re.search(k + r': "?([^",]+)"?,', blk)[1]
        yield g("file"), g("llc_weight"), g("llcs"), g("smt"), g("own")


def cell(classes, name, cls):
    n = classes[cls]["wakeups"]
    if n == 0:
        return "-"
    a = classes[cls]["agree"][name]
    return f"{a * 100 / n:.1f} ({a})"


def rows(file, w, llcs, smt, own):
    cmd = ["target/release/sis", "replay", "--trace", f"crates/sis-core/testdata/traces/{file}",
           "--llc-weight", w, "--llcs", llcs, "--smt", smt, "--hz", "250", "--format", "json"]
    c = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)["classes"]
    agree = c["all"]["agree"]
    presets = [p for p in agree if p not in BASELINES]
    best = max(presets, key=lambda p: (agree[p], p == own))
    line = lambda label, name: "| | | " + label + " | " + " | ".join(cell(c, name, k) for k in CLASSES) + " |"
    out = ["| | | wake-ups | " + " | ".join(f"{c[k]['wakeups']:,}" for k in CLASSES) + " |"]
    if agree[best] == agree[own]:
        out.append(line(f"**`{own}` (own, the best)**", own))
    else:
        out.append(line(f"**`{own}` (own)**", own))
        out.append(line(f"`{best}` (the best)", best))
    out.append(line("*keep_prev*", "keep_prev"))
    return out


def ceiling_row(name, file, w, llcs, smt, own):
    """The ceiling table's row: misses, and how many the flips, WF_SYNC and the scan's budget
    (whole LLC / floor) the other way explain, and the ceiling they put on `own`."""
    cmd = ["target/release/sis", "replay", "--trace", f"crates/sis-core/testdata/traces/{file}",
           "--llc-weight", w, "--llcs", llcs, "--smt", smt, "--hz", "250", "--presets", own]
    text = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    note = lambda start: next((l.rsplit(": " + own + " ", 1)[1] for l in text.split("\n")
                               if l.startswith(start)), None)
    row = next(l for l in text.split("\n") if l.startswith(own + " "))
    misses = int(re.search(r"\((\d+)\)", row)[1])
    allw = int(next(l for l in text.split("\n") if l.split()[:1] == ["wake-ups"]).split()[1])
    flips = note("disagreements the wake-up flips")
    sync = note("disagreements the sync inference")
    budget = note("disagreements the scan's budget")
    most = note("the most each preset")
    return (f"| `{name}` | `{own}` | {allw - misses:,} | {flips or 0} | "
            f"{sync.split()[0] if sync else '(read)'} | "
            f"{' / '.join(f'{int(n):,}' for n in (budget or '0 / 0').split(' / '))} | "
            f"{most.split()[0] if most else f'{100 * misses / allw:.1f}%'} |")


def main():
    doc = open(DOC).read().split("\n")
    for file, w, llcs, smt, own in cases():
        name = file.removesuffix(".ftrace.txt.xz")
        i = next((i for i, l in enumerate(doc) if l.startswith(f"| `{name}` | `{own}` |")), None)
        if i is not None:
            doc[i] = ceiling_row(name, file, w, llcs, smt, own)
    for file, w, llcs, smt, own in cases():
        name = file.removesuffix(".ftrace.txt.xz")
        start = next(i for i, l in enumerate(doc) if l.startswith(f"| `{name}` |"))
        end = start + 1
        while end < len(doc) and doc[end].startswith("| | |"):
            end += 1
        new = rows(file, w, llcs, smt, own)
        head = doc[start].split(" | ")[:2]
        new[0] = " | ".join(head) + new[0][3:]
        doc[start:end] = new
    open(DOC, "w").write("\n".join(doc))


main()
