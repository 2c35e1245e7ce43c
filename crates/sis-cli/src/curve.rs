//! `sis curve`: SIS_UTIL's nr_scan over the sum of util_avg (seed 000's tables).

use crate::args::field_help;
use crate::format_of;
use clap::Args;
use serde::Serialize;
use sis_core::kernel::nr_expr::Inputs as NrExprInputs;
use sis_core::kernel::throttle::{update_idle_cpu_scan, SCHED_CAPACITY_SCALE};
use sis_core::text::Text;
use sis_core::{InputError, Scenario};

#[derive(Args, Debug)]
pub struct CurveArgs {
    #[arg(long, value_name = "W", allow_hyphen_values = true,
          help = field_help("llc_weight", "required"))]
    llc_weight: Option<String>,
    #[arg(long, value_name = "P", allow_hyphen_values = true,
          help = field_help("imbalance_pct", "default: 117"))]
    imbalance_pct: Option<String>,
    /// `percent`: util_pct 0..=100 with sum_util = floor(util_pct * W * 1024 / 100);
    /// `all`: every integer sum_util 0..=W*1024, util_pct = 100 * sum_util / (W * 1024)
    /// truncated to 2 decimals [default: percent]
    #[arg(long, value_name = "percent|all", allow_hyphen_values = true)]
    points: Option<String>,
    /// table, csv or json [default: table]
    #[arg(long, value_name = "FORMAT", allow_hyphen_values = true)]
    format: Option<String>,
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true,
          help = field_help("nr_expr", "default: none; given, a column beside nr_scan"))]
    nr_expr: Option<String>,
}

/// The util percents of the seed's tables.
const SEED_PCTS: [u64; 11] = [0, 5, 15, 25, 35, 45, 55, 65, 75, 85, 86];

#[derive(Serialize)]
struct Point {
    sum_util: u64,
    /// percent mode: the integer percent; all mode: hundredths, truncated.
    #[serde(skip)]
    pct_x100: u64,
    util_pct: f64,
    nr_scan: u32,
    /// The user's rule at this sum_util (`--nr-expr`).
    #[serde(skip_serializing_if = "Option::is_none")]
    nr_expr: Option<u32>,
}

impl Point {
    fn pct_text(&self, all: bool) -> String {
        if all {
            format!("{}.{:02}", self.pct_x100 / 100, self.pct_x100 % 100)
        } else {
            (self.pct_x100 / 100).to_string()
        }
    }
}

#[derive(Serialize)]
struct CurveJson<'a> {
    llc_weight: u32,
    imbalance_pct: u32,
    points: &'a str,
    curve: &'a [Point],
}

pub fn main(a: &CurveArgs) -> Result<String, InputError> {
    // Every value given is checked before a missing required flag is reported, so a typo in
    // one flag is named even when another is missing. The one validation path: the
    // scenario's own fields.
    let mut sc = Scenario::default();
    if let Some(p) = &a.imbalance_pct {
        sc.set_field("imbalance_pct", p)?;
    }
    let mode = match a.points.as_deref() {
        None | Some("percent") => "percent",
        Some("all") => "all",
        Some(other) => return Err(InputError::unknown("points", other, ["percent", "all"])),
    };
    let format = format_of(&a.format, &["table", "csv", "json"])?;
    let w = a.llc_weight.as_deref().ok_or_else(|| {
        InputError::range(
            "llc_weight",
            "",
            "an integer in 1..=1024 (--llc-weight is required)",
        )
    })?;
    sc.set_field("llc_weight", w)?;
    if let Some(e) = &a.nr_expr {
        sc.set_field("nr_expr", e)?;
    }
    let rule = sc.nr_expr_rule();
    if rule.as_ref().is_some_and(|r| r.per_wakeup()) {
        return Err(InputError::range(
            "nr_expr",
            &sc.nr_expr,
            "a rule over the LLC's inputs (sum_util, llc_weight, imbalance_pct, nr_idle) to \
             draw against sum_util; this one reads the waking CPU's (avg_idle, avg_scan_cost, \
             nr_running) and is evaluated per wake-up",
        ));
    }
    let (w, pct) = (sc.llc_weight, sc.imbalance_pct);
    // The rule on the curve: the LLC's sum_util and shape; no CPU is counted idle.
    let rule_at = |sum: u64| {
        rule.as_ref().map(|r| {
            r.nr_scan(&NrExprInputs {
                sum_util: sum as i64,
                llc_weight: w as i64,
                imbalance_pct: pct as i64,
                ..Default::default()
            })
        })
    };
    let cap = w as u64 * SCHED_CAPACITY_SCALE;
    let all = mode == "all";
    let points: Vec<Point> = if all {
        (0..=cap)
            .map(|sum| {
                let pct_x100 = sum * 10_000 / cap;
                Point {
                    sum_util: sum,
                    pct_x100,
                    util_pct: pct_x100 as f64 / 100.0,
                    nr_scan: update_idle_cpu_scan(sum, w, pct),
                    nr_expr: rule_at(sum),
                }
            })
            .collect()
    } else {
        sis_core::kernel::throttle::curve_percent(w, pct)
            .into_iter()
            .map(|(sum, p, nr)| Point {
                sum_util: sum,
                pct_x100: p as u64 * 100,
                util_pct: p as f64,
                nr_scan: nr,
                nr_expr: rule_at(sum),
            })
            .collect()
    };
    let mut s = String::new();
    match format {
        "csv" => {
            s.push_str("sum_util,util_pct,nr_scan");
            s.push_str(if rule.is_some() { ",nr_expr\n" } else { "\n" });
            for p in &points {
                s.put(format_args!(
                    "{},{},{}",
                    p.sum_util,
                    p.pct_text(all),
                    p.nr_scan
                ));
                match p.nr_expr {
                    Some(n) => s.line(format_args!(",{n}")),
                    None => s.push('\n'),
                }
            }
        }
        "json" => {
            let j = CurveJson {
                llc_weight: w,
                imbalance_pct: pct,
                points: mode,
                curve: &points,
            };
            s = serde_json::to_string_pretty(&j).unwrap_or_default();
            s.push('\n');
        }
        _ => {
            s.line(format_args!(
                "SIS_UTIL nr_scan (update_idle_cpu_scan) for llc_weight {w}, imbalance_pct {pct}"
            ));
            // The seed's two-line table.
            let seed: Vec<(u64, u32)> = SEED_PCTS
                .iter()
                .map(|p| (*p, update_idle_cpu_scan(p * cap / 100, w, pct)))
                .collect();
            let width = seed
                .iter()
                .map(|(_, n)| n.to_string().len())
                .max()
                .unwrap_or(1)
                .max(2)
                + 2;
            s.put(format_args!("sum_util%"));
            for (p, _) in &seed {
                s.put(format_args!("{p:>width$}"));
            }
            s.put(format_args!("\nscan_nr  "));
            for (_, n) in &seed {
                s.put(format_args!("{n:>width$}"));
            }
            s.push_str("\n\n");
            if all {
                // Every sum_util, as runs of equal nr_scan.
                s.put(format_args!(
                    "{:>21}  {:>17}  {:>7}",
                    "sum_util", "util_pct", "nr_scan"
                ));
                s.push_str(if rule.is_some() { "  nr_expr\n" } else { "\n" });
                let mut i = 0;
                while i < points.len() {
                    let mut j = i;
                    while j + 1 < points.len()
                        && (points[j + 1].nr_scan, points[j + 1].nr_expr)
                            == (points[i].nr_scan, points[i].nr_expr)
                    {
                        j += 1;
                    }
                    let (a, b) = (&points[i], &points[j]);
                    s.put(format_args!(
                        "{:>21}  {:>17}  {:>7}",
                        format!("{}..={}", a.sum_util, b.sum_util),
                        format!("{}..={}", a.pct_text(true), b.pct_text(true)),
                        a.nr_scan
                    ));
                    match a.nr_expr {
                        Some(n) => s.line(format_args!("  {n:>7}")),
                        None => s.push('\n'),
                    }
                    i = j + 1;
                }
            } else {
                s.put(format_args!(
                    "{:>8}  {:>10}  {:>7}",
                    "util_pct", "sum_util", "nr_scan"
                ));
                s.push_str(if rule.is_some() { "  nr_expr\n" } else { "\n" });
                for p in &points {
                    s.put(format_args!(
                        "{:>8}  {:>10}  {:>7}",
                        p.pct_text(false),
                        p.sum_util,
                        p.nr_scan
                    ));
                    match p.nr_expr {
                        Some(n) => s.line(format_args!("  {n:>7}")),
                        None => s.push('\n'),
                    }
                }
            }
        }
    }
    Ok(s)
}
