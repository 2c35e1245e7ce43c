//! One paired wake-up run through every preset's select_task_rq_fair and compared with the
//! kernel's choice.

use super::*;

impl Replay {
    pub(super) fn evaluate(&mut self, p: &Pending) {
        if p.unpaired {
            return;
        }
        let Some(kernel) = p.chosen else { return };
        let Some(rb) = self.rb.as_mut() else { return };
        self.counts.wakeups += 1;
        if p.incomplete {
            self.counts.incomplete += 1;
            return;
        }
        if p.on_rq {
            self.on_rq += 1;
            return;
        }
        let sync = p.sync == Some(true);
        let allowed = match p.pinned {
            Some(c) => &self.masks[c as usize],
            None => &self.full,
        };
        let prev_idle = p.cpus[p.prev as usize].nr_running == 0;
        let some_idle = allowed
            .iter()
            .any(|c| c != p.prev && p.cpus[c as usize].nr_running == 0);
        let class = if prev_idle {
            1
        } else if some_idle {
            2
        } else {
            3
        };
        let moved = kernel != p.prev;
        self.class_wakeups[0] += 1;
        self.class_wakeups[class] += 1;
        if moved {
            self.class_wakeups[4] += 1;
        }
        let recording = self.disagreements.len() < self.cfg.show;
        let mut disagreeing: Vec<(String, Decision)> = Vec::new();
        let (wakee_recent, waker_recent): (Box<[u32]>, Option<u32>) = {
            let r = rb
                .tasks
                .get(&p.wakee)
                .map(|t| t.recent.clone())
                .unwrap_or_else(|| vec![u32::MAX; self.runs.len()].into_boxed_slice());
            (r, p.waker_pid.filter(|w| *w != 0))
        };
        let jiffies = p.time_ns * REPLAY_HZ / 1_000_000_000;
        let mut new_recent = vec![u32::MAX; self.runs.len()];
        let mut new_waker_recent = vec![None; self.runs.len()];
        for (i, run) in self.runs.iter_mut().enumerate() {
            let st = &mut run.st;
            for (rq, s) in st.rqs.iter_mut().zip(&p.cpus) {
                rq.nr_running = s.nr_running;
                rq.nr_sched_idle = 0;
                rq.pelt.util_avg = s.util_avg;
                rq.avg_idle = s.avg_idle;
                rq.wake_avg_idle = s.wake_avg_idle;
                rq.wake_stamp = s.wake_stamp;
            }
            for (llc, seq) in p.idle_core_seq.iter().enumerate() {
                if *seq > run.seen_idle_core[llc] {
                    run.seen_idle_core[llc] = *seq;
                    st.llcs[llc].has_idle_cores = true;
                }
            }
            if p.balance_seq > run.seen_balance {
                run.seen_balance = p.balance_seq;
                for llc in 0..st.topo.spec.llcs {
                    st.update_llc_scan_hint(llc);
                }
            }
            let recent = Some(wakee_recent[i]).filter(|c| *c != u32::MAX);
            let wakee = Wakee {
                prev: p.prev,
                recent_used_cpu: recent,
                allowed,
                load: p.wakee_load as u64,
                wake_wide: p.wake_wide,
            };
            let waker = Waker {
                cpu: p.waker_cpu,
                sync,
                load: p.waker_load as u64,
                now_ns: p.time_ns,
                jiffies,
            };
            let out = if recording {
                let d = &mut self.decision;
                d.reset();
                let llc = st.topo.llc_of(p.prev) as usize;
                d.has_idle_core = st.llcs[llc].has_idle_cores;
                d.nr_idle_scan = st.llcs[llc].nr_idle_scan;
                let out = st.select_task_rq_fair(&wakee, &waker, &mut run.counters, d);
                if out.cpu != kernel {
                    d.seq = p.seq + 1;
                    d.time_ns = p.time_ns;
                    d.waker_cpu = p.waker_cpu;
                    d.wakee = p.wakee;
                    d.sync = sync;
                    d.prev = p.prev;
                    d.target = out.target;
                    d.recent_used_cpu = recent;
                    d.result = out.cpu;
                    d.decided_by = Some(out.rule);
                    let mut missed = std::mem::take(&mut d.missed_idle);
                    // select_task_rq_fair changes no CPU's state: this is what it saw.
                    st.missed_idle(&wakee, out.target, d, &mut missed);
                    d.missed_idle = missed;
                    disagreeing.push((run.preset.name.to_string(), d.clone()));
                }
                out
            } else {
                st.select_task_rq_fair(&wakee, &waker, &mut run.counters, &mut ())
            };
            if out.cpu == kernel {
                run.agree[0] += 1;
                run.agree[class] += 1;
                if moved {
                    run.agree[4] += 1;
                }
            }
            new_recent[i] = out.recent_used_cpu.unwrap_or(u32::MAX);
            new_waker_recent[i] = out.waker_recent_used_cpu;
        }
        if let Some(t) = rb.tasks.get_mut(&p.wakee) {
            t.recent.copy_from_slice(&new_recent);
        }
        if let Some(w) = waker_recent {
            if let Some(t) = rb.tasks.get_mut(&w) {
                for (slot, v) in t.recent.iter_mut().zip(&new_waker_recent) {
                    if let Some(c) = v {
                        *slot = *c;
                    }
                }
            }
        }
        if !disagreeing.is_empty() {
            self.disagreements.push(Disagreement {
                line: p.line,
                time_ns: p.time_ns,
                waker_cpu: p.waker_cpu,
                waker_pid: p.waker_pid,
                wakee: p.wakee,
                prev: p.prev,
                kernel,
                sync_inferred: sync,
                class: CLASSES[class],
                nr_running: p.cpus.iter().map(|c| c.nr_running).collect(),
                util_avg: p.cpus.iter().map(|c| c.util_avg).collect(),
                decisions: disagreeing,
            });
        }
    }
}
