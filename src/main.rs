//! The `patchdeck` binary: parse the command line, run it, exit with its status.

mod cli;

fn main() {
    let status = cli::run();
    report_peak_memory();
    std::process::exit(status);
}

/// In debug builds and with the `failpoints` feature, `PATCHDECK_REPORT_PEAK=1` prints this
/// process's peak resident memory (`VmHWM`) on standard error as it exits, for the tests that
/// bound it. The kernel's own count for a child (`wait4`'s `ru_maxrss`) also holds the memory of
/// whichever process spawned it, until it executed patchdeck: useless from a large test runner.
fn report_peak_memory() {
    if !cfg!(any(debug_assertions, feature = "failpoints"))
        || std::env::var_os("PATCHDECK_REPORT_PEAK").is_none()
    {
        return;
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(line) = status.lines().find(|l| l.starts_with("VmHWM:")) {
        let kib = line.trim_start_matches("VmHWM:").trim();
        eprintln!("patchdeck: peak memory: {kib}");
    }
}
