//! CPU load during a run, from Linux `/proc`: the share of the machine this process and
//! its (reaped) engine processes used, and the share other processes used, so that a
//! time fault on a busy machine can be told apart from a slow engine.

/// CPU time counters at one moment, in clock ticks.
pub struct Sample {
    /// All CPUs, idle included.
    total: u64,
    /// All CPUs, busy (steal included: time the VM did not get).
    busy: u64,
    /// This process and its waited-for children.
    ours: u64,
    cpus: usize,
}

pub fn sample() -> Option<Sample> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let cpu = stat.lines().next()?.strip_prefix("cpu ")?;
    let t: Vec<u64> = cpu
        .split_whitespace()
        .map(|v| v.parse().unwrap_or(0))
        .collect();
    // user nice system idle iowait irq softirq steal (guest time is inside user)
    let get = |i: usize| t.get(i).copied().unwrap_or(0);
    let busy = get(0) + get(1) + get(2) + get(5) + get(6) + get(7);
    let total = busy + get(3) + get(4);
    let cpus = stat
        .lines()
        .filter(|l| l.starts_with("cpu") && l.as_bytes().get(3).is_some_and(u8::is_ascii_digit))
        .count();
    let own = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<u64> = own
        .rsplit_once(')')?
        .1
        .split_whitespace()
        .map(|v| v.parse().unwrap_or(0))
        .collect();
    // utime stime cutime cstime: fields 14 to 17, counted after the command name.
    let ours = fields.get(11..15)?.iter().sum();
    Some(Sample {
        total,
        busy,
        ours,
        cpus,
    })
}

/// Percentages of all CPUs between two samples: (ours, others).
pub fn shares(start: &Sample, end: &Sample) -> Option<(f64, f64, usize)> {
    let total = end.total.checked_sub(start.total).filter(|&t| t > 0)? as f64;
    let busy = end.busy.saturating_sub(start.busy) as f64;
    let ours = end.ours.saturating_sub(start.ours) as f64;
    let others = (busy - ours).max(0.0);
    Some((100.0 * ours / total, 100.0 * others / total, end.cpus))
}
