//! A fixed-width bitset cpumask with the kernel's iteration helpers.

use serde::{Deserialize, Serialize};

/// A set of CPU ids `0..nr_cpus`, one bit per CPU (like `struct cpumask`).
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CpuMask {
    words: Vec<u64>,
    nr_cpus: u32,
}

impl CpuMask {
    /// An empty mask able to hold `nr_cpus` CPUs.
    pub fn new(nr_cpus: u32) -> Self {
        CpuMask {
            words: vec![0; (nr_cpus as usize).div_ceil(64)],
            nr_cpus,
        }
    }

    /// A mask with every CPU `0..nr_cpus` set.
    pub fn full(nr_cpus: u32) -> Self {
        let mut m = Self::new(nr_cpus);
        for c in 0..nr_cpus {
            m.set(c);
        }
        m
    }

    /// The bits, 64 CPUs a word (CPU `c` is bit `c % 64` of word `c / 64`).
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }

    pub fn nr_cpus(&self) -> u32 {
        self.nr_cpus
    }

    pub fn set(&mut self, cpu: u32) {
        if cpu < self.nr_cpus {
            self.words[(cpu / 64) as usize] |= 1u64 << (cpu % 64);
        }
    }

    pub fn clear(&mut self, cpu: u32) {
        if cpu < self.nr_cpus {
            self.words[(cpu / 64) as usize] &= !(1u64 << (cpu % 64));
        }
    }

    pub fn test(&self, cpu: u32) -> bool {
        cpu < self.nr_cpus && self.words[(cpu / 64) as usize] & (1u64 << (cpu % 64)) != 0
    }

    pub fn clear_all(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }

    pub fn weight(&self) -> u32 {
        self.words.iter().map(|w| w.count_ones()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|w| *w == 0)
    }

    /// `self = a & b` (cpumask_and), reusing self's storage.
    pub fn assign_and(&mut self, a: &CpuMask, b: &CpuMask) {
        for ((d, x), y) in self.words.iter_mut().zip(&a.words).zip(&b.words) {
            *d = x & y;
        }
    }

    /// `self = self & !other` (cpumask_andnot).
    pub fn and_not(&mut self, other: &CpuMask) {
        for (d, y) in self.words.iter_mut().zip(&other.words) {
            *d &= !y;
        }
    }

    pub fn copy_from(&mut self, other: &CpuMask) {
        self.words.copy_from_slice(&other.words);
    }

    /// First set CPU at or after `from` (find_next_bit), or None.
    pub fn next_set(&self, from: u32) -> Option<u32> {
        if from >= self.nr_cpus {
            return None;
        }
        let mut wi = (from / 64) as usize;
        let mut w = self.words[wi] & (!0u64 << (from % 64));
        loop {
            if w != 0 {
                let c = wi as u32 * 64 + w.trailing_zeros();
                return (c < self.nr_cpus).then_some(c);
            }
            wi += 1;
            if wi >= self.words.len() {
                return None;
            }
            w = self.words[wi];
        }
    }

    pub fn first(&self) -> Option<u32> {
        self.next_set(0)
    }

    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        let mut next = self.next_set(0);
        std::iter::from_fn(move || {
            let c = next?;
            next = self.next_set(c + 1);
            Some(c)
        })
    }

    /// The CPUs of `for_each_cpu_wrap(cpu, mask, start)`: start, start+1, ... wrapping in id
    /// order, each set CPU once. Bits cleared during iteration are skipped when reached,
    /// as in the kernel (the caller re-tests membership; see [`WrapCursor`]).
    pub fn wrap_cursor(&self, start: u32) -> WrapCursor {
        let start = if start >= self.nr_cpus { 0 } else { start };
        WrapCursor {
            start,
            next: start,
            wrapped: false,
        }
    }

    /// `for_each_cpu_wrap(cpu, self, start)` up to the first CPU that is also in `other`:
    /// that CPU and how many CPUs of `self` come before it in the walk; None if there is none.
    /// Word at a time (the walk's answer without visiting each CPU); `start` past the end
    /// wraps to 0 as in [`CpuMask::wrap_cursor`].
    pub fn wrap_first_common(&self, other: &CpuMask, start: u32) -> Option<(u32, u32)> {
        self.wrap_first_common_or_weight(other, start).ok()
    }

    /// [`CpuMask::wrap_first_common`], or when there is none, the walk's length (the weight of
    /// `self`, counted on the way: the callers need it only then).
    #[inline]
    pub fn wrap_first_common_or_weight(
        &self,
        other: &CpuMask,
        start: u32,
    ) -> Result<(u32, u32), u32> {
        wrap_first_in(self.nr_cpus, |wi| self.words[wi], other, start)
    }

    /// The CPUs of `self & other` in `for_each_cpu_wrap` order from `start`, while `f` returns
    /// true (neither mask may change meanwhile).
    #[inline]
    pub fn for_each_wrap_and(&self, other: &CpuMask, start: u32, mut f: impl FnMut(u32) -> bool) {
        let start = if start >= self.nr_cpus { 0 } else { start };
        let (ws, bs) = ((start / 64) as usize, start % 64);
        let lo_of_ws = !0u64 << bs;
        let ranges = [(ws, self.words.len(), lo_of_ws), (0, ws + 1, !lo_of_ws)];
        for (from, to, first_mask) in ranges {
            for wi in from..to {
                let mut w = self.words[wi] & other.words[wi];
                if wi == ws {
                    w &= first_mask;
                }
                while w != 0 {
                    if !f(wi as u32 * 64 + w.trailing_zeros()) {
                        return;
                    }
                    w &= w - 1;
                }
            }
        }
    }

    pub fn from_cpus(nr_cpus: u32, cpus: impl IntoIterator<Item = u32>) -> Self {
        let mut m = Self::new(nr_cpus);
        for c in cpus {
            m.set(c);
        }
        m
    }
}

/// `for_each_cpu_wrap` from `start` over the mask whose word `wi` is `word(wi)` (of
/// `nr_cpus`), up to its first CPU in `other`: Ok((that CPU, how many come before it)), else
/// Err(how many it walked).
#[inline(always)]
fn wrap_first_in(
    nr_cpus: u32,
    word: impl Fn(usize) -> u64,
    other: &CpuMask,
    start: u32,
) -> Result<(u32, u32), u32> {
    let start = if start >= nr_cpus { 0 } else { start };
    let (ws, bs) = ((start / 64) as usize, start % 64);
    let mut before = 0u32;
    // From start to the end, then from 0 up to start: bits [lo, hi) of each word.
    let ranges = [(ws, other.words.len(), bs, 64), (0, ws + 1, 0, bs)];
    for (from, to, lo_of_ws, hi_of_ws) in ranges {
        for wi in from..to {
            let (lo, hi) = if wi == ws {
                (lo_of_ws, hi_of_ws)
            } else {
                (0, 64)
            };
            let w = word(wi) & range_mask(lo, hi);
            let common = w & other.words[wi];
            if common != 0 {
                let bit = common.trailing_zeros();
                before += count_in(w, lo, bit);
                return Ok((wi as u32 * 64 + bit, before));
            }
            before += count_in(w, lo, hi);
        }
    }
    Err(before)
}

/// Bits [lo, hi) of a word (lo <= hi <= 64).
#[inline(always)]
fn range_mask(lo: u32, hi: u32) -> u64 {
    let below_hi = if hi >= 64 { !0 } else { (1u64 << hi) - 1 };
    below_hi & !((1u64 << lo) - 1)
}

/// The set bits of `w` in [lo, hi): hi - lo when all are set, the usual case for an LLC's
/// allowed CPUs, without the popcount (a dozen instructions on the baseline x86-64 target).
#[inline(always)]
fn count_in(w: u64, lo: u32, hi: u32) -> u32 {
    let m = range_mask(lo, hi);
    if w & m == m {
        hi - lo
    } else {
        (w & m).count_ones()
    }
}

/// Iteration state of `for_each_cpu_wrap` (kernel `cpumask_next_wrap`). It reads the mask at
/// every step, so a mask shrunk during the loop (select_idle_core's `cpumask_andnot`) is seen.
#[derive(Clone, Copy, Debug)]
pub struct WrapCursor {
    start: u32,
    next: u32,
    wrapped: bool,
}

impl WrapCursor {
    pub fn next(&mut self, mask: &CpuMask) -> Option<u32> {
        if !self.wrapped {
            if let Some(c) = mask.next_set(self.next) {
                self.next = c + 1;
                return Some(c);
            }
            self.wrapped = true;
            self.next = 0;
        }
        let c = mask.next_set(self.next)?;
        if c >= self.start {
            return None;
        }
        self.next = c + 1;
        Some(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrap(mask: &CpuMask, start: u32) -> Vec<u32> {
        let mut cur = mask.wrap_cursor(start);
        std::iter::from_fn(|| cur.next(mask)).collect()
    }

    #[test]
    fn wrap_visits_each_set_cpu_once_starting_at_start() {
        let m = CpuMask::from_cpus(130, [1, 3, 64, 70, 129]);
        assert_eq!(wrap(&m, 65), vec![70, 129, 1, 3, 64]);
        assert_eq!(wrap(&m, 0), vec![1, 3, 64, 70, 129]);
        assert_eq!(wrap(&m, 129), vec![129, 1, 3, 64, 70]);
        // A start past the end wraps to 0, as cpumask_next_wrap does.
        assert_eq!(wrap(&m, 500), vec![1, 3, 64, 70, 129]);
    }

    #[test]
    fn cleared_bits_are_skipped_mid_walk() {
        let mut m = CpuMask::full(8);
        let mut cur = m.wrap_cursor(6);
        assert_eq!(cur.next(&m), Some(6));
        m.clear(7);
        m.clear(0);
        assert_eq!(cur.next(&m), Some(1));
    }

    #[test]
    fn word_at_a_time_walks_match_the_cursor() {
        // A small LCG (Knuth's MMIX constants): the kernel wing needs no PRNG of the simulator's.
        let mut state = 7u64;
        let mut below = |n: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        for n in [1u32, 8, 63, 64, 65, 112, 130, 256] {
            for _ in 0..200 {
                let a = CpuMask::from_cpus(n, (0..n).filter(|_| below(3) > 0));
                let b = CpuMask::from_cpus(n, (0..n).filter(|_| below(4) == 0));
                let start = below(n as u64 + 2) as u32;
                let walk = wrap(&a, start);
                let want = walk
                    .iter()
                    .position(|c| b.test(*c))
                    .map(|i| (walk[i], i as u32));
                assert_eq!(a.wrap_first_common(&b, start), want, "n {n} start {start}");
                assert_eq!(
                    a.wrap_first_common_or_weight(&b, start),
                    want.ok_or(a.weight()),
                    "n {n} start {start}"
                );
                let mut got = Vec::new();
                a.for_each_wrap_and(&b, start, |c| {
                    got.push(c);
                    got.len() < 5
                });
                let want: Vec<u32> = walk.into_iter().filter(|c| b.test(*c)).take(5).collect();
                assert_eq!(got, want, "n {n} start {start}");
            }
        }
    }

    #[test]
    fn weight_and_ops() {
        let a = CpuMask::from_cpus(100, [1, 2, 3, 99]);
        let b = CpuMask::from_cpus(100, [2, 99]);
        let mut c = CpuMask::new(100);
        c.assign_and(&a, &b);
        assert_eq!(c.iter().collect::<Vec<_>>(), vec![2, 99]);
        let mut d = a.clone();
        d.and_not(&b);
        assert_eq!(d.weight(), 2);
        assert!(!d.test(99));
    }
}
