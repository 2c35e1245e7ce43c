//! Where the CPU view's labels go so that none collides: the CPU numbers under the bars
//! (thinned to what fits, the marked CPUs always labelled) and the W/P/T role chips over them
//! (pushed apart, each keeping a leader to its bar). Pure, tested natively.

/// A CPU number's width at the view's 11 px font, px (digits are ~6.2 px wide).
pub fn id_width(cpu: u32) -> f64 {
    let digits = cpu.checked_ilog10().unwrap_or(0) + 1;
    digits as f64 * 6.5 + 6.0
}

/// The CPUs whose numbers are drawn under one row of bars. `row` holds each CPU of the row
/// with its bar's centre x (any order), `bar_w` the bars' width. The `marked` CPUs of the row are labelled whatever the crowding;
/// the others are tried at every k-th CPU id (k the smallest of 1, 2, 4, 5, 8, 10, 16, 20...
/// whose pitch fits the widest number), and kept where they do not touch a label already
/// placed. Returns (cpu, centre x) in the order placed (marked first).
pub fn thin_ids(row: &[(u32, f64)], bar_w: f64, marked: &[u32]) -> Vec<(u32, f64)> {
    let mut placed: Vec<(u32, f64)> = Vec::new();
    let free = |placed: &[(u32, f64)], cpu: u32, x: f64| {
        placed
            .iter()
            .all(|&(c, px)| c != cpu && (px - x).abs() >= (id_width(c) + id_width(cpu)) / 2.0)
    };
    // The marked ones first, pushed apart from each other when their bars are close.
    for &(cpu, x) in row.iter().filter(|(c, _)| marked.contains(c)) {
        if placed.iter().all(|p| p.0 != cpu) {
            let at = placed.iter().position(|p| p.1 > x).unwrap_or(placed.len());
            placed.insert(at, (cpu, x));
        }
    }
    let w = placed.iter().map(|&(c, _)| id_width(c)).fold(0.0, f64::max);
    let (lo, hi) = row
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p.1), hi.max(p.1))
        });
    let want: Vec<f64> = placed.iter().map(|p| p.1).collect();
    for (p, x) in placed
        .iter_mut()
        .zip(place_apart(&want, w, 0.0, lo - w, hi + w))
    {
        p.1 = x;
    }
    // Ids k apart are at least k bars apart.
    let pitch = if row.len() > 1 {
        bar_w.max(0.5)
    } else {
        f64::INFINITY
    };
    let widest = row.iter().map(|&(c, _)| id_width(c)).fold(0.0, f64::max);
    let k = [
        1u32, 2, 4, 5, 8, 10, 16, 20, 32, 40, 50, 64, 100, 128, 200, 256, 500, 1000,
    ]
    .into_iter()
    .find(|&k| k as f64 * pitch >= widest)
    .unwrap_or(1024);
    for &(cpu, x) in row.iter().filter(|(c, _)| c % k == 0) {
        if free(&placed, cpu, x) {
            placed.push((cpu, x));
        }
    }
    placed
}

/// Centres for boxes of width `w`, wanted at `want` (ascending), kept `gap` apart and inside
/// `[lo, hi]`: each as near its wish as the ones before allow, then pulled back from `hi`.
/// (When they cannot all fit, the last ones overlap at `lo`; four chips always fit a view.)
pub fn place_apart(want: &[f64], w: f64, gap: f64, lo: f64, hi: f64) -> Vec<f64> {
    let mut c: Vec<f64> = Vec::with_capacity(want.len());
    for &x in want {
        let min = c.last().map_or(lo + w / 2.0, |p| p + w + gap);
        c.push(x.max(min));
    }
    let mut max = hi - w / 2.0;
    for x in c.iter_mut().rev() {
        *x = x.min(max).max(lo + w / 2.0);
        max = *x - w - gap;
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(n: u32, pitch: f64) -> Vec<(u32, f64)> {
        (0..n).map(|c| (c, 10.0 + c as f64 * pitch)).collect()
    }

    fn assert_apart(placed: &[(u32, f64)]) {
        for (i, a) in placed.iter().enumerate() {
            for b in &placed[i + 1..] {
                let need = (id_width(a.0) + id_width(b.0)) / 2.0;
                assert!((a.1 - b.1).abs() >= need, "{a:?} and {b:?} overlap");
            }
        }
    }

    #[test]
    fn wide_bars_label_every_cpu() {
        let p = thin_ids(&row(16, 40.0), 40.0, &[]);
        assert_eq!(p.len(), 16);
    }

    #[test]
    fn a_crowded_row_keeps_the_marked_cpus_and_thins_the_rest_without_overlap() {
        // Issue 27: at 112 CPUs the axis had no numbers, so "-> CPU 75" could not be found.
        for pitch in [4.0, 6.5, 9.0, 13.0] {
            let r = row(112, pitch);
            let p = thin_ids(&r, pitch, &[75, 40, 41]);
            for m in [75, 40, 41] {
                assert!(p.iter().any(|x| x.0 == m), "pitch {pitch}: {m} unlabelled");
            }
            assert_apart(&p);
            assert!(p.len() >= 4, "pitch {pitch}: only {p:?}");
            assert!(
                p.iter().any(|x| x.0 == 0),
                "pitch {pitch}: the axis starts at 0"
            );
        }
    }

    #[test]
    fn chips_wanted_on_one_spot_or_close_by_never_overlap() {
        // W, P and T on one CPU, and on neighbouring 4 px bars.
        for want in [
            vec![100.0, 100.0, 100.0],
            vec![100.0, 104.0, 108.0],
            vec![2.0, 3.0],
        ] {
            let c = place_apart(&want, 15.0, 2.0, 0.0, 400.0);
            for w in c.windows(2) {
                assert!(w[1] - w[0] >= 17.0 - 1e-9, "{c:?}");
            }
            assert!(c[0] >= 7.5 && *c.last().unwrap() <= 392.5, "{c:?}");
        }
        let c = place_apart(&[395.0, 399.0], 15.0, 2.0, 0.0, 400.0);
        assert_eq!(c, vec![375.5, 392.5]);
    }
}
