//! The engine's event queue: events pop in time order, and events due at the same time pop in
//! the order they were pushed (FIFO), exactly as a heap keyed on `(time, push sequence)` would.
//!
//! Three parts, no allocation once warmed up, no hashing, no floating point, nothing that
//! depends on `usize`'s width:
//! - `due_now`: a FIFO of events pushed for the current time (`time == now`; most of them are
//!   zero-delay dispatches). They need no ordering work at all.
//! - a timing wheel of [`BUCKETS`] buckets of 2^[`SHIFT`] ns for events due within its horizon
//!   (~0.5 ms: the wake-up path's delays are µs), with a bitmap of non-empty buckets. A bucket
//!   is a short singly linked list of nodes in one slab (compact: the whole wheel stays in
//!   cache); the earliest `(time, seq)` in it is found by walking it.
//! - `overflow`: a 4-ary min-heap for events beyond the horizon (balance, long sleeps).
//!
//! Wheel and overflow events carry `seq`, a u64 count of pushes, and the next one is the least
//! `(time, seq)` of the two. Why `due_now` keeps push order: a scheduled event due at `now` was
//! pushed while the clock was still before `now`, so before every event in `due_now` (pushed
//! once the clock reached `now`); and the clock only moves on once `due_now` is empty. So popping
//! scheduled events due at `now` first, then `due_now` in FIFO order, then the next scheduled
//! event, is exactly the `(time, push order)` order.
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

#[derive(Clone, Copy, Debug)]
struct Entry<E> {
    time: u64,
    seq: u64,
    ev: E,
}

impl<E> Entry<E> {
    #[inline(always)]
    fn before(&self, other: &Self) -> bool {
        self.time < other.time || (self.time == other.time && self.seq < other.seq)
    }
}

/// A wheel event in the slab, linked to the next one of its bucket (or of the free list).
#[derive(Clone, Copy, Debug)]
struct Node<E> {
    e: Entry<E>,
    next: u32,
}

/// The next scheduled (wheel or overflow) event: its key and where it is.
#[derive(Clone, Copy, Debug)]
struct Next {
    time: u64,
    seq: u64,
    /// The wheel bucket and node, or `bucket == NIL` for the overflow heap's top.
    bucket: u32,
    node: u32,
}

impl Next {
    #[inline(always)]
    fn before<E>(&self, e: &Entry<E>) -> bool {
        self.time < e.time || (self.time == e.time && self.seq < e.seq)
    }
}

/// A deterministic time-ordered event queue with FIFO order among equal times.
#[derive(Clone, Debug)]
pub(crate) struct EventQueue<E> {
    /// First node of each bucket's list.
    heads: Vec<u32>,
    occupied: Vec<u64>,
    summary: [u64; SUMMARY],
    nodes: Vec<Node<E>>,
    free: u32,
    wheel_len: usize,
    overflow: Vec<Entry<E>>,
    due_now: VecDeque<E>,
    now: u64,
    seq: u64,
    /// The earliest scheduled event when `next_known` (None: there is none). Pushes keep it
    /// exact; taking an event forgets it.
    next: Option<Next>,
    next_known: bool,
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heads: vec![NIL; BUCKETS],
            occupied: vec![0; WORDS],
            summary: [0; SUMMARY],
            nodes: Vec::with_capacity(512),
            free: NIL,
            wheel_len: 0,
            overflow: Vec::with_capacity(64),
            due_now: VecDeque::with_capacity(64),
            now: 0,
            seq: 0,
            next: None,
            next_known: true,
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.wheel_len + self.overflow.len() + self.due_now.len()
    }

    /// Schedules `ev` at `time` (never before the clock: an earlier time is treated as now).
    #[inline]
    pub fn push(&mut self, time: u64, ev: E) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        if time <= self.now {
            self.due_now.push_back(ev);
            return;
        }
        self.seq += 1;
        let e = Entry {
            time,
            seq: self.seq,
            ev,
        };
        let (bucket, node) = if (time >> SHIFT) - (self.now >> SHIFT) < BUCKETS as u64 {
            let b = (time >> SHIFT) as usize & (BUCKETS - 1);
            let n = Node {
                e,
                next: self.heads[b],
            };
            let i = if self.free != NIL {
                let i = self.free;
                self.free = self.nodes[i as usize].next;
                self.nodes[i as usize] = n;
                i
            } else {
                self.nodes.push(n);
                (self.nodes.len() - 1) as u32
            };
            self.heads[b] = i;
            self.occupied[b / 64] |= 1u64 << (b % 64);
            self.summary[b / 4096] |= 1u64 << ((b / 64) % 64);
            self.wheel_len += 1;
            (b as u32, i)
        } else {
            self.overflow_push(e);
            (NIL, NIL)
        };
        // A push moves no other wheel node, and the overflow top only changes to `e` if `e`
        // is earlier than it: the known next event stays exact.
        if self.next_known && self.next.is_none_or(|n| !n.before(&e)) {
            self.next = Some(Next {
                time,
                seq: e.seq,
                bucket,
                node,
            });
        }
    }

    /// The time of the next event, if any.
    pub fn peek_time(&mut self) -> Option<u64> {
        if !self.due_now.is_empty() {
            return Some(self.now);
        }
        self.next_scheduled().map(|n| n.time)
    }

    /// Removes the next event and moves the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(u64, E)> {
        self.pop_until(u64::MAX)
    }

    /// Removes the next event if it is due at or before `limit`, moving the clock to its time.
    #[inline]
    pub fn pop_until(&mut self, limit: u64) -> Option<(u64, E)> {
        if let Some(next) = self.next_scheduled() {
            if next.time <= self.now || self.due_now.is_empty() {
                if next.time > limit {
                    return None;
                }
                let e = self.take(next);
                self.now = e.time;
                return Some((e.time, e.ev));
            }
        }
        if self.now > limit {
            return None;
        }
        self.due_now.pop_front().map(|ev| (self.now, ev))
    }

    /// Moves the clock forward to `t` (no event may be due before it).
    pub fn advance_to(&mut self, t: u64) {
        debug_assert!(self.peek_time().is_none_or(|n| n >= t) || t <= self.now);
        if t > self.now && self.due_now.is_empty() {
            self.now = t;
        }
    }

    /// The earliest wheel or overflow event.
    #[inline]
    fn next_scheduled(&mut self) -> Option<Next> {
        if !self.next_known {
            self.next = self.find_next();
            self.next_known = true;
        }
        self.next
    }

    fn find_next(&self) -> Option<Next> {
        let wheel = self.wheel_min();
        let over = self.overflow.first().map(|o| Next {
            time: o.time,
            seq: o.seq,
            bucket: NIL,
            node: NIL,
        });
        match (wheel, over) {
            (Some(w), Some(o)) => Some(if w.time < o.time || (w.time == o.time && w.seq < o.seq) {
                w
            } else {
                o
            }),
            (w, o) => w.or(o),
        }
    }

    #[inline]
    fn wheel_min(&self) -> Option<Next> {
        if self.wheel_len == 0 {
            return None;
        }
        let bucket = self.first_occupied_from((self.now >> SHIFT) as usize & (BUCKETS - 1));
        let mut best = self.heads[bucket];
        let mut i = self.nodes[best as usize].next;
        while i != NIL {
            let n = &self.nodes[i as usize];
            if n.e.before(&self.nodes[best as usize].e) {
                best = i;
            }
            i = n.next;
        }
        let e = &self.nodes[best as usize].e;
        Some(Next {
            time: e.time,
            seq: e.seq,
            bucket: bucket as u32,
            node: best,
        })
    }

    /// The first non-empty bucket going round from `start` (some bucket is non-empty): in
    /// `start`'s word, else the first non-zero word after it found through the summary.
    #[inline]
    fn first_occupied_from(&self, start: usize) -> usize {
        let wi = start / 64;
        let w = self.occupied[wi] & (!0u64 << (start % 64));
        if w != 0 {
            return wi * 64 + w.trailing_zeros() as usize;
        }
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

    #[inline]
    fn take(&mut self, next: Next) -> Entry<E> {
        self.next_known = false;
        if next.bucket == NIL {
            return self.overflow_pop();
        }
        let b = next.bucket as usize;
        let node = next.node;
        let after = self.nodes[node as usize].next;
        if self.heads[b] == node {
            self.heads[b] = after;
            if after == NIL {
                let w = &mut self.occupied[b / 64];
                *w &= !(1u64 << (b % 64));
                if *w == 0 {
                    self.summary[b / 4096] &= !(1u64 << ((b / 64) % 64));
                }
            }
        } else {
            let mut i = self.heads[b];
            while self.nodes[i as usize].next != node {
                i = self.nodes[i as usize].next;
            }
            self.nodes[i as usize].next = after;
        }
        let e = self.nodes[node as usize].e;
        self.nodes[node as usize].next = self.free;
        self.free = node;
        self.wheel_len -= 1;
        e
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
    }

    fn overflow_pop(&mut self) -> Entry<E> {
        let h = &mut self.overflow;
        let last = h.pop().expect("non-empty heap");
        let n = h.len();
        if n == 0 {
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
        top
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
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
}
