use sis_core::{Scenario, Simulation};
fn main() {
    let sc = Scenario::from_pairs([
        ("llc_weight", "8"),
        ("smt", "1"),
        ("workload", "pinned"),
        ("preset", "sis-util-idle-aware"),
        ("duration", "2s"),
        ("warmup", "0ms"),
    ])
    .unwrap();
    let mut sim = Simulation::new(&sc).unwrap();
    println!(
        "tasks {} nr_idle_scan {} sum {}",
        sim.nr_tasks(),
        sim.llc(0).nr_idle_scan,
        sim.llc(0).last_sum_util
    );
    for _ in 0..12 {
        let d = sim.next_wakeup().unwrap().clone();
        print!("{}", d.to_text());
        println!(
            "   nr_idle_scan now {} sum {}",
            sim.llc(0).nr_idle_scan,
            sim.llc(0).last_sum_util
        );
    }
}
