//! One line of a scheduler trace, as text: the kernel's `trace` file and `trace-cmd report`
//! (`comm-pid [cpu] [flags] secs.frac: event: fields`) and `perf script` output of `sched:`
//! tracepoints (`comm tid [cpu] secs.frac: sched:event: fields`). No allocation per line.

use super::words::{
    call_site, find_byte, first_token, next_stop, probe_field, probe_hex_u64, probe_i32, probe_u64,
    trim_ascii_start, BYTE_CLASS, EQUALS, SPACE,
};

/// The events the replay uses: the five sched tracepoints and, where the trace has them, the
/// `sis_select` and `sis_idle` kprobes (testdata/traces/qemu/init.sh).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchedEvent {
    /// `sched_switch` on `cpu`: `prev_pid` leaves (still runnable when `prev_runnable`,
    /// i.e. `prev_state=R` or `R+`), `next_pid` runs.
    Switch {
        prev_pid: u32,
        prev_runnable: bool,
        /// `prev_state=Z` or `X` (`x` before 4.14): prev's last switch, in do_task_dead().
        prev_dead: bool,
        next_pid: u32,
    },
    /// `sched_waking`: `target_cpu` is the wakee's previous CPU (`task_cpu(p)`).
    Waking { pid: u32, target_cpu: u32 },
    /// `sched_wakeup` / `sched_wakeup_new`: `target_cpu` is the CPU the kernel chose.
    Wakeup {
        pid: u32,
        target_cpu: u32,
        new: bool,
    },
    /// `sched_migrate_task`.
    Migrate {
        pid: u32,
        orig_cpu: u32,
        dest_cpu: u32,
    },
    /// `sis_select`: a kprobe on select_task_rq_fair(p, prev_cpu, wake_flags) (5.11+'s
    /// arguments), emitted on the waker's CPU between its sched_waking and sched_wakeup: the
    /// wake flags the kernel passed, in 5.11+'s layout (WF_TTWU 0x08, WF_SYNC 0x10).
    /// Before 5.11 the kprobe reads `sd_flag=` and the old `wake_flags=` (WF_SYNC 0x01),
    /// which the parser maps to that layout; a line with `sd_flag=` alone (init.sh before
    /// session 42 read only the third argument there) gives no WF_SYNC: `sync_read` false.
    Select {
        prev_cpu: u32,
        wake_flags: u32,
        sync_read: bool,
    },
    /// `sis_idle`: a kprobe on available_idle_cpu(cpu), the CPU the kernel asks about.
    IdleAsk { cpu: u32 },
    /// `sis_idle_ret`: its kretprobe, what it was told (`ret=` non-zero: idle), and the
    /// call site it returned to (the offset in `(select_task_rq_fair+0x68b/0x17d0 <- ...)`;
    /// 0 if the line has none).
    IdleAnswer { idle: bool, site: u32 },
    /// `sis_lb`: a sched_balance_rq() (before 6.10 load_balance(); 6.1's by offsets) entry on
    /// `cpu` (init.sh), its `idle` type (2: newly idle, which does not write nr_idle_scan), its
    /// domain's `span` weight and the LLC's `nr_idle_scan` as it stood (None: the domain has no
    /// shared LLC state).
    Balance {
        cpu: u32,
        idle: u32,
        span: u32,
        nr: Option<u32>,
    },
    /// `sis_load`: an enqueue_task_fair() entry (init.sh), `cpu`'s cfs_rq load_avg and
    /// util_avg as its last update left them, that update's time (`lut`, the rq's PELT clock)
    /// and the enqueue flags; on 6.10+ also the cfs_rq's util_est (6.8+'s sum of its tasks'
    /// estimates) where the probe reads it (`uest`).
    Load {
        cpu: u32,
        flags: u32,
        load: u64,
        util: u64,
        lut: u64,
        util_est: Option<u64>,
        /// The task enqueued.
        pid: u32,
    },
    /// `sis_tick`: the scheduler tick on the line's CPU (init.sh; sched_tick(), scheduler_tick()
    /// before 6.10).
    Tick,
    /// `sis_flips` (a sched_switch tracepoint probe: the task switched in, `pid` given) and
    /// `sis_wflips` (select_task_rq_fair()'s wakee, `pid` None): record_wakee()'s fields of
    /// the task at `task` (its task_struct's address) as the kernel holds them, and jiffies.
    Flips(FlipsRead),
    /// `timer_expire_entry`: jiffies (`now=`) at its stamp, for a `sis_wflips` probe that
    /// could not read jiffies_64 (no CONFIG_KALLSYMS_ALL: Debian's arm64).
    Jiffies(u64),
}

/// A task's wake-up flips as init.sh's `sis_flips`/`sis_wflips` probes read them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlipsRead {
    pub pid: Option<u32>,
    pub task: u64,
    pub wakee_flips: u32,
    /// `wakee_flip_decay_ts`, in jiffies.
    pub decay_jiffies: u64,
    /// `last_wakee`, a task_struct address (0: none yet).
    pub last_wakee: u64,
    /// jiffies_64 at the probe (None: the probe could not read it).
    pub jiffies: Option<u64>,
    /// `recent_used_cpu` (`recent=`; None: the probe did not read it, init.sh before
    /// session 42).
    pub recent_used_cpu: Option<i32>,
}

impl SchedEvent {
    /// One of init.sh's kprobes (`sis_select`, `sis_idle`, `sis_idle_ret`), not a sched event.
    pub fn is_kprobe(&self) -> bool {
        matches!(
            self,
            SchedEvent::Select { .. }
                | SchedEvent::IdleAsk { .. }
                | SchedEvent::IdleAnswer { .. }
                | SchedEvent::Balance { .. }
                | SchedEvent::Load { .. }
                | SchedEvent::Tick
                | SchedEvent::Flips(_)
                | SchedEvent::Jiffies(_)
        )
    }
}

/// A parsed event line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceEvent<'a> {
    /// The `[cpu]` column: where the event was emitted.
    pub cpu: u32,
    /// The timestamp in ns.
    pub time_ns: u64,
    /// The `comm` of the wakee for Waking/Wakeup and of `next` for Switch (for per-CPU
    /// kthread affinity and the stop class), else "".
    pub comm: &'a str,
    /// Switch `prev_comm=`, else "".
    pub prev_comm: &'a str,
    /// The kernel's `p->prio` of the wakee (Waking/Wakeup/Migrate `prio=`) or of `next`
    /// (Switch `next_prio=`): -1 deadline, 0..=99 real-time, 100..=139 fair. None when the
    /// line has no such field.
    pub prio: Option<i32>,
    /// Switch `prev_prio=`.
    pub prev_prio: Option<i32>,
    pub event: SchedEvent,
}

/// What a line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line<'a> {
    Event(TraceEvent<'a>),
    /// An event line of another event (`irq_handler_entry`, `sched_stat_runtime`, ...).
    OtherEvent,
    /// The ftrace header's `#P:8` or trace-cmd's `cpus=8`: the machine's CPU count.
    CpuCount(u32),
    /// Comments, headers, perf stack lines, blank lines, `CPU:2 [LOST 10 EVENTS]`.
    NotEvent,
}

/// Why a line that names one of the five events could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError(pub String);

/// The event a line names, once its name is matched (one comparison per line).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Switch,
    Waking,
    Wakeup,
    WakeupNew,
    Migrate,
    Select,
    IdleAsk,
    IdleAnswer,
    Balance,
    Load,
    Tick,
    Flips,
    WakeeFlips,
    TimerExpire,
}

impl Kind {
    fn of(name: &str) -> Option<Kind> {
        Some(match name {
            "sched_switch" => Kind::Switch,
            "sched_waking" => Kind::Waking,
            "sched_wakeup" => Kind::Wakeup,
            "sched_wakeup_new" => Kind::WakeupNew,
            "sched_migrate_task" => Kind::Migrate,
            "sis_select" => Kind::Select,
            "sis_idle" => Kind::IdleAsk,
            "sis_idle_ret" => Kind::IdleAnswer,
            "sis_lb" => Kind::Balance,
            "sis_load" => Kind::Load,
            "sis_tick" => Kind::Tick,
            "sis_flips" => Kind::Flips,
            "sis_wflips" => Kind::WakeeFlips,
            "timer_expire_entry" => Kind::TimerExpire,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Switch => "sched_switch",
            Kind::Waking => "sched_waking",
            Kind::Wakeup => "sched_wakeup",
            Kind::WakeupNew => "sched_wakeup_new",
            Kind::Migrate => "sched_migrate_task",
            Kind::Select => "sis_select",
            Kind::IdleAsk => "sis_idle",
            Kind::IdleAnswer => "sis_idle_ret",
            Kind::Balance => "sis_lb",
            Kind::Load => "sis_load",
            Kind::Tick => "sis_tick",
            Kind::Flips => "sis_flips",
            Kind::WakeeFlips => "sis_wflips",
            Kind::TimerExpire => "timer_expire_entry",
        }
    }
}

/// Parses one line (without its newline).
pub fn parse_line(line: &str) -> Result<Line<'_>, LineError> {
    let t = trim_ascii_start(line);
    if t.is_empty() {
        return Ok(Line::NotEvent);
    }
    if let Some(rest) = t.strip_prefix('#') {
        // ftrace: "# entries-in-buffer/entries-written: 41811/41811   #P:8"
        if let Some(i) = rest.find("#P:") {
            if let Some(n) = leading_u32(&rest[i + 3..]) {
                return Ok(Line::CpuCount(n));
            }
        }
        return Ok(Line::NotEvent);
    }
    if let Some(rest) = t.strip_prefix("cpus=") {
        // trace-cmd report's first line.
        if let Some(n) = leading_u32(rest) {
            if rest.trim().len() == digits_len(rest) {
                return Ok(Line::CpuCount(n));
            }
        }
    }
    // The `[cpu]` column: the first "[digits]" with a space before it.
    let Some((open, close, cpu)) = cpu_column(t) else {
        return Ok(Line::NotEvent);
    };
    if open == 0 {
        return Ok(Line::NotEvent);
    }
    let mut rest = trim_ascii_start(&t[close + 1..]);
    // The optional irq-flags column ("d..2", "dNh3."), then "secs.frac:".
    let mut tok = first_token(rest);
    let mut stamp = timestamp_token(tok);
    if stamp.is_none() {
        if tok.is_empty() || tok.ends_with(':') {
            return Ok(Line::NotEvent);
        }
        rest = trim_ascii_start(&rest[tok.len()..]);
        tok = first_token(rest);
        stamp = timestamp_token(tok);
    }
    let Some(stamp) = stamp else {
        return Ok(Line::NotEvent);
    };
    let time_ns = stamp.ok_or_else(|| {
        LineError(format!(
            "timestamp '{}' is not seconds.fraction with 1 to 9 digits",
            &tok[..tok.len() - 1]
        ))
    })?;
    rest = trim_ascii_start(&rest[tok.len()..]);
    let mut name_tok = first_token(rest);
    // perf script -F ...,period prints the sample period before the event name.
    if !name_tok.is_empty() && digits_len(name_tok) == name_tok.len() {
        rest = trim_ascii_start(&rest[name_tok.len()..]);
        name_tok = first_token(rest);
    }
    // A CPU column and a timestamp make an event line: its name must follow.
    let Some(name) = name_tok.strip_suffix(':') else {
        return Err(LineError(format!(
            "an event name and ':' after the timestamp, found '{name_tok}' (truncated line?)"
        )));
    };
    // perf script: "sched:sched_switch:" ("probe:sis_select:" for a perf probe); perf may
    // also print a sample period before it.
    let name = name
        .strip_prefix("sched:")
        .or_else(|| name.strip_prefix("probe:"))
        .unwrap_or(name);
    let Some(kind) = Kind::of(name) else {
        return Ok(Line::OtherEvent);
    };
    let f = Fields::scan(&rest[name_tok.len()..]);
    let name = kind.name();
    let event = match kind {
        Kind::Switch => {
            let prev_pid = field_u32(f.prev_pid, "prev_pid", name)?;
            let state = f.prev_state.ok_or_else(|| missing("prev_state", name))?;
            let next_pid = field_u32(f.next_pid, "next_pid", name)?;
            SchedEvent::Switch {
                prev_pid,
                // "R" and "R+" (preempted) are runnable; S, D, T, t, X, Z, P, I, ... are not.
                prev_runnable: state == "R" || state == "R+",
                prev_dead: matches!(state, "Z" | "X" | "x"),
                next_pid,
            }
        }
        Kind::Waking => SchedEvent::Waking {
            pid: field_u32(f.pid, "pid", name)?,
            target_cpu: field_u32(f.target_cpu, "target_cpu", name)?,
        },
        Kind::Wakeup | Kind::WakeupNew => SchedEvent::Wakeup {
            pid: field_u32(f.pid, "pid", name)?,
            target_cpu: field_u32(f.target_cpu, "target_cpu", name)?,
            new: kind == Kind::WakeupNew,
        },
        Kind::Migrate => SchedEvent::Migrate {
            pid: field_u32(f.pid, "pid", name)?,
            orig_cpu: field_u32(f.orig_cpu, "orig_cpu", name)?,
            dest_cpu: field_u32(f.dest_cpu, "dest_cpu", name)?,
        },
        Kind::Select => select_event(&f, name)?,
        Kind::IdleAsk => SchedEvent::IdleAsk {
            cpu: field_u32(f.cpu, "cpu", name)?,
        },
        Kind::IdleAnswer => SchedEvent::IdleAnswer {
            idle: field_hex_u32(f.ret, "ret", name)? != 0,
            site: call_site(&rest[name_tok.len()..]),
        },
        Kind::Balance => {
            let detail = &rest[name_tok.len()..];
            SchedEvent::Balance {
                cpu: field_u32(f.cpu, "cpu", name)?,
                idle: field_u32(probe_field(detail, "idle="), "idle", name)?,
                span: field_u32(probe_field(detail, "span="), "span", name)?,
                nr: probe_field(detail, "nr=").and_then(|v| v.parse().ok()),
            }
        }
        Kind::Tick => SchedEvent::Tick,
        Kind::Flips | Kind::WakeeFlips => {
            let d = &rest[name_tok.len()..];
            let pid = match kind {
                Kind::Flips => Some(field_u32(probe_field(d, "pid="), "pid", name)?),
                _ => None,
            };
            SchedEvent::Flips(FlipsRead {
                pid,
                task: probe_hex_u64(d, "task=", name)?,
                wakee_flips: field_u32(probe_field(d, "flips="), "flips", name)?,
                decay_jiffies: probe_u64(d, "decay=", name)?,
                last_wakee: probe_hex_u64(d, "last=", name)?,
                jiffies: match probe_field(d, "jif=") {
                    Some(_) => Some(probe_u64(d, "jif=", name)?),
                    None => None,
                },
                recent_used_cpu: match probe_field(d, "recent=") {
                    Some(_) => Some(probe_i32(d, "recent=", name)?),
                    None => None,
                },
            })
        }
        Kind::TimerExpire => SchedEvent::Jiffies(probe_u64(&rest[name_tok.len()..], "now=", name)?),
        Kind::Load => {
            let d = &rest[name_tok.len()..];
            SchedEvent::Load {
                cpu: field_u32(probe_field(d, "cpu="), "cpu", name)?,
                flags: field_hex_u32(probe_field(d, "flags="), "flags", name)?,
                load: probe_u64(d, "load=", name)?,
                util: probe_u64(d, "util=", name)?,
                lut: probe_u64(d, "lut=", name)?,
                util_est: probe_field(d, "uest=").and_then(|v| v.parse().ok()),
                pid: field_u32(probe_field(d, "pid="), "pid", name)?,
            }
        }
    };
    let (comm, prev_comm, prio) = match kind {
        Kind::Switch => (f.next_comm, f.prev_comm, f.next_prio),
        Kind::Migrate => ("", "", f.prio),
        Kind::Select
        | Kind::IdleAsk
        | Kind::IdleAnswer
        | Kind::Balance
        | Kind::Load
        | Kind::Tick
        | Kind::Flips
        | Kind::WakeeFlips
        | Kind::TimerExpire => ("", "", None),
        _ => (f.comm, "", f.prio),
    };
    Ok(Line::Event(TraceEvent {
        cpu,
        time_ns,
        comm,
        prev_comm,
        prio: prio.and_then(field_prio),
        prev_prio: f.prev_prio.and_then(field_prio),
        event,
    }))
}

fn missing(field: &str, event: &str) -> LineError {
    LineError(format!("{event} without {field}= (truncated line?)"))
}

/// A `prio=` value: the kernel prints `p->prio`, -1 for a deadline task. Anything else that
/// is not a small integer is read as absent (the field is informative, not structural).
fn field_prio(v: &str) -> Option<i32> {
    let (neg, digits) = match v.strip_prefix('-') {
        Some(d) => (true, d.as_bytes()),
        None => (false, v.as_bytes()),
    };
    if digits.is_empty() || digits.len() > 3 {
        return None;
    }
    let mut n = 0i32;
    for &b in digits {
        if !b.is_ascii_digit() {
            return None;
        }
        n = n * 10 + (b - b'0') as i32;
    }
    let n = if neg { -n } else { n };
    (-1..=139).contains(&n).then_some(n)
}

fn digits_len(s: &str) -> usize {
    s.bytes().take_while(u8::is_ascii_digit).count()
}

fn leading_u32(s: &str) -> Option<u32> {
    let n = digits_len(s);
    (n > 0).then(|| digits_u32(&s.as_bytes()[..n])).flatten()
}

/// The value of `d`, ASCII digits only: None beyond 9 of them (9 cannot overflow a u32).
fn digits_u32(d: &[u8]) -> Option<u32> {
    (d.len() <= 9).then(|| d.iter().fold(0u32, |a, b| a * 10 + (b - b'0') as u32))
}

/// "[002]" preceded by a blank: (index of '[', index of ']', cpu).
fn cpu_column(t: &str) -> Option<(usize, usize, u32)> {
    let b = t.as_bytes();
    let mut from = 0;
    while let Some(open) = find_byte(b, from, b'[') {
        let n = digits_len(&t[open + 1..]);
        let close = open + 1 + n;
        if n > 0 && b.get(close) == Some(&b']') && (open == 0 || b[open - 1] == b' ') {
            // A CPU number of more than 9 digits is not a CPU column.
            return digits_u32(&b[open + 1..close]).map(|cpu| (open, close, cpu));
        }
        from = open + 1;
    }
    None
}

/// A timestamp column, "63982.794565804:" (ns) or "63982.794565:" (us), read in one pass:
/// None if `tok` is not one (a digit first, then digits and dots, then ':'), Some(None) if it
/// is one but not seconds.fraction with at most 10 + 9 digits, else Some(Some(ns)).
fn timestamp_token(tok: &str) -> Option<Option<u64>> {
    let body = tok.strip_suffix(':')?;
    if !body.as_bytes().first()?.is_ascii_digit() {
        return None;
    }
    let (mut secs, mut frac) = (0u64, 0u64);
    let (mut secs_len, mut frac_len, mut dots) = (0usize, 0usize, 0usize);
    for &c in body.as_bytes() {
        match c {
            b'0'..=b'9' if dots == 0 => {
                secs = secs.wrapping_mul(10).wrapping_add((c - b'0') as u64);
                secs_len += 1;
            }
            b'0'..=b'9' => {
                frac = frac.wrapping_mul(10).wrapping_add((c - b'0') as u64);
                frac_len += 1;
            }
            b'.' => dots += 1,
            _ => return None,
        }
    }
    // At most 10 + 9 digits (checked before the value is used): no overflow in u64.
    if dots != 1 || secs_len > 10 || frac_len == 0 || frac_len > 9 {
        return Some(None);
    }
    for _ in frac_len..9 {
        frac *= 10;
    }
    Some(
        secs.checked_mul(1_000_000_000)
            .and_then(|s| s.checked_add(frac)),
    )
}

/// The `key=value` fields the replay reads, in one pass over the blank-separated tokens (a
/// comm may contain blanks: its extra words have no '=' and are passed over).
#[derive(Default)]
struct Fields<'a> {
    pid: Option<&'a str>,
    target_cpu: Option<&'a str>,
    prev_pid: Option<&'a str>,
    prev_state: Option<&'a str>,
    next_pid: Option<&'a str>,
    orig_cpu: Option<&'a str>,
    dest_cpu: Option<&'a str>,
    prev_cpu: Option<&'a str>,
    wake_flags: Option<&'a str>,
    sd_flag: Option<&'a str>,
    cpu: Option<&'a str>,
    ret: Option<&'a str>,
    /// `comm=` up to the `pid=` field.
    comm: &'a str,
    /// `next_comm=` up to the `next_pid=` field, `prev_comm=` up to `prev_pid=`.
    next_comm: &'a str,
    prev_comm: &'a str,
    prio: Option<&'a str>,
    prev_prio: Option<&'a str>,
    next_prio: Option<&'a str>,
}

impl<'a> Fields<'a> {
    fn scan(f: &'a str) -> Self {
        let b = f.as_bytes();
        let mut out = Fields::default();
        let mut comm_start = None;
        let mut next_comm_start = None;
        let mut prev_comm_start = None;
        let n = b.len();
        // One pass over the bytes: a token runs from `start` to the next blank, and its
        // first '=' (at `eq`) splits it into a key and a value. Tokens without one are
        // passed over.
        let mut start = 0;
        let mut eq = usize::MAX;
        let mut j = 0;
        while j <= n {
            j = next_stop(b, j);
            let class = if j < n {
                BYTE_CLASS[b[j] as usize]
            } else {
                SPACE
            };
            j += 1;
            if class == 0 {
                // A control byte that is not a blank (next_stop's word test lets it by).
                continue;
            }
            if class == EQUALS {
                if eq == usize::MAX {
                    eq = j - 1;
                }
                continue;
            }
            let (tok_start, tok_eq, i) = (start, eq, j - 1);
            start = j;
            eq = usize::MAX;
            if tok_eq == usize::MAX {
                continue;
            }
            let (start, eq) = (tok_start, tok_eq);
            let (key, val) = (&f[start..eq], &f[eq + 1..i]);
            match key {
                "comm" => {
                    comm_start = Some(start + 5);
                    out.comm = val;
                }
                "pid" => {
                    out.pid = Some(val);
                    if let Some(cs) = comm_start.take() {
                        out.comm = f[cs..start].trim_end();
                    }
                }
                "target_cpu" => out.target_cpu = Some(val),
                "prev_comm" => {
                    prev_comm_start = Some(start + 10);
                    out.prev_comm = val;
                }
                "prev_pid" => {
                    out.prev_pid = Some(val);
                    if let Some(cs) = prev_comm_start.take() {
                        out.prev_comm = f[cs..start].trim_end();
                    }
                }
                "prev_state" => out.prev_state = Some(val).filter(|v| !v.is_empty()),
                "next_comm" => {
                    next_comm_start = Some(start + 10);
                    out.next_comm = val;
                }
                "next_pid" => {
                    out.next_pid = Some(val);
                    if let Some(cs) = next_comm_start.take() {
                        out.next_comm = f[cs..start].trim_end();
                    }
                }
                "prio" => out.prio = Some(val),
                "prev_prio" => out.prev_prio = Some(val),
                "next_prio" => out.next_prio = Some(val),
                "orig_cpu" => out.orig_cpu = Some(val),
                "dest_cpu" => out.dest_cpu = Some(val),
                "prev_cpu" => out.prev_cpu = Some(val),
                "wake_flags" => out.wake_flags = Some(val),
                "sd_flag" => out.sd_flag = Some(val),
                "cpu" => out.cpu = Some(val),
                "ret" => out.ret = Some(val),
                _ => {}
            }
        }
        out
    }
}

/// A `sis_select` line's flags in 5.11+'s layout. v5.10 fair.c select_task_rq_fair(p,
/// prev_cpu, sd_flag, wake_flags): sd_flag's SD_BALANCE_EXEC/FORK/WAKE (0x2/0x4/0x8,
/// v5.10 sd_flags.h) are the bits 5.11's WF_EXEC/FORK/TTWU took (3aef1551e942 maps them one
/// to one), and v5.10 sched.h's WF_SYNC is 0x01.
fn select_event(f: &Fields, name: &str) -> Result<SchedEvent, LineError> {
    const SD_BALANCE_MASK: u32 = 0x0e;
    const WF_SYNC_V5_10: u32 = 0x01;
    const WF_SYNC: u32 = 0x10;
    let prev_cpu = field_u32(f.prev_cpu, "prev_cpu", name)?;
    let Some(sd_flag) = f.sd_flag else {
        let wake_flags = field_hex_u32(f.wake_flags, "wake_flags", name)?;
        return Ok(SchedEvent::Select {
            prev_cpu,
            wake_flags,
            sync_read: true,
        });
    };
    let sd_flag = field_hex_u32(Some(sd_flag), "sd_flag", name)?;
    let old = f
        .wake_flags
        .map(|v| field_hex_u32(Some(v), "wake_flags", name))
        .transpose()?;
    let sync = old.is_some_and(|w| w & WF_SYNC_V5_10 != 0);
    Ok(SchedEvent::Select {
        prev_cpu,
        wake_flags: (sd_flag & SD_BALANCE_MASK) | if sync { WF_SYNC } else { 0 },
        sync_read: old.is_some(),
    })
}

/// A kprobe's `:x32` field (`0x18`), or a decimal one.
fn field_hex_u32(v: Option<&str>, key: &str, event: &str) -> Result<u32, LineError> {
    let v = v.ok_or_else(|| missing(key, event))?;
    let parsed = match v.strip_prefix("0x") {
        Some(h) if !h.is_empty() && h.len() <= 8 => u32::from_str_radix(h, 16).ok(),
        Some(_) => None,
        None if !v.is_empty() && v.len() <= 9 => v.parse().ok(),
        None => None,
    };
    parsed.ok_or_else(|| {
        LineError(format!(
            "{event}: {key}='{v}' is not a 32-bit value (0x0 to 0xffffffff, or decimal)"
        ))
    })
}

fn field_u32(v: Option<&str>, key: &str, event: &str) -> Result<u32, LineError> {
    let v = v.ok_or_else(|| missing(key, event))?;
    if v.is_empty() {
        return Err(LineError(format!(
            "{event} with an empty {key}= (truncated line?)"
        )));
    }
    if !v.bytes().all(|b| b.is_ascii_digit()) {
        return Err(LineError(format!(
            "{event}: {key}='{v}' is not a non-negative integer"
        )));
    }
    // At most 9 digits: no overflow.
    if v.len() > 9 {
        return Err(LineError(format!(
            "{event}: {key}={v} is beyond the largest id 999999999"
        )));
    }
    let n = v.bytes().fold(0u32, |a, b| a * 10 + (b - b'0') as u32);
    Ok(n)
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
