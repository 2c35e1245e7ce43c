use sis_core::{Scenario, Simulation};
fn main() {
    let sc = Scenario::from_pairs([
        ("llc_weight", "8"),
        ("load", "50"),
        ("duration", "10ms"),
        ("warmup", "0"),
    ])
    .unwrap();
    let mut sim = Simulation::new(&sc).unwrap();
    let mut n = 0u64;
    while n < 2_000_000 && sim.step() {
        n += 1;
        if n % 200000 == 0 {
            println!("events {n} now {}", sim.now_ns());
        }
        if sim.finished() {
            break;
        }
    }
    println!(
        "events {n} now {} wakeups {}",
        sim.now_ns(),
        sim.counters().wakeups
    );
    sim.check_invariants().unwrap();
}
