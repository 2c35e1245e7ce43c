//! What each workload role does when its burst ends, and the bursts it runs when woken.

use super::*;

impl Simulation {
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn stint_end(&mut self, cpu: u32) {
        let Some(task) = self.cpus[cpu as usize].curr else {
            return;
        };
        let ran = self.now - self.cpus[cpu as usize].stint_start;
        let t = &mut self.tasks[task as usize];
        t.remaining = t.remaining.saturating_sub(ran);
        if t.remaining > 0 {
            // Slice expired with others waiting: round-robin.
            self.preempt(cpu, task);
            return;
        }
        self.burst_done(cpu, task);
    }

    /// The running task's burst is over: act per role, then block or continue.
    pub(super) fn burst_done(&mut self, cpu: u32, task: u32) {
        let tm = self.timing;
        let role = self.tasks[task as usize].role;
        // What happens next: Some(burst) = keep running; None = block (maybe with a timer).
        let mut next_burst = None;
        let mut timer = None;
        // Time spent scanning in the wake-ups this burst end makes: this CPU's, before it
        // blocks or runs on (try_to_wake_up runs in the waker's context).
        let mut scan_ns = 0;
        let in_tail = std::mem::take(&mut self.tasks[task as usize].in_tail);
        match role {
            _ if in_tail => return self.tail_done(cpu, task),
            // netperf/tbench burst ends normally come as their own events (stint_end_event).
            Role::Client { .. } => return self.client_request(cpu, task),
            Role::Server { .. } => return self.server_reply(cpu, task),
            Role::Sender {
                first_receiver,
                receivers,
            } => {
                for r in first_receiver..first_receiver + receivers {
                    self.tasks[r as usize].pending_msgs += 1;
                    scan_ns += self.wake(task, r, true);
                }
                timer = Some(self.rng.exp_ns(tm.think_ns));
            }
            Role::Receiver => {
                if self.tasks[task as usize].pending_msgs > 0 {
                    next_burst = Some(self.receiver_read(task) * tm.msg_ns);
                }
            }
            Role::Messenger { .. } => {
                let t = &mut self.tasks[task as usize];
                t.spin_until = 0;
                if std::mem::take(&mut t.msg_spin_next) {
                    // usleep(sleeptime + rand_r() % (sleeptime / 4)) after the spin.
                    let jitter = self.rng.below((tm.period_ns / 4_000).max(1)) * 1_000;
                    timer = Some(tm.period_ns + jitter);
                } else {
                    // The loop's head: FUTEX_BLOCKED, xlist_wake_all() (fpost(): a futex wake,
                    // not sync), then fwait() for a worker's post.
                    t.futex_posted = false;
                    let mut list = std::mem::take(&mut self.msg_lists[task as usize]);
                    for &w in list.iter().rev() {
                        scan_ns += self.wake(task, w, false);
                    }
                    list.clear();
                    self.msg_lists[task as usize] = list;
                    self.tasks[task as usize].in_fwait = true;
                }
            }
            Role::Worker { messenger } => {
                // msg_and_wait(): xlist_add(), fpost() the message thread, fwait().
                self.tasks[task as usize].spin_until = 0;
                self.msg_lists[messenger as usize].push(task);
                let m = &mut self.tasks[messenger as usize];
                if !m.futex_posted {
                    m.futex_posted = true;
                    // A futex wake only if it sleeps in fwait() (wake() skips one not asleep).
                    if m.in_fwait {
                        scan_ns += self.wake(task, messenger, false);
                    }
                }
            }
            Role::Uniform => timer = Some(self.rng.exp_ns(tm.uniform_sleep_ns)),
            Role::Hog => next_burst = Some(u64::MAX / 4),
            Role::Waker => timer = Some(self.rng.exp_ns(tm.waker_sleep_ns)),
        }
        match next_burst {
            Some(b) => self.run_on(cpu, task, b + scan_ns),
            None if scan_ns > 0 => {
                // The scans first, then block (arming the timer then).
                let t = &mut self.tasks[task as usize];
                t.in_tail = true;
                t.tail_timer = timer;
                self.run_on(cpu, task, scan_ns);
            }
            None => self.block(cpu, task, timer),
        }
    }

    /// The end of a tail (a syscall's rest, or the scans a wake-up cost its waker): block, arming
    /// the timer saved for then, unless a reply arrived meanwhile (a netperf/tbench client whose
    /// recv finds it queued keeps running its next burst: no sleep, no wake-up).
    pub(super) fn tail_done(&mut self, cpu: u32, task: u32) {
        let t = &mut self.tasks[task as usize];
        t.in_tail = false;
        let timer = t.tail_timer.take();
        if t.pending_msgs > 0 && matches!(t.role, Role::Client { .. } | Role::Server { .. }) {
            t.pending_msgs -= 1;
            let b = self.burst_for(task);
            self.run_on(cpu, task, b);
            return;
        }
        if t.in_fwait && t.futex_posted {
            // A schbench message thread posted while it still paid for its wake-ups' scans:
            // fwait() finds FUTEX_RUNNING and does not sleep.
            let b = self.burst_for(task);
            self.tasks[task as usize].start_wall_spin(self.now);
            self.run_on(cpu, task, b);
            return;
        }
        self.block(cpu, task, timer);
    }

    /// The StintEnd event of `task`'s stint on `cpu`: a burst-ending one by role when the stint
    /// runs the whole burst (`remaining`), else the generic one (a slice: preemption).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn stint_end_event(&self, cpu: u32, gen: u32, task: u32, stint: u64) -> Event {
        let t = &self.tasks[task as usize];
        if stint < t.remaining {
            return Event::StintEnd { cpu, gen };
        }
        match t.role {
            _ if t.in_tail => Event::TailEnd { cpu, gen },
            Role::Client { .. } => Event::ClientRequestEnd { cpu, gen },
            Role::Server { .. } => Event::ServerReplyEnd { cpu, gen },
            _ => Event::StintEnd { cpu, gen },
        }
    }

    /// A burst-ending stint's end: the CPU's running task with its burst run (None if stale),
    /// as `stint_end` leaves it before `burst_done`.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn burst_end(&mut self, cpu: u32, gen: u32) -> Option<u32> {
        let c = &self.cpus[cpu as usize];
        if c.gen != gen {
            return None;
        }
        let task = c.curr?;
        let ran = self.now - c.stint_start;
        let t = &mut self.tasks[task as usize];
        t.remaining = t.remaining.saturating_sub(ran);
        debug_assert_eq!(t.remaining, 0, "a burst-ending stint ran its whole burst");
        Some(task)
    }

    /// burst_done for a netperf/tbench client (not in its tail): the request is a sync wake-up
    /// from the still-running client, which then finishes its send and blocks in recv.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn client_request(&mut self, cpu: u32, task: u32) {
        let Role::Client { server } = self.tasks[task as usize].role else {
            unreachable!("ClientRequestEnd of a task that is not a client")
        };
        self.send_sync(cpu, task, server);
    }

    /// `task` on `cpu` sends to `peer` over loopback: the protocol and the softirq run on the
    /// sender's CPU, `sock_def_readable` wakes the peer with WF_SYNC, and the sender blocks in
    /// recv after its syscall tail (if any). The wake-up's scan and lock are its CPU time.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn send_sync(&mut self, cpu: u32, task: u32, peer: u32) {
        if self.tasks[peer as usize].state != TaskState::Sleeping {
            // The peer has not blocked in recv yet (it is still in its own send's tail): the
            // message waits in its socket and recv finds it (tail_done).
            self.tasks[peer as usize].pending_msgs += 1;
        }
        // The softirq, then the wake-up's scan inside it, is IRQ time: the sender's and its
        // CPU's PELT stand still through it (`SchedAvg::freeze`), frozen up to now before the
        // wake-up reads them.
        let softirq = self.timing.softirq_pct != 0;
        if softirq {
            let irq = self.softirq_ns(cpu, task);
            self.freeze_pelt(cpu, task, self.now - irq, self.now);
        }
        let scan_ns = self.wake(task, peer, true);
        if softirq && scan_ns != 0 {
            self.freeze_pelt(cpu, task, self.now, self.now + scan_ns);
        }
        let tail = match self.timing.tail_ns {
            0 => 0,
            ns => self.rng.around(ns),
        };
        if scan_ns + tail == 0 {
            self.block(cpu, task, None);
            return;
        }
        self.tasks[task as usize].in_tail = true;
        self.run_on(cpu, task, scan_ns + tail);
    }

    fn freeze_pelt(&mut self, cpu: u32, task: u32, from: u64, until: u64) {
        self.tasks[task as usize].pelt.freeze(from, until, true);
        self.st.rqs[cpu as usize].pelt.freeze(from, until, true);
    }

    /// How much of the send's run just ended was its softirq: the role's mean run times
    /// `softirq_pct`, at most the stint that ran it.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn softirq_ns(&self, cpu: u32, task: u32) -> u64 {
        let ran = self.now - self.cpus[cpu as usize].stint_start;
        let mean = self.tasks[task as usize].jittered_burst_ns;
        (mean * self.timing.softirq_pct as u64 / 100).min(ran)
    }

    /// burst_done for a netperf/tbench server (not in a tail): on loopback (wire_us 0) the
    /// reply is a sync wake-up as the request is; over a NIC it crosses the wire (both ends
    /// blocked meanwhile) and wakes the client from the softirq of the CPU the server ran on.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn server_reply(&mut self, cpu: u32, task: u32) {
        let Role::Server { client } = self.tasks[task as usize].role else {
            unreachable!("ServerReplyEnd of a task that is not a server")
        };
        self.count_messages(1); // one transaction: the reply is sent
        if self.timing.wire_ns == 0 {
            return self.send_sync(cpu, task, client);
        }
        let d = self.rng.around(self.timing.wire_ns);
        self.tasks[client as usize].wake_pending = true;
        self.push(
            self.now + d.max(1),
            Event::Net {
                wakee: client,
                waker: task,
                cpu,
            },
        );
        self.block(cpu, task, None);
    }

    /// `n` units of the benchmark's work done ([`crate::kernel::stats::Counters::messages`]).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn count_messages(&mut self, n: u64) {
        if self.measuring {
            self.counters.messages += n;
        }
    }

    /// A hackbench receiver reads every message queued for it: how many.
    fn receiver_read(&mut self, task: u32) -> u64 {
        let read = u64::from(std::mem::take(&mut self.tasks[task as usize].pending_msgs));
        self.count_messages(read);
        read
    }

    /// The burst a task runs when woken.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn burst_for(&mut self, task: u32) -> u64 {
        // Jittered roles (netperf's client and server...) without matching on the role: the
        // role alternates unpredictably from one wake-up to the next.
        let mean = self.tasks[task as usize].jittered_burst_ns;
        if mean != 0 {
            return self.rng.around(mean);
        }
        self.burst_for_role(task)
    }

    pub(super) fn burst_for_role(&mut self, task: u32) -> u64 {
        let tm = self.timing;
        let jitter = |rng: &mut Rng, ns: u64| rng.around(ns);
        match self.tasks[task as usize].role {
            Role::Client { .. } => jitter(&mut self.rng, tm.client_ns),
            Role::Server { .. } => jitter(&mut self.rng, tm.server_ns),
            Role::Sender { receivers, .. } => receivers as u64 * tm.msg_ns / 2,
            Role::Receiver => self.receiver_read(task).max(1) * tm.msg_ns,
            Role::Messenger { .. } => {
                let t = &mut self.tasks[task as usize];
                if std::mem::take(&mut t.in_fwait) {
                    // Posted: fwait() takes the post, then usec_spin(message_cputime).
                    t.futex_posted = false;
                    t.msg_spin_next = true;
                    t.spin_ns = tm.message_ns;
                    tm.message_ns.max(1)
                } else {
                    5_000 // after usleep(): the loop's head, xlist_wake_all()
                }
            }
            Role::Worker { .. } => {
                self.tasks[task as usize].spin_ns = tm.worker_ns;
                tm.worker_ns.max(1)
            }
            Role::Uniform => self.rng.exp_ns(tm.uniform_run_ns).max(1_000),
            Role::Hog => u64::MAX / 4,
            Role::Waker => jitter(&mut self.rng, tm.waker_run_ns),
        }
    }

    /// A timer wake-up: the waker is whatever runs on the task's prev CPU (not sync).
    pub(super) fn timer(&mut self, task: u32) {
        self.tasks[task as usize].wake_pending = false;
        if self.tasks[task as usize].state != TaskState::Sleeping {
            return;
        }
        let prev = self.tasks[task as usize].prev;
        if self.tasks[task as usize].role == Role::Hog {
            // Hogs start on their CPU: no wake-up decision.
            let b = self.burst_for(task);
            self.tasks[task as usize].remaining = b;
            self.enqueue(task, prev);
            return;
        }
        // The timer interrupt runs on prev: its scan is that CPU's time.
        let scan_ns = self.wake_from(None, prev, task, false);
        self.steal_cpu_time(prev, scan_ns);
    }
}
