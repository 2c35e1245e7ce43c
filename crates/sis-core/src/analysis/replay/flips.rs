//! The wake-up flips wake_wide() reads (record_wakee()'s task_struct fields), rebuilt from
//! the wake-ups the trace shows and, where the trace has init.sh's `sis_flips` probes
//! (session 40), read from the kernel: at each sched_switch for the task switched in (a
//! task's flips change only in its own record_wakee(), while it runs, so they stand as read
//! until it wakes another task) and at select_task_rq_fair() for the wakee. A reading
//! replaces what the rebuild kept, so the flips a task gathered before the trace began are
//! the kernel's own and not a guess.

use std::collections::{HashMap, HashSet};

use super::parse::FlipsRead;
use super::rebuild::Rebuild;
use crate::kernel::select::{record_wakee, wake_wide, WakeeFlips};

/// `last_wakee` when the kernel's pointer names no task the trace has shown yet: it equals
/// no pid (PID_MAX_LIMIT is 2^22), so the next wake-up by that task counts a flip, which
/// the wakee's own reading then takes back if the pointer was the wakee's.
const UNNAMED: u32 = u32::MAX;

#[derive(Clone, Debug, Default)]
pub(crate) struct FlipsTrack {
    /// Each CPU's idle task's record_wakee() state (`current` for an idle CPU's interrupt).
    pub idle: Vec<WakeeFlips>,
    /// task_struct address to pid, as the probes name them.
    names: HashMap<u64, u32>,
    /// Per waker (`waker_key`): its last_wakee's address while it names no task yet.
    unnamed: HashMap<u32, u64>,
    /// Per CPU: the `sis_wflips` reading of the wakee, until the `sis_select` of the same
    /// call (the later-registered kprobe at one address fires first) says it is a wake-up's.
    wakee_read: Vec<Option<FlipsRead>>,
    /// The tasks (`waker_key`) whose flips a probe has read.
    read: HashSet<u32>,
    /// The latest (jiffies, ns) a probe or a timer expiry showed.
    jiffies_at: Option<(u64, u64)>,
}

impl FlipsTrack {
    pub fn new(nr_cpus: usize) -> Self {
        FlipsTrack {
            idle: vec![WakeeFlips::default(); nr_cpus],
            wakee_read: vec![None; nr_cpus],
            ..Default::default()
        }
    }
}

/// The key of a waker's state: its pid, or for `cpu`'s idle task one above every pid.
fn waker_key(pid: u32, cpu: u32) -> u32 {
    if pid == 0 {
        UNNAMED - 1 - cpu
    } else {
        pid
    }
}

/// What the waking's record_wakee() and wake_wide() gave (replay/rebuild.rs `waking`).
pub(super) struct WakerFlips {
    /// The waker's flips after record_wakee() (None: no task ran on the waker's CPU).
    pub flips: Option<WakeeFlips>,
    pub wake_wide: bool,
    /// The waker's last_wakee address that no task was named by when this wake-up counted a
    /// flip for it.
    pub unnamed_last: Option<u64>,
}

impl Rebuild {
    /// record_wakee() on the waker (`current`; an interrupt on an idle CPU has that CPU's
    /// idle task), when the wake-up calls it, then wake_wide() (4.4..6.x: factor =
    /// sd_llc_size).
    pub(super) fn waker_flips(
        &mut self,
        cpu: u32,
        waker_pid: Option<u32>,
        wakee: u32,
        records_wakee: bool,
    ) -> WakerFlips {
        let now = self.now;
        let mut unnamed_last = None;
        let flips = waker_pid.map(|w| {
            // (Most traces name every address: the map is empty, no lookup per wake-up.)
            if records_wakee && !self.flips.unnamed.is_empty() {
                unnamed_last = self.flips.unnamed.remove(&waker_key(w, cpu));
            }
            let f = match w {
                0 => &mut self.flips.idle[cpu as usize],
                w => &mut self.task(w).flips,
            };
            if records_wakee {
                record_wakee(f, wakee, now);
            }
            *f
        });
        let wake_wide = flips.is_some_and(|f| {
            let wakee_flips = self.task(wakee).flips.wakee_flips;
            wake_wide(f.wakee_flips, wakee_flips, self.topo.llc_weight())
        });
        WakerFlips {
            flips,
            wake_wide,
            unnamed_last,
        }
    }

    /// A `sis_flips` (a task switched in on `cpu`) or `sis_wflips` (a selection's wakee) probe.
    pub(super) fn flips_reading(&mut self, cpu: u32, r: FlipsRead) {
        let Some(pid) = r.pid else {
            self.flips.wakee_read[cpu as usize] = Some(r);
            return;
        };
        if pid != 0 {
            self.flips.names.insert(r.task, pid);
        }
        let key = waker_key(pid, cpu);
        self.flips.read.insert(key);
        let kept = match pid {
            0 => self.flips.idle[cpu as usize],
            pid => self.task(pid).flips,
        };
        let read = self.flips_as_read(&r, key, kept.wakee_flip_decay_ts);
        let f = match pid {
            0 => &mut self.flips.idle[cpu as usize],
            pid => &mut self.task(pid).flips,
        };
        let same = f.wakee_flips == read.wakee_flips;
        *f = read;
        self.counts.flips_switch_read += 1;
        self.counts.flips_switch_same += u64::from(same);
    }

    /// A `sis_select` with WF_TTWU on `cpu` for the pending wake-up `seq`: the wakee's flips
    /// as its `sis_wflips` read them replace the rebuild's, and wake_wide() is read again.
    pub(super) fn wakee_flips_read(&mut self, cpu: u32, seq: u64) {
        let Some(r) = self.flips.wakee_read[cpu as usize].take() else {
            return;
        };
        let Some(p) = self.pending_mut(seq) else {
            return;
        };
        let (wakee, waker, unnamed_last) = (p.wakee, p.waker_pid, p.waker_unnamed_last);
        let mut master = p.waker_flips;
        self.flips.names.insert(r.task, wakee);
        let kept_ts = self.task(wakee).flips.wakee_flip_decay_ts;
        let read = self.flips_as_read(&r, wakee, kept_ts);
        let t = self.task(wakee);
        let same = t.flips.wakee_flips == read.wakee_flips;
        t.flips = read;
        self.counts.flips_wakee_read += 1;
        self.counts.flips_wakee_same += u64::from(same);
        self.flips.read.insert(wakee);
        let waker_read = waker.is_some_and(|w| self.flips.read.contains(&waker_key(w, cpu)));
        // The waker's last_wakee was this wakee, not yet named when its waking counted a
        // flip: record_wakee() saw `current->last_wakee == p` and counted none.
        if let (Some(w), Some(m)) = (waker, master.as_mut()) {
            if unnamed_last == Some(r.task) {
                let f = match w {
                    0 => &mut self.flips.idle[cpu as usize],
                    w => &mut self.task(w).flips,
                };
                f.wakee_flips = f.wakee_flips.saturating_sub(1);
                *m = f.wakee_flips;
                self.counts.flips_named_late += 1;
            }
        }
        let llc = self.topo.llc_weight();
        let n = self.topo.nr_cpus();
        let recent = r
            .recent_used_cpu
            .and_then(|c| u32::try_from(c).ok())
            .filter(|c| *c < n);
        let Some(p) = self.pending_mut(seq) else {
            return;
        };
        p.recent_read = recent;
        p.wakee_dur.wakee_flips = read.wakee_flips;
        p.wakee_dur.last_wakee_is_peer = waker.is_some_and(|w| w != 0 && read.last_wakee == w);
        p.flips_read = waker_read;
        let Some(m) = master else {
            return;
        };
        let wide = wake_wide(m, read.wakee_flips, llc);
        let turned = wide != p.wake_wide;
        (p.wake_wide, p.waker_flips) = (wide, Some(m));
        if p.waker_pid != Some(0) {
            p.waker_dur.wakee_flips = m;
        }
        self.counts.flips_wide_changed += u64::from(turned);
    }

    /// A `sis_select` that is not a wake-up's (fork or exec balancing, or no waking watched):
    /// its `sis_wflips` reading is not a wakee's.
    pub(super) fn flips_not_read(&mut self, cpu: u32) {
        self.flips.wakee_read[cpu as usize] = None;
    }

    /// A timer expiry's jiffies (`timer_expire_entry` `now=`), now.
    pub(super) fn jiffies_reading(&mut self, jiffies: u64) {
        self.flips.jiffies_at = Some((jiffies, self.now));
    }

    /// A reading as the rebuild keeps flips: the decay stamp in ns (jiffies before the
    /// reading's, at the traced kernel's HZ; where the probe could not read jiffies, the
    /// latest timer expiry's and the ticks since), last_wakee as a pid where a probe has
    /// named that address (else UNNAMED, its address kept under `key`). Without jiffies the
    /// rebuild's decay stamp stays.
    fn flips_as_read(&mut self, r: &FlipsRead, key: u32, kept_ts: u64) -> WakeeFlips {
        let now = self.now;
        let tick_ns = 1_000_000_000 / self.hz.max(1);
        if let Some(j) = r.jiffies {
            self.flips.jiffies_at = Some((j, now));
        }
        let jiffies = self
            .flips
            .jiffies_at
            .map(|(j, at)| j + now.saturating_sub(at) / tick_ns);
        let ago = jiffies.map(|j| j.wrapping_sub(r.decay_jiffies));
        let last_wakee = match r.last_wakee {
            0 => 0,
            addr => match self.flips.names.get(&addr) {
                Some(&pid) => pid,
                None => {
                    self.flips.unnamed.insert(key, addr);
                    UNNAMED
                }
            },
        };
        if last_wakee != UNNAMED {
            self.flips.unnamed.remove(&key);
        }
        WakeeFlips {
            wakee_flips: r.wakee_flips,
            wakee_flip_decay_ts: ago
                .map_or(kept_ts, |a| now.saturating_sub(a.saturating_mul(tick_ns))),
            last_wakee,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::replay::{Replay, ReplayReport};

    /// On two CPUs (one LLC: wake_wide()'s factor is 2) a wakes b, with `a_read` the
    /// `sis_flips` reading of a as it is switched in and `b_read` the `sis_wflips` reading of
    /// b at a's select_task_rq_fair() (jiffies 10,000, HZ 1000).
    fn replay(a_read: &str, b_read: &str) -> (Replay, ReplayReport) {
        replay_after(
            "",
            &format!("{a_read} jif=10000"),
            &format!("{b_read} jif=10000"),
        )
    }

    /// As `replay`, with the trace's lines `before` first and the readings as given.
    fn replay_after(before: &str, a_read: &str, b_read: &str) -> (Replay, ReplayReport) {
        let trace = format!(
            "\
# entries-in-buffer/entries-written: 8/8   #P:2
{before}          <idle>-0     [000] 10.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=100 next_prio=120
          <idle>-0     [000] 10.000000: sis_flips: (__probestub_sched_switch+0x4/0x10) task=0xa00 pid=100 {a_read}
          <idle>-0     [001] 10.000001: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=x next_pid=7 next_prio=120
               a-100   [000] 10.000010: sched_waking: comm=b pid=200 prio=120 target_cpu=001
               a-100   [000] 10.000011: sis_wflips: (select_task_rq_fair+0x4/0x17d0) task=0xb00 {b_read}
               a-100   [000] 10.000012: sis_select: (select_task_rq_fair+0x4/0x17d0) prev_cpu=1 wake_flags=0x8
               a-100   [000] 10.000013: sched_wakeup: comm=b pid=200 prio=120 target_cpu=001
"
        );
        crate::analysis::replay::ttwu_tests::replay_of(&trace, "linux-6.0")
    }

    /// (the waker's flips, wake_wide()) as the wake-up read them.
    fn read_by_wakeup(r: &Replay) -> (u32, bool) {
        let w = &r.records()[0];
        (w.waker_dur.wakee_flips, w.wake_wide)
    }

    #[test]
    fn the_kernels_flips_replace_the_rebuilds_and_turn_wake_wide() {
        // Rebuilt alone, a has 1 flip and b none: not wide. Read, a had 9 (10 with b) and b
        // 3: slave 3 >= 2 and master 10 >= 3 * 2.
        let (r, report) = replay("flips=9 decay=9800 last=0x0", "flips=3 decay=9800 last=0x0");
        assert_eq!(read_by_wakeup(&r), (10, true));
        let c = &report.notes.counts;
        assert_eq!((c.flips_switch_read, c.flips_switch_same), (1, 0));
        assert_eq!((c.flips_wakee_read, c.flips_wakee_same), (1, 0));
        assert_eq!(c.flips_wide_changed, 1);
        let (r, _) = replay("flips=9 decay=9800 last=0x0", "flips=6 decay=9800 last=0x0");
        assert_eq!(
            read_by_wakeup(&r),
            (10, false),
            "master 10 < slave 6 * 2: not wide"
        );
    }

    #[test]
    fn an_idle_cpus_idle_task_is_read_at_its_switch_and_wakes_with_its_flips() {
        // CPU 1 goes idle (its idle task read with 9 flips); an interrupt there wakes b (3
        // flips): the idle task is `current`, 10 flips after this one, so wake_wide().
        let trace = |idle_read: &str| {
            format!(
                "\
# entries-in-buffer/entries-written: 8/8   #P:2
          <idle>-0     [000] 10.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=100 next_prio=120
          <idle>-0     [001] 10.000001: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=x next_pid=7 next_prio=120
               x-7     [001] 10.000005: sched_switch: prev_comm=x prev_pid=7 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
{idle_read}          <idle>-0     [001] 10.000010: sched_waking: comm=b pid=200 prio=120 target_cpu=000
          <idle>-0     [001] 10.000011: sis_wflips: (select_task_rq_fair+0x4/0x17d0) task=0xb00 flips=3 decay=9990 last=0x0 jif=10000
          <idle>-0     [001] 10.000012: sis_select: (select_task_rq_fair+0x4/0x17d0) prev_cpu=0 wake_flags=0x8
          <idle>-0     [001] 10.000013: sched_wakeup: comm=b pid=200 prio=120 target_cpu=000
"
            )
        };
        let read = "          <idle>-0     [001] 10.000005: sis_flips: (__probestub_sched_switch+0x4/0x10) task=0x1100 pid=0 flips=9 decay=9990 last=0xc00 jif=10000\n";
        let replayed = |t: String| crate::analysis::replay::ttwu_tests::replay_of(&t, "linux-6.0");
        let (r, report) = replayed(trace(read));
        assert!(r.records()[0].wake_wide);
        assert_eq!(report.notes.counts.flips_switch_read, 1);
        // Without the idle task's reading it has 1 flip: 3 >= 2 but 1 < 3 * 2.
        let (r, _) = replayed(trace(""));
        assert!(!r.records()[0].wake_wide);
    }

    #[test]
    fn a_read_decay_stamp_over_a_second_old_halves_the_flips_at_the_next_wakeup() {
        // jiffies 10,000 at HZ 1000: a stamp of 8,999 is 1.001 s old, 9,001 0.999 s.
        let (r, _) = replay("flips=8 decay=8999 last=0x0", "flips=0 decay=0 last=0x0");
        assert_eq!(read_by_wakeup(&r).0, 8 / 2 + 1);
        let (r, _) = replay("flips=8 decay=9001 last=0x0", "flips=0 decay=0 last=0x0");
        assert_eq!(read_by_wakeup(&r).0, 8 + 1);
    }

    #[test]
    fn without_jiffies_in_the_probe_a_timer_expirys_give_them() {
        // Debian's arm64 probe reads no jiffies_64: a timer expiry 2 ms before a's reading
        // shows jiffies 9,998, so at 10.000000 s jiffies are 10,000 as above.
        let timer = "          <idle>-0     [001] 9.998000: timer_expire_entry: timer=00000000d4c3b2a1 function=process_timeout now=9998 baseclk=9998\n";
        let a = "flips=8 decay=8999 last=0x0";
        let (r, _) = replay_after(timer, a, "flips=0 decay=0 last=0x0");
        assert_eq!(read_by_wakeup(&r).0, 8 / 2 + 1);
        let (r, _) = replay_after(
            timer,
            "flips=8 decay=9001 last=0x0",
            "flips=0 decay=0 last=0x0",
        );
        assert_eq!(read_by_wakeup(&r).0, 8 + 1);
        // With no jiffies at all the read decay stamp cannot be placed: the rebuild's stays
        // (a first seen at 10.000000 s: no decay a second later than that).
        let (r, _) = replay_after("", a, "flips=0 decay=0 last=0x0");
        assert_eq!(read_by_wakeup(&r).0, 8 + 1);
    }

    #[test]
    fn a_last_wakee_named_only_by_the_wakees_reading_is_no_flip() {
        // a's last_wakee is at 0xb00, which no probe had named when a woke b: the waking
        // counts a flip, and b's reading (task=0xb00) takes it back.
        let (r, report) = replay("flips=5 decay=9900 last=0xb00", "flips=0 decay=0 last=0x0");
        assert_eq!(read_by_wakeup(&r).0, 5);
        assert_eq!(report.notes.counts.flips_named_late, 1);
        let (r, report) = replay("flips=5 decay=9900 last=0xc00", "flips=0 decay=0 last=0x0");
        assert_eq!(read_by_wakeup(&r).0, 6, "another task's address: a flip");
        assert_eq!(report.notes.counts.flips_named_late, 0);
    }
}
