#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
T=/sys/kernel/tracing
[ -d $T/events ] || { mount -t debugfs nodev /sys/kernel/debug; T=/sys/kernel/debug/tracing; }
echo "===INFO==="
uname -a
grep -m1 "model name" /proc/cpuinfo
nproc
for c in /sys/devices/system/cpu/cpu[0-9]*; do
  echo "$(basename $c) smt=$(cat $c/topology/thread_siblings_list) core=$(cat $c/topology/core_id) pkg=$(cat $c/topology/physical_package_id) l3=$(cat $c/cache/index3/shared_cpu_list 2>/dev/null) l2=$(cat $c/cache/index2/shared_cpu_list 2>/dev/null) cluster=$(cat $c/topology/cluster_cpus_list 2>/dev/null)"
done
mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
for d in /sys/kernel/debug/sched/domains/cpu0/domain* /proc/sys/kernel/sched_domain/cpu0/domain*; do
  [ -f $d/name ] && echo "cpu0 $(basename $d) name=$(cat $d/name) flags=$(cat $d/flags)"
done
grep -A4 "^cpu0 " /proc/schedstat | grep "^domain" | cut -d" " -f1,2
echo "autogroup=$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)"; cat /proc/cmdline
echo "===END INFO==="
echo 16384 > $T/buffer_size_kb; echo "buffer_size_kb=$(cat $T/buffer_size_kb)"
echo 0 > $T/tracing_on
# With sis_clock=global: ftrace's global clock, one ordering for all CPUs, in place of the
# per-CPU `local` clock, whose stamps can disagree across CPUs by more than an event's gap.
grep -q "sis_clock=global" /proc/cmdline && echo global > $T/trace_clock
echo > $T/trace
for e in sched_switch sched_waking sched_wakeup sched_wakeup_new sched_migrate_task; do echo 1 > $T/events/sched/$e/enable; done
# With sis_select=1: a kprobe on select_task_rq_fair(p, prev_cpu, wake_flags) (5.11+'s three
# arguments) records the wake flags the kernel passed, WF_SYNC among them, which sis replay
# then reads instead of inferring sync. Before 5.11 (3aef1551e942) the function took
# (p, prev_cpu, sd_flag, wake_flags), with WF_SYNC 0x01: both are read, named so.
if grep -q "sis_select=1" /proc/cmdline; then
  case $(uname -m) in
    x86_64) prev=%si flags=%dx old_flags=%cx ;;
    aarch64) prev=%x1 flags=%x2 old_flags=%x3 ;;
  esac
  case $(uname -r) in
    [1-4].*|5.[0-9].*|5.10.*) select_args="sd_flag=$flags:x32 wake_flags=$old_flags:x32" ;;
    *) select_args="wake_flags=$flags:x32" ;;
  esac
  echo "p:sis_select select_task_rq_fair prev_cpu=$prev:s32 $select_args" >> $T/kprobe_events
  echo 1 > $T/events/kprobes/sis_select/enable
fi
# With sis_idle=1: each available_idle_cpu(cpu) call and what it returned, a kprobe and a
# kretprobe. select_idle_sibling() and select_idle_cpu() are inlined into
# select_task_rq_fair() in Debian's 6.1 and 6.12; available_idle_cpu() is not, so between a
# waking's sis_select and its sched_wakeup these are the CPUs the kernel's own path looked at.
if grep -q "sis_idle=1" /proc/cmdline; then
  case $(uname -m) in
    x86_64) cpu=%di ;;
    aarch64) cpu=%x0 ;;
  esac
  echo "p:sis_idle available_idle_cpu cpu=$cpu:s32" >> $T/kprobe_events
  echo 'r:sis_idle_ret available_idle_cpu ret=$retval:s32' >> $T/kprobe_events
  echo 1 > $T/events/kprobes/sis_idle/enable
  echo 1 > $T/events/kprobes/sis_idle_ret/enable
fi
# With sis_lb=1 (6.10+, BTF arguments: CONFIG_PROBE_EVENTS_BTF_ARGS): each periodic or idle
# balance's sched_balance_rq() entry, its domain's width and the LLC's nr_idle_scan as it
# stood before this balance wrote it (update_idle_cpu_scan(), in update_sd_lb_stats()).
# On Debian's 6.1.0-47-amd64 (session 42) the same from load_balance(this_cpu, this_rq, sd,
# idle, ...) at pahole's offsets (sched_domain: shared 296, span_weight 304;
# sched_domain_shared: nr_idle_scan 12); a domain without shared state (wider than the LLC)
# reads 0 there, and the replay reads only the LLC's width.
if grep -q "sis_lb=1" /proc/cmdline; then
  case $(uname -r) in
    6.1.0-47-amd64) lb='p:sis_lb load_balance cpu=%di:s32 idle=%cx:u32 span=+304(%dx):u32 nr=+12(+296(%dx)):s32' ;;
    *) lb='p:sis_lb sched_balance_rq cpu=this_cpu idle=idle span=sd->span_weight nr=sd->shared->nr_idle_scan' ;;
  esac
  echo "$lb" >> $T/kprobe_events \
    && echo 1 > $T/events/kprobes/sis_lb/enable
  cat $T/error_log 2>/dev/null | tail -3
fi
# With sis_load=1: each enqueue_task_fair(rq, p, flags) entry, the cfs_rq's load_avg and
# util_avg as its last update left them (cpu_load() in wake_affine_weight() reads the same)
# and the task's own, each with its last_update_time: what the replay's load rebuild is
# checked against. 6.10+ names the fields (BTF arguments); for Debian's 6.1.0-47-amd64 the
# offsets are pahole's, read from that package's vmlinux BTF (rq: cpu 2672, cfs.avg 256;
# task_struct: pid 2416, se.avg 320; sched_avg: last_update_time 0, load_avg 32, util_avg 48).
# It also reads the cfs_rq's util_est (the sum of its tasks' estimates: 6.8+'s one unsigned
# int, 6.1's util_est.enqueued at +56 in sched_avg), the task's own (6.8+: its EWMA with
# UTIL_AVG_UNCHANGED in bit 31; 6.1: ewma at +60, enqueued at +56) and the task's
# runnable_avg (+40), which 6.8+'s util_est_update() compares its util with (session 39).
# Debian's 5.10.0-32-arm64, from its Image's BTF (session 40): rq cpu 2640, cfs.avg 256;
# task_struct pid 1304, se.avg 576; sched_avg as 6.1's.
if grep -q "sis_load=1" /proc/cmdline; then
  case $(uname -r) in
    6.1.0-47-amd64) probe='cpu=+2672(%di):s32 pid=+2416(%si):s32 flags=%dx:x32 load=+288(%di):u64 util=+304(%di):u64 lut=+256(%di):u64 tload=+352(%si):u64 tutil=+368(%si):u64 tlut=+320(%si):u64 uest=+312(%di):u32 tuest=+380(%si):u32 tenq=+376(%si):u32 trun=+360(%si):u64' ;;
    5.10.0-32-arm64) probe='cpu=+2640(%x0):s32 pid=+1304(%x1):s32 flags=%x2:x32 load=+288(%x0):u64 util=+304(%x0):u64 lut=+256(%x0):u64 tload=+608(%x1):u64 tutil=+624(%x1):u64 tlut=+576(%x1):u64 uest=+312(%x0):u32 tuest=+636(%x1):u32 tenq=+632(%x1):u32 trun=+616(%x1):u64' ;;
    *) probe='cpu=rq->cpu pid=p->pid flags=flags:x32 load=rq->cfs.avg.load_avg util=rq->cfs.avg.util_avg lut=rq->cfs.avg.last_update_time tload=p->se.avg.load_avg tutil=p->se.avg.util_avg tlut=p->se.avg.last_update_time uest=rq->cfs.avg.util_est tuest=p->se.avg.util_est trun=p->se.avg.runnable_avg' ;;
  esac
  echo "p:sis_load enqueue_task_fair $probe" >> $T/kprobe_events && echo 1 > $T/events/kprobes/sis_load/enable
  cat $T/error_log 2>/dev/null | tail -3
fi
# With sis_tick=1: each CPU's scheduler tick (sched_tick(), scheduler_tick() before 6.10),
# whose entity_tick() updates the running task's load and its cfs_rq's: with them the replay
# reads each CPU's load and util as its last update left them.
if grep -q "sis_tick=1" /proc/cmdline; then
  tick=sched_tick; grep -q " scheduler_tick$" /proc/kallsyms && tick=scheduler_tick
  echo "p:sis_tick $tick" >> $T/kprobe_events && echo 1 > $T/events/kprobes/sis_tick/enable
  cat $T/error_log 2>/dev/null | tail -3
fi
# With sis_flips=1: each task's wake-up flips (record_wakee()'s task_struct fields:
# wakee_flips, wakee_flip_decay_ts in jiffies, last_wakee as a pointer) where the kernel
# keeps them unchanged, with jiffies and the task's own pointer (to name the last_wakee
# pointers): at select_task_rq_fair(p, ...) for the wakee, and on 6.10+ where the kernel has
# fprobe events (Debian's x86, not its arm64) a tracepoint probe with BTF arguments at each
# sched_switch for the task switched in (a task's flips change only in its own
# record_wakee(), while it runs; __switch_to() takes no kprobe). Debian's
# 6.1.0-47 offsets are pahole's, the same on amd64 and arm64 (task_struct: wakee_flips 72,
# wakee_flip_decay_ts 80, last_wakee 88; arm64's from the BTF in its Image), and Debian's
# 5.10.0-32-arm64's from its Image's BTF (wakee_flips 76, the others as 6.1), and
# 5.10.0-32-amd64's from its vmlinux (68, 72, 80). Session 40. Session 42 adds the wakee's
# recent_used_cpu (select_idle_sibling()'s input), the int after last_wakee in task_struct
# (4.16-6.12: wakee_flips, wakee_flip_decay_ts, last_wakee, recent_used_cpu, wake_cpu): +96,
# or +88 on 5.10 amd64.
if grep -q "sis_flips=1" /proc/cmdline; then
  case $(uname -m) in
    x86_64) p0=%di ;;
    aarch64) p0=%x0 ;;
  esac
  case $(uname -r) in
    6.1.0-47-*) sel="flips=+72($p0):u32 decay=+80($p0):u64 last=+88($p0):x64 recent=+96($p0):s32" ;;
    5.10.0-32-arm64) sel="flips=+76($p0):u32 decay=+80($p0):u64 last=+88($p0):x64 recent=+96($p0):s32" ;;
    5.10.0-32-amd64) sel="flips=+68($p0):u32 decay=+72($p0):u64 last=+80($p0):x64 recent=+88($p0):s32" ;;
    *) sel='flips=p->wakee_flips decay=p->wakee_flip_decay_ts:u64 last=p->last_wakee:x64 recent=p->recent_used_cpu:s32'
      echo 't:sis_flips sched_switch task=next:x64 pid=next->pid flips=next->wakee_flips decay=next->wakee_flip_decay_ts:u64 last=next->last_wakee:x64 jif=@jiffies_64:u64' >> $T/dynamic_events \
        && echo 1 > $T/events/tracepoints/sis_flips/enable ;;
  esac
  # Without CONFIG_KALLSYMS_ALL (Debian's arm64) no probe reads jiffies_64: then each timer
  # expiry's `now=` (the timer_expire_entry tracepoint) gives jiffies at its stamp.
  echo "p:sis_wflips select_task_rq_fair task=$p0:x64 $sel jif=@jiffies_64:u64" >> $T/kprobe_events \
    || { echo "p:sis_wflips select_task_rq_fair task=$p0:x64 $sel" >> $T/kprobe_events \
      && echo 1 > $T/events/timer/timer_expire_entry/enable; }
  echo 1 > $T/events/kprobes/sis_wflips/enable
  cat $T/error_log 2>/dev/null | tail -3
fi
n=$(nproc)
case "$(sed -n "s/.*workload=\([a-z]*\).*/\1/p" /proc/cmdline)" in
pipelines)
# Held out (session 36; every earlier trace ran the default): n/2 shell pipelines, each
# looping dd | gzip | gunzip | wc over 1 MiB: a fork and exec per stage per turn, and
# producer/consumer wake-ups through pipe buffers.
j=0
while [ $j -lt $((n / 2)) ]; do
  (while :; do dd if=/dev/zero bs=4k count=256 2>/dev/null | gzip -1 | gunzip | wc -c >/dev/null; done) &
  j=$((j + 1))
done
;;
*)
# The workload: request/response pairs over FIFOs (the client thinks 100 us), bursts of
# computation with sleeps, and a periodic waker.
pairs=$((n / 2 + 1))
i=0
while [ $i -lt $pairs ]; do
  mkfifo /tmp/q$i /tmp/r$i
  (exec 3<>/tmp/q$i 4<>/tmp/r$i; while read -r l <&3; do echo r >&4; done) &
  (exec 3<>/tmp/q$i 4<>/tmp/r$i; while :; do echo q >&3; read -r l <&4; usleep 100; done) &
  i=$((i + 1))
done
j=0
while [ $j -lt $((n / 2)) ]; do
  (while :; do k=0; while [ $k -lt 300 ]; do k=$((k + 1)); done; usleep 2000; done) &
  j=$((j + 1))
done
(while :; do usleep 500; done) &
;;
esac
usleep 200000
echo 1 > $T/tracing_on
secs=$(sed -n "s/.*trace_s=\([0-9]*\).*/\1/p" /proc/cmdline); usleep $(( ${secs:-1} * 1000000 ))
echo 0 > $T/tracing_on
kill $(jobs -p) 2>/dev/null
echo "===TRACE==="
gzip -c $T/trace | base64
echo "===END TRACE==="
poweroff -f
