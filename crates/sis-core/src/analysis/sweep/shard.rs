//! Shards: deterministic slices of a sweep's point list for batch schedulers, and their merge.
//!
//! Shard `K/N` (1-based) holds the points `i` with `i % N == K - 1`: round-robin, so every
//! shard gets a mix of presets, loads and seeds (a contiguous slice would hand one shard all
//! the expensive high loads). A shard file carries the whole [`SweepSpec`], so [`merge`] can
//! check that its inputs come from one sweep and rebuild the rows in point order; the merged
//! output is then formatted by the same functions as an unsharded run, byte for byte.

use super::{SweepRow, SweepSpec};
use crate::error::InputError;
use crate::sim::scenario::Scenario;
use serde::{Deserialize, Serialize};

/// The version of the shard file layout.
pub const SHARD_FORMAT: u32 = 1;

/// The most shards a sweep can be split into.
pub const MAX_SHARDS: u32 = 1_000_000;

const SHARD_EXPECTED: &str =
    "K/N with 1 <= K <= N <= 1000000, like 1/4 (shards are numbered from 1)";

/// Shard `k` of `n`, 1-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ShardId {
    pub k: u32,
    pub n: u32,
}

impl ShardId {
    /// `K/N`, as `--shard` takes it.
    pub fn parse(text: &str) -> Result<ShardId, InputError> {
        let bad = || InputError::range("shard", text.trim(), SHARD_EXPECTED);
        let (k, n) = text.trim().split_once('/').ok_or_else(bad)?;
        let k: u32 = k.trim().parse().map_err(|_| bad())?;
        let n: u32 = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || k > n || n > MAX_SHARDS {
            return Err(bad());
        }
        Ok(ShardId { k, n })
    }

    /// The point indices of this shard in a sweep of `total` points, ascending. Shards with
    /// `N` larger than the sweep hold nothing past its end (they may be empty).
    pub fn indices(&self, total: usize) -> Vec<usize> {
        (self.k as usize - 1..total)
            .step_by(self.n as usize)
            .collect()
    }
}

impl std::fmt::Display for ShardId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// This shard's points of `spec`: `(index in SweepSpec::points, scenario)`.
pub fn shard_points(spec: &SweepSpec, id: ShardId) -> Vec<(usize, Scenario)> {
    let all = spec.points();
    id.indices(all.len())
        .into_iter()
        .map(|i| (i, all[i].clone()))
        .collect()
}

/// One run of a shard file: its point index and the row's fields.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardRow {
    pub point: usize,
    pub preset: String,
    pub load: u32,
    pub report: crate::sim::engine::RunReport,
}

impl ShardRow {
    pub fn row(&self) -> SweepRow {
        SweepRow {
            preset: self.preset.clone(),
            load: self.load,
            report: self.report.clone(),
        }
    }
}

/// What `sis sweep ... --shard K/N` writes (one line of JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardFile {
    /// [`SHARD_FORMAT`]; also what tells a shard file from other JSON.
    pub sis_sweep_shard: u32,
    /// The sis-core version that ran it: shards of different versions are not merged.
    pub sis_core: String,
    /// `K/N`.
    pub shard: String,
    /// Points in the whole sweep.
    pub points: usize,
    pub sweep: SweepSpec,
    pub rows: Vec<ShardRow>,
}

impl ShardFile {
    /// The shard file of `rows` (point index and result, any order) for shard `id` of `spec`.
    pub fn new(spec: &SweepSpec, id: ShardId, mut rows: Vec<(usize, SweepRow)>) -> Self {
        rows.sort_by_key(|(i, _)| *i);
        ShardFile {
            sis_sweep_shard: SHARD_FORMAT,
            sis_core: env!("CARGO_PKG_VERSION").to_string(),
            shard: id.to_string(),
            points: spec.point_count(),
            sweep: spec.clone(),
            rows: rows
                .into_iter()
                .map(|(point, row)| ShardRow {
                    point,
                    preset: row.preset,
                    load: row.load,
                    report: row.report,
                })
                .collect(),
        }
    }

    /// One line of JSON and a newline.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default() + "\n"
    }

    /// A shard file's text; errors name the file.
    pub fn parse(name: &str, text: &str) -> Result<ShardFile, InputError> {
        // A first pass reads only the format key (skipping the rest), so that other JSON gets
        // a clear error; the second builds the file without an intermediate `Value`.
        #[derive(Deserialize)]
        struct Probe {
            sis_sweep_shard: Option<serde_json::Value>,
        }
        let probe: Probe = serde_json::from_str(text).map_err(|e| {
            InputError::range(
                "file",
                name,
                &format!("a shard file written by sis sweep ... --shard K/N ({e})"),
            )
        })?;
        match probe.sis_sweep_shard.as_ref().map(|v| v.as_u64()) {
            Some(Some(f)) if f == u64::from(SHARD_FORMAT) => {}
            Some(f) => {
                return Err(InputError::range(
                    "file",
                    name,
                    &format!(
                        "a shard file of format {SHARD_FORMAT} (this one has format {}; merge with the sis that wrote it)",
                        f.map(|f| f.to_string()).unwrap_or_else(|| "?".into())
                    ),
                ))
            }
            None => {
                return Err(InputError::range(
                    "file",
                    name,
                    "a shard file written by sis sweep ... --shard K/N (no sis_sweep_shard key)",
                ))
            }
        }
        serde_json::from_str(text)
            .map_err(|e| InputError::range("file", name, &format!("a valid shard file ({e})")))
    }
}

/// What differs between two sweeps, for the error message.
fn difference(a: &SweepSpec, b: &SweepSpec) -> String {
    if a.presets != b.presets {
        return format!("presets {} vs {}", a.presets.join(","), b.presets.join(","));
    }
    if a.loads != b.loads {
        let j = |l: &[u32]| l.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
        return format!("loads {} vs {}", j(&a.loads), j(&b.loads));
    }
    if a.seed_list() != b.seed_list() {
        return format!(
            "seeds {} vs {}",
            super::seeds_text(&a.seed_list()),
            super::seeds_text(&b.seed_list())
        );
    }
    if a.imbalance_pct != b.imbalance_pct {
        return format!(
            "imbalance_pct {:?} vs {:?}",
            a.imbalance_pct, b.imbalance_pct
        );
    }
    let (pa, pb) = (a.base.to_pairs(), b.base.to_pairs());
    for ((k, va), (_, vb)) in pa.iter().zip(&pb) {
        if va != vb {
            return format!("{k} {va} vs {vb}");
        }
    }
    "the scenario".to_string()
}

/// A list of names for a message, shortened past a few.
fn names(files: &[&str]) -> String {
    if files.len() <= 4 {
        files.join(", ")
    } else {
        format!("{}, ... ({} files)", files[..3].join(", "), files.len())
    }
}

/// Combines shard files (`(name, file)`, any order) into the sweep and its rows in point
/// order. Every file must come from the same sweep, sis-core version and `N`, hold exactly
/// its slice of the points, and every shard `1..=N` must be there exactly once; otherwise
/// the error names the file (field `file`) or the missing shards (field `files`).
pub fn merge(files: Vec<(String, ShardFile)>) -> Result<(SweepSpec, Vec<SweepRow>), InputError> {
    let Some((name0, first)) = files.first() else {
        return Err(InputError::range(
            "files",
            "",
            "one or more shard files written by sis sweep ... --shard K/N",
        ));
    };
    let spec = first.sweep.clone();
    spec.validate()
        .map_err(|e| InputError::range("file", name0, &format!("a valid sweep ({e})")))?;
    let all = spec.points();
    let id0 = ShardId::parse(&first.shard)
        .map_err(|e| InputError::range("file", name0, &format!("a valid shard ({e})")))?;
    let mut slots: Vec<Option<SweepRow>> = vec![None; all.len()];
    let mut seen: Vec<Option<&str>> = vec![None; id0.n as usize];
    for (name, f) in &files {
        let bad = |why: String| InputError::range("file", name, &why);
        let id = ShardId::parse(&f.shard).map_err(|e| bad(format!("a valid shard ({e})")))?;
        if f.sis_core != first.sis_core {
            return Err(bad(format!(
                "shards from one sis-core version (this is {}, {name0} is {})",
                f.sis_core, first.sis_core
            )));
        }
        if f.sweep != spec {
            return Err(bad(format!(
                "a shard of the same sweep as {name0} (they differ in {})",
                difference(&f.sweep, &spec)
            )));
        }
        if id.n != id0.n {
            return Err(bad(format!(
                "a shard of the same split as {name0} (this is {id}, that one {id0})"
            )));
        }
        if f.points != all.len() {
            return Err(bad(format!(
                "a sweep of {} points, as its spec gives (it says {})",
                all.len(),
                f.points
            )));
        }
        let slot = &mut seen[id.k as usize - 1];
        if let Some(other) = slot {
            return Err(bad(format!("each shard once (shard {id} is also {other})")));
        }
        *slot = Some(name);
        let want = id.indices(all.len());
        let got: Vec<usize> = f.rows.iter().map(|r| r.point).collect();
        if got != want {
            return Err(bad(format!(
                "the {} points of shard {id} in order (it holds {} rows{})",
                want.len(),
                got.len(),
                got.iter()
                    .zip(&want)
                    .find(|(g, w)| g != w)
                    .map(|(g, w)| format!("; point {g} where {w} belongs"))
                    .unwrap_or_default()
            )));
        }
        for r in &f.rows {
            let p = &all[r.point];
            let entry = spec.entry_of_point(r.point);
            let sc = &r.report.scenario;
            if r.preset != entry
                || r.load != p.load
                || sc.preset != p.preset
                || sc.nr_expr != p.nr_expr
                || sc.load != p.load
                || sc.seed != p.seed
            {
                return Err(bad(format!(
                    "point {} to be preset {entry} load {} seed {} (it is preset {} load {} seed {})",
                    r.point, p.load, p.seed, r.preset, sc.load, sc.seed
                )));
            }
        }
    }
    let missing: Vec<String> = seen
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_none())
        .map(|(k, _)| format!("{}/{}", k + 1, id0.n))
        .collect();
    if !missing.is_empty() {
        let given: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        let shown = if missing.len() > 5 {
            format!(
                "{}, ... ({} shards)",
                missing[..5].join(", "),
                missing.len()
            )
        } else {
            missing.join(", ")
        };
        return Err(InputError::range(
            "files",
            names(&given),
            &format!(
                "all {} shards of the sweep (missing {shown}; sis sweep ... --shard K/{} writes shard K)",
                id0.n, id0.n
            ),
        ));
    }
    let first_name = name0.clone();
    // Every shard once, each with exactly its points: every slot gets its row (moved, not
    // copied: a merge holds each report once).
    for (_, f) in files {
        for r in f.rows {
            slots[r.point] = Some(SweepRow {
                preset: r.preset,
                load: r.load,
                report: r.report,
            });
        }
    }
    let rows: Option<Vec<SweepRow>> = slots.into_iter().collect();
    let rows =
        rows.ok_or_else(|| InputError::range("files", &first_name, "every point of the sweep"))?;
    Ok((spec, rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_ids_parse_and_slice_round_robin() {
        assert_eq!(ShardId::parse("2/4").unwrap(), ShardId { k: 2, n: 4 });
        assert_eq!(ShardId::parse(" 1/1 ").unwrap(), ShardId { k: 1, n: 1 });
        for bad in ["0/4", "5/4", "1/0", "4", "a/b", "1/1000001", "", "-1/4"] {
            let e = ShardId::parse(bad).unwrap_err();
            assert_eq!(e.field, "shard", "{bad}");
            assert!(e.expected.contains("1 <= K <= N"), "{e}");
        }
        let id = ShardId { k: 2, n: 3 };
        assert_eq!(id.indices(8), [1, 4, 7]);
        assert_eq!(ShardId { k: 5, n: 5 }.indices(3), Vec::<usize>::new());
        // Every point in exactly one shard, for any N.
        for n in 1..=7u32 {
            let mut all: Vec<usize> = (1..=n).flat_map(|k| ShardId { k, n }.indices(10)).collect();
            all.sort_unstable();
            assert_eq!(all, (0..10).collect::<Vec<_>>(), "n = {n}");
        }
    }
}
