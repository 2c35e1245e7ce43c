//! A wake-up: record_wakee()/wake_wide(), select_task_rq_fair, accounting, the wakee's enqueue.

use super::*;
use crate::kernel::select::{record_wakee, wake_wide, NR_INF};
use crate::kernel::trace::{Rule, ScanEnd, Step};

impl Simulation {
    /// `waker` (running) wakes `wakee`.
    /// Returns the time the wake-up spent in select_task_rq_fair's scan, ns: the waker's CPU
    /// time (try_to_wake_up runs in the waker's context), which the caller charges to it.
    pub(super) fn wake(&mut self, waker: u32, wakee: u32, sync: bool) -> u64 {
        match self.tasks[wakee as usize].state {
            TaskState::Sleeping => {}
            _ => return 0, // already runnable: the message is picked up when it runs
        }
        let TaskState::Running(cpu) = self.tasks[waker as usize].state else {
            return 0;
        };
        self.wake_from(Some(waker), cpu, wakee, sync)
    }

    /// One wake-up decided on `waker_cpu`; returns the scan's cost to charge to that CPU, ns
    /// (0 unless scan_cost=waker; the caller charges it: see `wake` and `steal_cpu_time`).
    pub(super) fn wake_from(
        &mut self,
        waker: Option<u32>,
        waker_cpu: u32,
        wakee: u32,
        sync: bool,
    ) -> u64 {
        let features = &self.st.features;
        let jiffies = if features.sis_prop && features.sis_prop_aged {
            self.now * self.scenario.hz as u64 / 1_000_000_000
        } else {
            0
        };
        let mut wide = false;
        let mut waker_load = 0;
        if let Some(w) = waker {
            record_wakee(&mut self.tasks[w as usize].flips, wakee, self.now);
            wide = wake_wide(
                self.tasks[w as usize].flips.wakee_flips,
                self.tasks[wakee as usize].flips.wakee_flips,
                self.scenario.llc_weight,
            );
            waker_load = self.tasks[w as usize].pelt.util_avg as u64;
        }
        // Refresh the util the wake-up path reads for the waker's and candidates' CPUs lazily:
        // util only matters to wake_affine_weight here.
        self.update_cpu_pelt(waker_cpu);
        let prev = self.tasks[wakee as usize].prev;
        self.update_cpu_pelt(prev);
        let t = &mut self.tasks[wakee as usize];
        t.pelt.update(self.now, false);
        // SIS_CACHE v2 enqueue_task_fair (ENQUEUE_WAKEUP): a sleep shorter than
        // sysctl_sched_migration_cost goes into update_avg(&p->avg_hot_dur, ...), a longer one
        // halves it. (At the decision, not the enqueue a scan's delay later: nothing reads
        // avg_hot_dur until the task sleeps again.)
        if t.last_dequeue_ns != 0 && self.now > t.last_dequeue_ns {
            let slept = self.now - t.last_dequeue_ns;
            t.avg_hot_dur = if slept < crate::kernel::state::MIGRATION_COST_NS {
                crate::kernel::throttle::update_avg(t.avg_hot_dur, slept)
            } else {
                t.avg_hot_dur >> 1
            };
        }
        let aff = t.affinity as usize;
        let p = Wakee {
            prev,
            recent_used_cpu: t.recent_used_cpu,
            allowed: &self.masks[aff],
            load: t.pelt.util_avg as u64,
            wake_wide: wide,
            dur: TaskDuration {
                dur_avg: t.dur_avg,
                wakee_flips: t.flips.wakee_flips,
                last_wakee_is_peer: waker.is_some_and(|w| t.flips.last_wakee == w),
            },
        };
        // cpu_curr(this_cpu): the waker in task context, whatever runs there under a softirq.
        let curr = self.cpus[waker_cpu as usize]
            .curr
            .map_or(TaskDuration::default(), |c| TaskDuration {
                dur_avg: self.tasks[c as usize].dur_avg,
                wakee_flips: self.tasks[c as usize].flips.wakee_flips,
                last_wakee_is_peer: self.tasks[c as usize].flips.last_wakee == wakee,
            });
        let w = Waker {
            cpu: waker_cpu,
            sync,
            load: waker_load,
            now_ns: self.now,
            jiffies,
            curr,
            exiting: false,
        };
        // What a probe costs now: probe_cost_ns plus probe_contention_pct of it for each other
        // CPU of the waker's LLC still scanning (docs/scan-cost.md).
        // Without contention (the default) nothing needs the scans in flight: no heap work.
        let llc = self.cpus[waker_cpu as usize].llc as usize;
        let contention_pct = self.scenario.probe_contention_pct as u64;
        let base = self.scenario.probe_cost_ns;
        let probe_cost_ns = if contention_pct == 0 {
            base
        } else {
            let in_flight = &mut self.scans_in_flight[llc];
            while in_flight.peek().is_some_and(|e| e.0 <= self.now) {
                in_flight.pop();
            }
            base + base * contention_pct * in_flight.len() as u64 / 100
        };
        self.st.probe_cost_ns = probe_cost_ns;
        // The wake-up path only adds to its counters: while measuring, straight into the run's.
        let mut warmup_counters;
        let c = if self.measuring {
            &mut self.counters
        } else {
            warmup_counters = Counters::default();
            &mut warmup_counters
        };
        let out: Outcome = if self.recording || cfg!(feature = "recorded-only") {
            let mut d = std::mem::take(&mut self.scratch_decision);
            let out = decide_recorded(&mut self.st, &p, &w, c, &mut d);
            if self.recording {
                d.id.seq = self.decision_seq + 1;
                d.id.wakee = wakee;
                if self.decisions.len() >= DECISION_RING {
                    self.scratch_decision = self.decisions.pop_front().unwrap_or_default();
                }
                self.decisions.push_back(d);
            } else {
                self.scratch_decision = d; // recorded-only: decided on the recorded path, kept nowhere
            }
            out
        } else {
            self.st.select_task_rq_fair(&p, &w, c, &mut ())
        };
        self.woke = true;
        self.decision_seq += 1;
        let scan_ns = out.probes.saturating_sub(1) as u64 * probe_cost_ns;
        if scan_ns > 0 && contention_pct > 0 {
            self.scans_in_flight[llc].push(std::cmp::Reverse(self.now + scan_ns));
        }
        self.after_select(wakee, waker_cpu, prev, &out, scan_ns)
    }

    /// What try_to_wake_up does with select_task_rq_fair's choice `out`: the counters, the
    /// recent_used_cpu updates, the wakee's new prev and burst, and its enqueue on the chosen
    /// CPU once the scan's `scan_ns` are over (meanwhile `Waking`, with what a rescan needs).
    /// Returns the time to charge to the waker's CPU (scan_cost=waker), ns.
    #[inline]
    pub(super) fn after_select(
        &mut self,
        wakee: u32,
        waker_cpu: u32,
        prev: u32,
        out: &Outcome,
        scan_ns: u64,
    ) -> u64 {
        if self.measuring {
            let k = &mut self.counters;
            k.wakeups += 1;
            if out.cpu != prev {
                k.migrations += 1;
            }
            if let Some(ns) = out.select_idle_cpu_ns {
                k.scan_time_ns += ns;
                self.hist.record_ns(ns);
            }
            let pc = &mut self.per_cpu[out.cpu as usize];
            pc.placed += 1;
            if out.found_by_scan {
                pc.found_by_scan += 1;
            }
        }
        if let Some(cpu) = out.waker_recent_used_cpu {
            // `current` is whatever runs on the waking CPU (the waker, or what a softirq or
            // timer interrupted).
            if let Some(cur) = self.cpus[waker_cpu as usize].curr {
                self.tasks[cur as usize].recent_used_cpu = Some(cpu);
            }
        }
        // What try_to_wake_up pays after the choice: ttwu_queue's lock on a remote runqueue of
        // the waker's LLC, spun for on the waker's CPU once the scan is over.
        let lock_ns = self.ttwu_lock(waker_cpu, out.cpu, self.now + scan_ns);
        let t = &mut self.tasks[wakee as usize];
        t.recent_used_cpu = out.recent_used_cpu;
        t.woken_at = self.now;
        t.waker_cpu = waker_cpu;
        t.picked_idle = self.st.choose_idle_cpu(out.cpu);
        // A run on a CPU other than its last starts cache-cold, once (the machine's refill).
        let cold_ns = if t.prev != out.cpu {
            if self.cfs_runqueue {
                // v5.19 fair.c migrate_task_rq_fair (TASK_WAKING): `se->vruntime -=
                // cfs_rq->min_vruntime` of the runqueue it leaves.
                t.vruntime = t
                    .vruntime
                    .wrapping_sub(self.cpus[t.prev as usize].min_vruntime);
                t.vruntime_relative = true;
            }
            t.prev = out.cpu;
            self.machine.cold_start_ns
        } else {
            0
        };
        let b = self.burst_for(wakee);
        self.tasks[wakee as usize].remaining = b.max(1) + cold_ns;
        // The scan's cost delays the wakee (the waker spent it scanning); the chosen CPU stays
        // as it is until then, so a concurrent wake-up can find it idle too (ttwu_queue runs
        // after select_task_rq).
        let delay = scan_ns + lock_ns;
        // A core scan that found no idle core clears has_idle_cores when its loop ends: where
        // the timed walk ends it, else now.
        let core_miss = self.st.pending_idle_cores_clear.take();
        if delay == 0 {
            self.clear_idle_cores(core_miss);
            self.enqueue(wakee, out.cpu);
        } else {
            // collision=timed: the loop is walked again at its end (timed.rs). Else (rescan's
            // rule) a CPU the scan remembered and went on past is claimed as seen (no second
            // look in the kernel either); one found where the loop stopped is claimed at once,
            // so a taken one means the loop would have gone on (arrive).
            let walk = match (self.scenario.collision, self.st.scan_replay) {
                (Collision::Timed, Some(sr)) if !self.st.features.sis_node => {
                    out.select_idle_cpu_ns.filter(|&ns| ns > 0).map(|ns| {
                        timed::TimedWalk::new(
                            sr,
                            self.now + scan_ns,
                            ns,
                            self.st.probe_cost_ns,
                            !out.found_by_scan,
                            self.st.scan_timed,
                            core_miss.is_some(),
                        )
                    })
                }
                _ => None,
            };
            if walk.is_none() {
                self.clear_idle_cores(core_miss);
            }
            let t = &mut self.tasks[wakee as usize];
            t.state = TaskState::Waking(out.cpu);
            if walk.is_some()
                || (out.found_by_scan
                    && self.scenario.collision != Collision::Stack
                    && !self.st.scan_idle_cpu_remembered)
            {
                t.rescan = Some(Rescan {
                    nr_left: self.st.scan_nr_left,
                    seen_at: self.now + scan_ns,
                    target: out.target,
                    seq: if self.recording { self.decision_seq } else { 0 },
                    decided_seq: self.decision_seq,
                    counted_ns: out
                        .select_idle_cpu_ns
                        .filter(|_| self.measuring)
                        .unwrap_or(0),
                    waker_cpu,
                    timed: self.st.scan_timed,
                    walk,
                });
            }
            self.push(
                self.now + delay,
                Event::Enqueue {
                    task: wakee,
                    cpu: out.cpu,
                },
            );
        }
        // The waker's CPU pays for the scan only under scan_cost=waker (docs/scan-cost.md);
        // the lock is always its time.
        match self.scenario.scan_cost {
            ScanCost::Waker => {
                self.mark_scanning(waker_cpu, scan_ns);
                scan_ns + lock_ns
            }
            ScanCost::Delay => lock_ns,
        }
    }

    /// ttwu_queue taking `cpu`'s runqueue lock from `waker_cpu` at time `at` (v5.19
    /// kernel/sched/core.c ttwu_queue: rq_lock(rq) unless ttwu_queue_wakelist took the wake-up,
    /// which ttwu_queue_cond does for a CPU that does not share the waker's cache, and from 6.0
    /// for an idle one: TTWU_QUEUE_IDLE). The waker spins until the holder lets go, then for
    /// the line's transfer, and holds it as long. Returns that time, ns (0 for a local
    /// wake-up or one through the wakelist).
    #[inline]
    pub(super) fn ttwu_lock(&mut self, waker_cpu: u32, cpu: u32, at: u64) -> u64 {
        if cpu == waker_cpu {
            return 0;
        }
        if self.measuring {
            self.counters.remote_wakeups += 1;
        }
        let transfer = self.machine.lock_transfer_ns;
        if transfer == 0 || self.cpus[cpu as usize].llc != self.cpus[waker_cpu as usize].llc {
            return 0;
        }
        // v6.0 core.c ttwu_queue_cond: `if (!cpu_rq(cpu)->nr_running) return true;` (read at
        // the choice: what the scan saw).
        if self.st.features.ttwu_queue_idle && self.st.rqs[cpu as usize].nr_running == 0 {
            return 0;
        }
        let c = &mut self.cpus[cpu as usize];
        let got = c.lock_free_at.max(at) + transfer;
        c.lock_free_at = got + transfer;
        self.cpus[waker_cpu as usize].lock_wait_until = got;
        if self.measuring {
            self.counters.ttwu_lock_wait_ns += got - at;
        }
        got - at
    }
}

/// The rest of select_idle_cpu's loop after the taken CPU `cpu` (linux-5.15 fair.c:
/// `for_each_cpu_wrap(cpu, cpus, target + 1) { if (!--nr) return -1; ... }`), CPU by CPU:
/// (probes, the idle CPU found, `nr` left, the recorded steps). SIS_FILTER leaves the LLC's
/// overloaded CPUs out of `cpus` (the mask as it is now).
fn rescan_walk(
    st: &SchedState,
    span: &CpuMask,
    allowed: &CpuMask,
    cpu: u32,
    nr_left: i64,
    filtered: bool,
    recording: bool,
) -> (u64, Option<u32>, i64, Vec<Step>) {
    let (mut nr, mut probes, mut found, mut steps) = (nr_left, 0u64, None, Vec::new());
    span.for_each_wrap_and(allowed, cpu + 1, |c| {
        if c == cpu {
            return false; // wrapped round to the taken CPU: the whole span was seen
        }
        if filtered && st.overloaded_cpus.test(c) {
            return true;
        }
        if nr != NR_INF {
            nr -= 1; // no throttle never decrements (as walk_one)
        }
        if nr <= 0 {
            return false;
        }
        probes += 1;
        if recording {
            steps.push(Step {
                rule: Rule::SelectIdleCpu,
                cpu: c,
                saw: st.rqs[c as usize].saw(),
                nr: (nr != NR_INF).then_some(nr),
            });
        }
        if st.choose_idle_cpu(c) {
            found = Some(c);
            return false;
        }
        true
    });
    (probes, found, nr, steps)
}

/// `select_task_rq_fair` recorded into `d` (all but its `seq` and `wakee`), with the idle CPUs
/// it missed. Out of line: the untraced wake-up path stays small.
#[inline(never)]
fn decide_recorded(
    st: &mut SchedState,
    p: &Wakee,
    w: &Waker,
    c: &mut Counters,
    d: &mut Decision,
) -> Outcome {
    let out = st.decide_into(p, w, c, d);
    d.id.time_ns = w.now_ns;
    d.probe_cost_ns = st.probe_cost_ns;
    d.id.waker_cpu = w.cpu;
    d.id.sync = w.sync;
    d.id.prev = p.prev;
    st.record_outcome(p, &out, d);
    out
}

impl Simulation {
    /// A woken task reaches the CPU its wake-up's scan chose. The model decides at the scan's
    /// start; the kernel probes the CPU its loop stops at at the scan's end and claims it
    /// (ttwu_queue, after the runqueue's lock). If another wake-up took it before that probe,
    /// the kernel's loop would have gone on: linux-5.15 fair.c select_idle_cpu,
    /// `for_each_cpu_wrap(cpu, cpus, target + 1) { if (!--nr) return -1; ... }`, then
    /// select_idle_sibling's `return target`. Taken after it (while the waker waited for the
    /// lock), the wakee queues there, as it does on a CPU the scan remembered and went on past
    /// (no rescan was armed).
    pub(super) fn arrive(&mut self, task: u32, cpu: u32) {
        let t = &mut self.tasks[task as usize];
        if let Some((r, walk)) = t.rescan.and_then(|r| r.walk.map(|w| (r, w))) {
            t.rescan = None;
            return self.arrive_timed(task, r, walk);
        }
        let busy_since = self.cpus[cpu as usize].busy_since;
        let Some(r) = t
            .rescan
            .take()
            .filter(|r| !self.st.choose_idle_cpu(cpu) && busy_since <= r.seen_at)
        else {
            return self.enqueue(task, cpu);
        };
        let recording = r.seq != 0;
        let allowed = &self.masks[t.affinity as usize];
        let llc = self.cpus[cpu as usize].llc;
        let span = self.st.topo.llc_span(llc);
        let st = &self.st;
        let filtered = st.features.sis_filter && st.llcs[llc as usize].nr_overloaded_cpus > 1;
        // Only presets without the single-pass loop rescan by default (timed.rs walks the
        // others), so the walk is CPU by CPU, without the idle mask's word-at-a-time path.
        let (probes, found, nr, steps) =
            rescan_walk(st, span, allowed, cpu, r.nr_left, filtered, recording);
        let cost = probes * self.st.probe_cost_ns;
        let out_of_budget = found.is_none() && nr <= 0;
        if self.measuring && r.decided_seq > self.counted_after_seq {
            // The 2020 schedstat patch on the two-pass select_idle_cpu (4.13-5.11) counts
            // sis_scanned before `if (!--nr) return -1`: the exhausting iteration counts, as
            // in walk_one.
            let exhausting = u64::from(out_of_budget && !self.st.features.single_pass);
            self.counters.sis_scanned += probes + exhausting;
            self.counters.scan_time_ns += cost;
            if found.is_none() {
                self.counters.sis_failed += 1;
            }
            // One select_idle_cpu call, longer by the rescan (@usecs).
            if r.counted_ns > 0 {
                self.hist.move_ns(r.counted_ns, r.counted_ns + cost);
            }
        }
        // A loop that runs out of budget returns -1 before the timing (`if (!--nr) return
        // -1`); the first part's sample stays as it was taken.
        if r.timed && cost > 0 && !out_of_budget {
            // The kernel times the whole loop into one sample (linux-5.15 fair.c
            // select_idle_cpu: wake_avg_idle -= time; update_avg(&avg_scan_cost, time)):
            // the rescan adds its time, and its eighth to the average the first part updated.
            let rq = &mut self.st.rqs[r.waker_cpu as usize];
            if self.st.features.sis_prop_aged {
                rq.wake_avg_idle -= rq.wake_avg_idle.min(cost);
            }
            rq.avg_scan_cost += cost / 8;
        }
        if self.scenario.scan_cost == ScanCost::Waker && cost > 0 {
            // The rescan is the rest of the waker CPU's select_idle_cpu loop: that CPU's time,
            // taken from whatever runs there now (try_to_wake_up runs in the waker's context).
            self.mark_scanning(r.waker_cpu, cost);
            self.steal_cpu_time(r.waker_cpu, cost);
        }
        let dest = found.unwrap_or(r.target);
        self.tasks[task as usize].picked_idle = found.is_some();
        if recording {
            let found_by = found.map(|_| Rule::SelectIdleCpu);
            self.record_rescan(r.seq, steps, found_by, dest, nr);
        }
        if cost == 0 {
            return self.enqueue(task, dest);
        }
        let t = &mut self.tasks[task as usize];
        t.state = TaskState::Waking(dest);
        // That CPU may be taken too: a second rescan goes on from it, adding to the same call.
        t.rescan = found.map(|_| Rescan {
            nr_left: nr,
            seen_at: self.now + cost,
            counted_ns: if r.counted_ns > 0 {
                r.counted_ns + cost
            } else {
                0
            },
            ..r
        });
        self.push(self.now + cost, Event::Enqueue { task, cpu: dest });
    }
}

impl Simulation {
    /// `set_idle_cores(llc, false)` at the end of a core scan that found no idle core.
    pub(super) fn clear_idle_cores(&mut self, llc: Option<u32>) {
        if let Some(l) = llc {
            self.st.llcs[l as usize].has_idle_cores = false;
        }
    }

    /// `cpu` spends the next `ns` scanning (after any scan it is still in): the CPU view's
    /// `scanning` band.
    pub(super) fn mark_scanning(&mut self, cpu: u32, ns: u64) {
        let c = &mut self.cpus[cpu as usize];
        c.scan_until = c.scan_until.max(self.now) + ns;
    }

    /// The recorded decision `seq`, if the ring still holds it.
    pub(super) fn recorded(&mut self, seq: u64) -> Option<&mut Decision> {
        let front = self.decisions.front()?.id.seq;
        let d = self.decisions.get_mut(seq.checked_sub(front)? as usize)?;
        debug_assert_eq!(d.id.seq, seq);
        Some(d)
    }

    /// Adds a rescan to its wake-up's recorded decision, if the ring still holds it: the
    /// probes after the taken CPU, where the wakee went, and how the scan ended (`found_by`:
    /// the rule that found the CPU, None: the scan found none).
    pub(super) fn record_rescan(
        &mut self,
        seq: u64,
        steps: Vec<Step>,
        found_by: Option<Rule>,
        dest: u32,
        nr: i64,
    ) {
        let Some(d) = self.recorded(seq) else {
            return;
        };
        d.steps.extend(steps);
        d.result = dest;
        let nr = (nr != NR_INF).then_some(nr);
        d.nr_after = nr.or(d.nr_after);
        (d.decided_by, d.scan_end) = match found_by {
            Some(rule) => (Some(rule), Some(ScanEnd::Found)),
            None if nr.is_some_and(|n| n <= 0) => (Some(Rule::Fallback), Some(ScanEnd::Budget)),
            None => (Some(Rule::Fallback), Some(ScanEnd::Exhausted)),
        };
    }
}
