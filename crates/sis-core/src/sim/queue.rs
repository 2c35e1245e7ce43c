//! The engine's event queue: events pop in time order, and events due at the same time pop in
//! the order they were pushed (FIFO), exactly as a heap keyed on `(time, push sequence)` would.
//!
//! Three parts, no allocation once warmed up, no hashing, no floating point, nothing that
//! depends on `usize`'s width:
//! - `due_now`: a FIFO of events pushed for the current time (`time == now`; most of them are
//!   zero-delay events, such as a wake-up enqueued with no scan cost). They need no ordering work at all.
//! - a timing wheel of [`BUCKETS`] buckets of 2^[`SHIFT`] ns for events due within its horizon
//!   (~0.5 ms: the wake-up path's delays are µs), with a bitmap of non-empty buckets. A bucket
//!   is a short singly linked list of nodes in one slab (compact: the whole wheel stays in
//!   cache), kept sorted by time, equal times in push order: a push walks the (rarely longer
//!   than one) list to its place, and the wheel's next event is the head of the first
//!   non-empty bucket.
//! - `overflow`: a 4-ary min-heap on `(time, seq)` for events beyond the horizon (balance, long
//!   sleeps), `seq` being a u64 count of overflow pushes.
//!
//! Why an overflow event goes before a wheel event due at the same time: an event due at `t`
//! goes to the wheel once `(t >> SHIFT) - (now >> SHIFT) < BUCKETS`, which, as the clock only
//! grows, stays true from then on; so every overflow event due at `t` was pushed before every
//! wheel event due at `t`.
//!
//! Why `due_now` keeps push order: a scheduled event due at `now` was pushed while the clock was
//! still before `now`, so before every event in `due_now` (pushed once the clock reached `now`);
//! and the clock only moves on once `due_now` is empty. So popping scheduled events due at
//! `now` first, then `due_now` in FIFO order, then the next scheduled event, is exactly the
//! `(time, push order)` order.
//!
//! Why the wheel needs no re-bucketing: every wheel event lies in the bucket range
//! `[now >> SHIFT, (now >> SHIFT) + BUCKETS)` when pushed, is never earlier than the clock, and
//! the clock only grows; so the range still holds it later, and bucket `(time >> SHIFT) %
//! BUCKETS` never mixes two laps. The earliest bucket is the first non-empty one found going
//! round from the clock's bucket.

use std::collections::VecDeque;

/// log2 of a wheel bucket's width in ns: narrow enough that a bucket rarely holds more than
/// one event at 200% load on 112 CPUs (an event every ~40 ns).
const SHIFT: u32 = 4;
/// Wheel buckets (a power of two); the horizon is `BUCKETS << SHIFT` ns (~0.5 ms).
const BUCKETS: usize = 1 << 15;
/// Words of the non-empty-bucket bitmap, and of its summary (bit i: word i is non-zero).
const WORDS: usize = BUCKETS / 64;
const SUMMARY: usize = WORDS / 64;
const ARITY: usize = 4;
/// No node (end of a bucket's list, or of the free list).
const NIL: u32 = u32::MAX;

/// An overflow event.
#[derive(Clone, Copy, Debug)]
struct Entry<E> {
    time: u64,
    seq: u64,
    ev: E,
}

impl<E> Entry<E> {
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn before(&self, other: &Self) -> bool {
        self.time < other.time || (self.time == other.time && self.seq < other.seq)
    }
}

/// A wheel event in the slab, linked to the next one of its bucket (or of the free list).
#[derive(Clone, Copy, Debug)]
struct Node<E> {
    time: u64,
    ev: E,
    next: u32,
}

/// A deterministic time-ordered event queue with FIFO order among equal times.
#[derive(Clone, Debug)]
pub(crate) struct EventQueue<E> {
    /// First node of each bucket's list.
    heads: Box<[u32; BUCKETS]>,
    occupied: Box<[u64; WORDS]>,
    summary: [u64; SUMMARY],
    nodes: Vec<Node<E>>,
    free: u32,
    wheel_len: usize,
    overflow: Vec<Entry<E>>,
    overflow_seq: u64,
    /// The overflow top's time, u64::MAX when the overflow is empty.
    overflow_next: u64,
    due_now: VecDeque<E>,
    now: u64,
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heads: Box::new([NIL; BUCKETS]),
            occupied: Box::new([0; WORDS]),
            summary: [0; SUMMARY],
            nodes: Vec::with_capacity(512),
            free: NIL,
            wheel_len: 0,
            overflow: Vec::with_capacity(64),
            overflow_seq: 0,
            overflow_next: u64::MAX,
            due_now: VecDeque::with_capacity(64),
            now: 0,
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.wheel_len + self.overflow.len() + self.due_now.len()
    }

    /// Schedules `ev` at `time` (never before the clock: an earlier time is treated as now).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub fn push(&mut self, time: u64, ev: E) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        if time <= self.now || (time >> SHIFT) - (self.now >> SHIFT) >= BUCKETS as u64 {
            self.push_unscheduled_or_far(time, ev);
            return;
        }
        let b = (time >> SHIFT) as usize & (BUCKETS - 1);
        let i = self.free;
        if i == NIL || self.heads[b] != NIL {
            self.push_into_list(b, time, ev);
            return;
        }
        // The usual case: a free node and an empty bucket.
        self.free = self.nodes[i as usize].next;
        self.nodes[i as usize] = Node {
            time,
            ev,
            next: NIL,
        };
        self.wheel_len += 1;
        self.heads[b] = i;
        self.occupied[b / 64] |= 1u64 << (b % 64);
        self.summary[b / 4096] |= 1u64 << ((b / 64) % 64);
    }

    /// `push` for an event due now (`due_now`) or beyond the wheel's horizon (`overflow`).
    #[inline(never)]
    fn push_unscheduled_or_far(&mut self, time: u64, ev: E) {
        if time <= self.now {
            self.due_now.push_back(ev);
            return;
        }
        self.overflow_seq += 1;
        let seq = self.overflow_seq;
        self.overflow_push(Entry { time, seq, ev });
    }

    /// `push` into wheel bucket `b` in general: a new node if none is free, and the bucket's
    /// list kept sorted (after every node due at or before `time`).
    #[inline(never)]
    fn push_into_list(&mut self, b: usize, time: u64, ev: E) {
        let head = self.heads[b];
        let first = head == NIL || self.nodes[head as usize].time > time;
        let n = Node {
            time,
            ev,
            next: if first { head } else { NIL },
        };
        let i = self.free;
        let i = if i != NIL {
            self.free = self.nodes[i as usize].next;
            self.nodes[i as usize] = n;
            i
        } else {
            self.nodes.push(n);
            (self.nodes.len() - 1) as u32
        };
        self.wheel_len += 1;
        if first {
            self.heads[b] = i;
            self.occupied[b / 64] |= 1u64 << (b % 64);
            self.summary[b / 4096] |= 1u64 << ((b / 64) % 64);
            return;
        }
        let mut at = head;
        loop {
            let next = self.nodes[at as usize].next;
            if next == NIL || self.nodes[next as usize].time > time {
                self.nodes[i as usize].next = next;
                self.nodes[at as usize].next = i;
                return;
            }
            at = next;
        }
    }

    /// Removes the wheel's event due at `time` that `is_it` picks (the first such in its
    /// bucket), if the wheel holds one; false if not (it may be due now or beyond the wheel's
    /// horizon). The other events keep their order: a bucket's list stays sorted.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub fn remove_scheduled(&mut self, time: u64, is_it: impl Fn(&E) -> bool) -> bool {
        if time < self.now || (time >> SHIFT) - (self.now >> SHIFT) >= BUCKETS as u64 {
            return false;
        }
        let b = (time >> SHIFT) as usize & (BUCKETS - 1);
        let (mut prev, mut at) = (NIL, self.heads[b]);
        while at != NIL {
            let n = self.nodes[at as usize];
            if n.time > time {
                return false;
            }
            if n.time == time && is_it(&n.ev) {
                if prev == NIL {
                    self.unlink_head(b, at, n.next);
                } else {
                    self.nodes[prev as usize].next = n.next;
                    self.nodes[at as usize].next = self.free;
                    self.free = at;
                    self.wheel_len -= 1;
                }
                return true;
            }
            (prev, at) = (at, n.next);
        }
        false
    }

    /// The time of the next event, if any.
    pub fn peek_time(&self) -> Option<u64> {
        if !self.due_now.is_empty() {
            return Some(self.now);
        }
        let wheel = (self.wheel_len != 0)
            .then(|| self.nodes[self.heads[self.first_bucket()] as usize].time);
        let over = self.overflow.first().map(|o| o.time);
        match (wheel, over) {
            (Some(w), Some(o)) => Some(w.min(o)),
            (w, o) => w.or(o),
        }
    }

    /// Removes the next event and moves the clock to its time.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub fn pop(&mut self) -> Option<(u64, E)> {
        self.pop_until(u64::MAX)
    }

    /// Removes the next event if it is due at or before `limit`, moving the clock to its time.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub fn pop_until(&mut self, limit: u64) -> Option<(u64, E)> {
        // The usual case: the wheel's first event is before the overflow's.
        if self.wheel_len != 0 {
            let b = self.first_bucket();
            let node = self.heads[b];
            let n = self.nodes[node as usize];
            if n.time < self.overflow_next {
                if n.time > self.now && !self.due_now.is_empty() {
                    if self.now > limit {
                        return None;
                    }
                    return self.due_now.pop_front().map(|ev| (self.now, ev));
                }
                if n.time > limit {
                    return None;
                }
                self.unlink_head(b, node, n.next);
                self.now = n.time;
                return Some((n.time, n.ev));
            }
        }
        self.pop_until_slow(limit)
    }

    /// `pop_until` when the wheel is empty or the overflow's top comes first.
    #[inline(never)]
    fn pop_until_slow(&mut self, limit: u64) -> Option<(u64, E)> {
        // The next scheduled event: the wheel's first, unless the overflow's top is due no later.
        let mut bucket = None;
        let mut time = u64::MAX;
        if self.wheel_len != 0 {
            let b = self.first_bucket();
            time = self.nodes[self.heads[b] as usize].time;
            bucket = Some(b);
        }
        let from_overflow = !self.overflow.is_empty() && self.overflow_next <= time;
        if from_overflow {
            time = self.overflow_next;
        } else if bucket.is_none() {
            // Nothing scheduled.
            if self.now > limit {
                return None;
            }
            return self.due_now.pop_front().map(|ev| (self.now, ev));
        }
        if time > self.now && !self.due_now.is_empty() {
            if self.now > limit {
                return None;
            }
            return self.due_now.pop_front().map(|ev| (self.now, ev));
        }
        if time > limit {
            return None;
        }
        self.now = time;
        let ev = match bucket {
            Some(b) if !from_overflow => self.take_head(b),
            _ => self.overflow_pop().ev,
        };
        Some((time, ev))
    }

    /// Moves the clock forward to `t` (no event may be due before it).
    pub fn advance_to(&mut self, t: u64) {
        debug_assert!(self.peek_time().is_none_or(|n| n >= t) || t <= self.now);
        if t > self.now && self.due_now.is_empty() {
            self.now = t;
        }
    }

    /// The first non-empty bucket going round from the clock's (some bucket is non-empty).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn first_bucket(&self) -> usize {
        let start = (self.now >> SHIFT) as usize & (BUCKETS - 1);
        let wi = start / 64;
        let w = self.occupied[wi] & (!0u64 << (start % 64));
        if w != 0 {
            return wi * 64 + w.trailing_zeros() as usize;
        }
        self.first_occupied_after_word(wi)
    }

    /// The first non-empty bucket in the words after `wi` (going round), through the summary.
    fn first_occupied_after_word(&self, wi: usize) -> usize {
        let next_word = (wi + 1) % WORDS;
        let si = next_word / 64;
        let s = self.summary[si] & (!0u64 << (next_word % 64));
        let word = if s != 0 {
            si * 64 + s.trailing_zeros() as usize
        } else {
            (1..=SUMMARY)
                .map(|k| (si + k) % SUMMARY)
                .find(|&i| self.summary[i] != 0)
                .map(|i| i * 64 + self.summary[i].trailing_zeros() as usize)
                .expect("wheel_len > 0 but no bucket is occupied")
        };
        word * 64 + self.occupied[word].trailing_zeros() as usize
    }

    /// Unlinks and frees the first node of bucket `b` (non-empty).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn take_head(&mut self, b: usize) -> E {
        let node = self.heads[b];
        let n = self.nodes[node as usize];
        self.unlink_head(b, node, n.next);
        n.ev
    }

    /// Unlinks and frees `node`, the first of bucket `b`, followed by `next`.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn unlink_head(&mut self, b: usize, node: u32, next: u32) {
        self.heads[b] = next;
        if next == NIL {
            let w = &mut self.occupied[b / 64];
            *w &= !(1u64 << (b % 64));
            if *w == 0 {
                self.summary[b / 4096] &= !(1u64 << ((b / 64) % 64));
            }
        }
        self.nodes[node as usize].next = self.free;
        self.free = node;
        self.wheel_len -= 1;
    }

    fn overflow_push(&mut self, e: Entry<E>) {
        let h = &mut self.overflow;
        let mut i = h.len();
        h.push(e);
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if !e.before(&h[parent]) {
                break;
            }
            h[i] = h[parent];
            i = parent;
        }
        h[i] = e;
        self.overflow_next = h[0].time;
    }

    fn overflow_pop(&mut self) -> Entry<E> {
        let h = &mut self.overflow;
        let last = h.pop().expect("non-empty heap");
        let n = h.len();
        if n == 0 {
            self.overflow_next = u64::MAX;
            return last;
        }
        let top = h[0];
        // Sift `last` down from the root into the hole.
        let mut i = 0;
        loop {
            let first = ARITY * i + 1;
            if first >= n {
                break;
            }
            let end = (first + ARITY).min(n);
            let mut m = first;
            for c in first + 1..end {
                if h[c].before(&h[m]) {
                    m = c;
                }
            }
            if !h[m].before(&last) {
                break;
            }
            h[i] = h[m];
            i = m;
        }
        h[i] = last;
        self.overflow_next = h[0].time;
        top
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::Rng;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// The queue pops exactly what a std heap keyed on (time, push order) pops.
    #[test]
    fn same_order_as_a_heap_keyed_on_time_and_push_order() {
        for seed in 0..20 {
            let mut rng = Rng::new(seed);
            let mut q = EventQueue::new();
            let mut reference = BinaryHeap::new();
            let mut pushes = 0u64;
            let mut now = 0u64;
            let mut popped = 0;
            for step in 0..30_000u32 {
                // A burst of pushes: many at `now`, some ties in the future.
                let k = rng.below(4);
                for _ in 0..k {
                    // Ties now and later, the wheel's range, and past its horizon.
                    let d = match rng.below(6) {
                        0 => 0,
                        1 => rng.below(3),
                        2 => rng.below(1_000),
                        3 => rng.below((BUCKETS as u64) << SHIFT) / 3 * 3,
                        4 => (BUCKETS as u64 - 1 + rng.below(3)) << SHIFT,
                        _ => rng.below(4 << (SHIFT + 10)) / 5 * 5,
                    };
                    let t = now + d;
                    pushes += 1;
                    q.push(t, step);
                    reference.push(Reverse((t, pushes, step)));
                }
                if rng.below(3) == 0 {
                    let want = reference.pop().map(|Reverse((t, _, e))| (t, e));
                    assert_eq!(q.peek_time(), want.map(|w| w.0));
                    if let Some((t, _)) = want {
                        if t > now {
                            assert_eq!(q.pop_until(t - 1), None);
                        }
                    }
                    assert_eq!(
                        q.pop_until(want.map_or(0, |w| w.0)),
                        want,
                        "seed {seed} step {step}"
                    );
                    if let Some((t, _)) = want {
                        now = t;
                        popped += 1;
                    }
                }
                if rng.below(50) == 0 {
                    // step_until: jump the clock when nothing is due before the new time.
                    let t = now + rng.below(100);
                    if q.peek_time().is_none_or(|n| n > t) {
                        q.advance_to(t);
                        now = t;
                    }
                }
                assert_eq!(q.len(), reference.len());
            }
            assert!(popped > 1000);
            while let Some(Reverse((t, _, e))) = reference.pop() {
                assert_eq!(q.pop(), Some((t, e)));
            }
            assert_eq!(q.pop(), None);
        }
    }

    /// Removing events leaves the others in the same order; an event in the wheel is found,
    /// one due now or beyond the horizon is not (and stays).
    #[test]
    fn remove_scheduled_keeps_the_others_order() {
        for seed in 0..20 {
            let mut rng = Rng::new(seed);
            let mut q = EventQueue::new();
            // (time, push order, id): what is still queued.
            let mut reference: Vec<(u64, u64, u32)> = Vec::new();
            let mut now = 0u64;
            for step in 0..20_000u32 {
                for _ in 0..rng.below(3) {
                    let d = match rng.below(4) {
                        0 => 0,
                        1 => rng.below(40),
                        2 => rng.below(5_000),
                        _ => rng.below(2 << (SHIFT + 15)),
                    };
                    q.push(now + d, step);
                    reference.push((now + d, step as u64, step));
                }
                if rng.below(2) == 0 && !reference.is_empty() {
                    let i = rng.below(reference.len() as u64) as usize;
                    let (t, _, id) = reference[i];
                    let in_wheel = t > now && (t >> SHIFT) - (now >> SHIFT) < BUCKETS as u64;
                    let removed = q.remove_scheduled(t, |e| *e == id);
                    if removed {
                        reference.remove(i);
                    }
                    // Pushed past the horizon, an event may be in range now but in the overflow.
                    assert!(removed || !in_wheel || q.overflow.iter().any(|o| o.ev == id));
                    assert!(!removed || in_wheel || t == now);
                }
                if rng.below(2) == 0 {
                    reference.sort();
                    if !reference.is_empty() {
                        let (t, _, id) = reference.remove(0);
                        assert_eq!(q.pop(), Some((t, id)), "seed {seed} step {step}");
                        now = t;
                    }
                }
                assert_eq!(q.len(), reference.len());
            }
            reference.sort();
            for (t, _, id) in reference {
                assert_eq!(q.pop(), Some((t, id)));
            }
            assert_eq!(q.pop(), None);
        }
    }
}
