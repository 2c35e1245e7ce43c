//! A fixed-algorithm PRNG (xoshiro256**, seeded by splitmix64): the same u64 seed gives the
//! same stream natively and in wasm. Never `usize` draws.

#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        let mut x = seed;
        Rng {
            s: [
                splitmix64(&mut x),
                splitmix64(&mut x),
                splitmix64(&mut x),
                splitmix64(&mut x),
            ],
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in `0..n` (n > 0) by multiply-shift; n = 0 gives 0.
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// An exponentially distributed duration with the given mean, in integer ns.
    /// Uses the integer inverse-CDF on a 2^-32 grid so it is identical on every platform.
    pub fn exp_ns(&mut self, mean_ns: u64) -> u64 {
        if mean_ns == 0 {
            return 0;
        }
        // -ln(u) with u in (0,1], computed with basic IEEE operations only (see `ln_det`),
        // so that native and wasm give the same bits.
        let u = ((self.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64;
        let v = -ln_det(u) * mean_ns as f64;
        if v >= (mean_ns as f64) * 40.0 {
            mean_ns * 40
        } else {
            v as u64
        }
    }

    /// Uniform jitter in `[mean - mean/2, mean + mean/2]`.
    pub fn around(&mut self, mean_ns: u64) -> u64 {
        let half = mean_ns / 2;
        mean_ns - half + self.below(2 * half + 1)
    }
}

/// Natural log from +, -, *, / only (platform libm `ln` may differ in the last bit between
/// native and wasm). x = m * 2^e with m in [1,2); ln m = 2 atanh((m-1)/(m+1)).
pub fn ln_det(x: f64) -> f64 {
    if x <= 0.0 {
        return f64::NEG_INFINITY;
    }
    let bits = x.to_bits();
    let mut e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if e == -1023 {
        // subnormal: not reachable from exp_ns (u >= 2^-53) but keep it total
        return ln_det(x * 4503599627370496.0) - 36.04365338911715;
    }
    if m > std::f64::consts::SQRT_2 {
        m /= 2.0;
        e += 1;
    }
    let t = (m - 1.0) / (m + 1.0);
    let t2 = t * t;
    let mut term = t;
    let mut sum = 0.0;
    let mut k = 1.0;
    while k < 60.0 {
        sum += term / k;
        term *= t2;
        k += 2.0;
    }
    2.0 * sum + e as f64 * std::f64::consts::LN_2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_different_seed_differs() {
        let a: Vec<u64> = {
            let mut r = Rng::new(7);
            (0..4).map(|_| r.next_u64()).collect()
        };
        let b: Vec<u64> = {
            let mut r = Rng::new(7);
            (0..4).map(|_| r.next_u64()).collect()
        };
        let c: Vec<u64> = {
            let mut r = Rng::new(8);
            (0..4).map(|_| r.next_u64()).collect()
        };
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn ln_det_matches_ln() {
        for x in [1e-16, 0.001, 0.3, 0.5, 0.7, 0.99, 1.0] {
            assert!((ln_det(x) - f64::ln(x)).abs() < 1e-12, "{x}");
        }
    }

    #[test]
    fn below_stays_in_range() {
        let mut r = Rng::new(1);
        for n in 1..200 {
            assert!(r.below(n) < n);
        }
        assert_eq!(r.below(0), 0);
    }
}
