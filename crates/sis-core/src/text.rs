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
}
