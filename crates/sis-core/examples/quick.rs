use sis_core::{Scenario, Simulation};
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    for preset in ["linux-5.13", "linux-5.15", "linux-6.0"] {
        for load in [25, 75, 100, 150, 200] {
            let mut pairs: Vec<(String, String)> = vec![
                ("llc_weight".into(), "112".into()),
                ("smt".into(), "2".into()),
                ("preset".into(), preset.into()),
                ("load".into(), load.to_string()),
                ("duration".into(), "300ms".into()),
            ];
            for a in &args {
                let (k, v) = a.split_once('=').unwrap();
                pairs.push((k.into(), v.into()));
            }
            let sc =
                Scenario::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))).unwrap();
            let t = std::time::Instant::now();
            let mut sim = Simulation::new(&sc).unwrap();
            let r = sim.run_to_end();
            sim.check_invariants().unwrap();
            let m = r.metrics;
            println!("{preset} {load:>4}% wakeups {:>8} se_eff {:>7.3} dom_eff {:>7.3} fast {:>7.3} succ {:>7.3} scanned/w {:>6.2} nr_idle_scan {:?} lat {:.1}us  ({:.2}s, {:.1}M w/s)", r.wakeups, m.se_eff, m.dom_eff, m.fast_rate, m.success_rate, m.scanned_per_wakeup, r.nr_idle_scan, m.avg_wakeup_latency_us, t.elapsed().as_secs_f64(), r.wakeups as f64 / t.elapsed().as_secs_f64() / 1e6);
        }
    }
}
