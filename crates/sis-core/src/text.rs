//! Text built into a `String`: `fmt::Write` into a String cannot fail, so its `fmt::Result`
//! is dropped here, once, and the tables, reports and wire texts write `s.line(...)` /
//! `s.put(...)` without a `let _ =` at every line. Shared by every wing (like `error`).

use std::fmt::{Arguments, Write};

pub trait Text {
    /// Appends the formatted text (`s.put(format_args!(...))`).
    fn put(&mut self, args: Arguments<'_>);
    /// Appends the formatted text and a newline (`s.line(format_args!(...))`).
    fn line(&mut self, args: Arguments<'_>);
}

impl Text for String {
    fn put(&mut self, args: Arguments<'_>) {
        // A String grows as needed: its fmt::Write never returns an error.
        let _ = self.write_fmt(args);
    }

    fn line(&mut self, args: Arguments<'_>) {
        self.put(args);
        self.push('\n');
    }
}

/// A CPU list in the kernel's list form (`%*pbl`, v6.0 `bitmap_print_to_pagebuf`): ranges of
/// consecutive CPUs as `a-b`, joined by commas, e.g. `0-3,5,7-9`; empty for no CPU. The
/// input is sorted. A trace at 1,024 CPUs per LLC lists hundreds of missed idle CPUs per
/// wake-up, which one by one made `sis trace` output ~40 KB per wake-up.
pub struct CpuList<'a>(pub &'a [u32]);

impl std::fmt::Display for CpuList<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut i = 0;
        while i < self.0.len() {
            let first = self.0[i];
            let mut j = i;
            while j + 1 < self.0.len() && self.0[j + 1] == self.0[j].wrapping_add(1) {
                j += 1;
            }
            if i > 0 {
                f.write_char(',')?;
            }
            match j > i {
                true => write!(f, "{first}-{}", self.0[j])?,
                false => write!(f, "{first}")?,
            }
            i = j + 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_and_line_append() {
        let mut s = String::from("a");
        s.put(format_args!("{}-{:>3}", 1, 2));
        s.line(format_args!("!"));
        s.line(format_args!("{}", "b"));
        assert_eq!(s, "a1-  2!\nb\n");
    }

    #[test]
    fn cpu_list_joins_runs_as_the_kernel_prints_them() {
        assert_eq!(CpuList(&[]).to_string(), "");
        assert_eq!(CpuList(&[5]).to_string(), "5");
        assert_eq!(CpuList(&[0, 1, 2, 3, 5, 7, 8, 9]).to_string(), "0-3,5,7-9");
        assert_eq!(CpuList(&[1, 3, 4]).to_string(), "1,3-4");
    }
}
