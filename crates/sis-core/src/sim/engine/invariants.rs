//! The engine's invariants, checked by tests.

use super::*;

impl Simulation {
    /// Checks the engine's invariants; Err describes the first violation (for tests).
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut seen = vec![0u32; self.tasks.len()];
        for (cpu, c) in self.cpus.iter().enumerate() {
            let mut n = 0;
            if let Some(t) = c.curr {
                seen[t as usize] += 1;
                n += 1;
                if self.tasks[t as usize].state != TaskState::Running(cpu as u32) {
                    return Err(format!(
                        "task {t} is curr on cpu {cpu} but {:?}",
                        self.tasks[t as usize].state
                    ));
                }
            }
            for t in c.queue.iter(&self.tasks) {
                seen[t as usize] += 1;
                n += 1;
                if self.tasks[t as usize].state != TaskState::Queued(cpu as u32) {
                    return Err(format!(
                        "task {t} queued on cpu {cpu} but {:?}",
                        self.tasks[t as usize].state
                    ));
                }
                if !self.masks[self.tasks[t as usize].affinity as usize].test(cpu as u32) {
                    return Err(format!("task {t} on cpu {cpu} outside its affinity"));
                }
            }
            // util_est_enqueue/dequeue keep the runqueue's sum exactly the sum of its tasks'
            // _task_util_est() (a task's estimate only changes while it is off the runqueue).
            let est = if self.st.features.util_est {
                c.curr
                    .into_iter()
                    .chain(c.queue.iter(&self.tasks))
                    .map(|t| self.tasks[t as usize].pelt.util_est.task_util_est())
                    .sum()
            } else {
                0
            };
            if est != self.st.rqs[cpu].pelt.util_est.enqueued {
                return Err(format!(
                    "cpu {cpu}: util_est.enqueued {} but its tasks' sum {est}",
                    self.st.rqs[cpu].pelt.util_est.enqueued
                ));
            }
            if n != self.st.rqs[cpu].nr_running {
                return Err(format!(
                    "cpu {cpu}: nr_running {} but {n} tasks",
                    self.st.rqs[cpu].nr_running
                ));
            }
            if self.st.rqs[cpu].util_avg() > 1024 {
                return Err(format!(
                    "cpu {cpu}: util_avg {}",
                    self.st.rqs[cpu].util_avg()
                ));
            }
        }
        for (cpu, c) in self.cpus.iter().enumerate() {
            if self.waiting.test(cpu as u32) != (c.curr.is_some() && !c.queue.is_empty()) {
                return Err(format!("cpu {cpu}: waiting mask out of date"));
            }
        }
        for (t, task) in self.tasks.iter().enumerate() {
            let want = u32::from(!matches!(
                task.state,
                TaskState::Sleeping | TaskState::Waking(_)
            ));
            if seen[t] != want {
                return Err(format!(
                    "task {t} ({:?}) found {} times on runqueues",
                    task.state, seen[t]
                ));
            }
        }
        for l in 0..self.llc_load.len() {
            let idle = self
                .st
                .topo
                .llc_span(l as u32)
                .iter()
                .filter(|c| self.st.rqs[*c as usize].nr_running == 0)
                .count() as u32;
            if let Some(m) = &self.st.idle_cpus {
                if let Some(c) = (0..self.cpus.len() as u32)
                    .find(|c| m.test(*c) != self.st.rqs[*c as usize].available_idle())
                {
                    return Err(format!("cpu {c}: idle mask out of date"));
                }
            }
            if idle != self.llc_load[l].idle {
                return Err(format!(
                    "llc {l}: idle count {} but {idle} idle",
                    self.llc_load[l].idle
                ));
            }
            let waiting: u32 = self
                .st
                .topo
                .llc_span(l as u32)
                .iter()
                .map(|c| self.cpus[c as usize].queue.len)
                .sum();
            if waiting != self.llc_load[l].waiting {
                return Err(format!(
                    "llc {l}: waiting {} but {waiting} queued",
                    self.llc_load[l].waiting
                ));
            }
        }
        // A netperf/tbench pair is one message going back and forth: it is always somewhere
        // (a task awake, its first start or a reply on the wire, or a reply waiting in the client's socket).
        for (i, t) in self.tasks.iter().enumerate() {
            if let Role::Client { server } = t.role {
                let s = &self.tasks[server as usize];
                if t.state == TaskState::Sleeping
                    && s.state == TaskState::Sleeping
                    && !t.wake_pending
                    && t.pending_msgs == 0
                {
                    return Err(format!(
                        "netperf pair (client {i}, server {server}) lost its message: both \
                         sleep with nothing on the way"
                    ));
                }
            }
        }
        let c = &self.counters;
        if c.sis_failed > c.sis_domain_search
            || c.sis_domain_search > c.sis_search
            || c.sis_search > c.sis_scanned
        {
            return Err(format!("counters inconsistent: {c:?}"));
        }
        self.check_overloaded_mask()
    }

    /// SIS_FILTER's mask holds exactly the CPUs whose rq->overloaded is set, each LLC's count
    /// is its part's weight, and an idle CPU is never in it (idle entry clears it).
    fn check_overloaded_mask(&self) -> Result<(), String> {
        for (cpu, rq) in self.st.rqs.iter().enumerate() {
            let cpu = cpu as u32;
            if self.st.overloaded_cpus.test(cpu) != rq.overloaded {
                return Err(format!(
                    "cpu {cpu}: overloaded mask and rq->overloaded differ"
                ));
            }
            if rq.overloaded && rq.nr_running == 0 && rq.idle_stamp != 0 {
                return Err(format!("cpu {cpu} is idle but in the overloaded mask"));
            }
        }
        for llc in 0..self.st.topo.spec.llcs {
            let n = self
                .st
                .topo
                .llc_span(llc)
                .iter()
                .filter(|c| self.st.overloaded_cpus.test(*c))
                .count();
            if n as u32 != self.st.llcs[llc as usize].nr_overloaded_cpus {
                return Err(format!(
                    "llc {llc}: nr_overloaded_cpus is not its mask's weight"
                ));
            }
        }
        Ok(())
    }
}
