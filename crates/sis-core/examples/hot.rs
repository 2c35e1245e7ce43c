use sis_core::{Scenario, Simulation};
fn main() {
    let preset = std::env::args().nth(1).unwrap_or("linux-6.0".into());
    let sc = Scenario::from_pairs([
        ("llc_weight", "112"),
        ("smt", "2"),
        ("load", "200"),
        ("preset", preset.as_str()),
        ("duration", "600ms"),
        ("warmup", "300ms"),
    ])
    .unwrap();
    let t = std::time::Instant::now();
    let mut sim = Simulation::new(&sc).unwrap();
    let r = sim.run_to_end();
    let total = sim.wakeups_total();
    println!(
        "{preset}: {} wakeups total in {:.2}s = {:.2}M/s; scanned/w {:.2}",
        total,
        t.elapsed().as_secs_f64(),
        total as f64 / t.elapsed().as_secs_f64() / 1e6,
        r.metrics.scanned_per_wakeup
    );
}
