//! Byte scans for the trace parser (parse.rs), eight bytes a step where a line's runs are
//! long enough to pay for it: every byte of a trace passes through one of these.

use super::parse::LineError;

/// The field scan's byte classes, one table load a byte: `u8::is_ascii_whitespace` and '='.
pub(super) const SPACE: u8 = 1;
pub(super) const EQUALS: u8 = 2;
pub(super) const BYTE_CLASS: [u8; 256] = {
    let mut t = [0; 256];
    t[b' ' as usize] = SPACE;
    t[b'\t' as usize] = SPACE;
    t[b'\n' as usize] = SPACE;
    t[0x0c] = SPACE;
    t[b'\r' as usize] = SPACE;
    t[b'=' as usize] = EQUALS;
    t
};

/// The first index at or after `j` whose byte is below 0x21 or '=' (every byte the field
/// scan stops at, and a few control bytes it passes over), else `b.len()`: eight bytes a
/// step, as a key or a value runs 3 to 20 bytes between two stops.
pub(super) fn next_stop(b: &[u8], mut j: usize) -> usize {
    while let Some(w) = word_at(b, j) {
        // The lowest flagged byte of each test is exact (the borrow runs upwards only).
        let below = w.wrapping_sub(ONES * 0x21) & !w & HIGHS;
        let x = w ^ (ONES * b'=' as u64);
        let equals = x.wrapping_sub(ONES) & !x & HIGHS;
        let hit = below | equals;
        if hit != 0 {
            return j + (hit.trailing_zeros() / 8) as usize;
        }
        j += 8;
    }
    j + b[j.min(b.len())..]
        .iter()
        .position(|c| *c < 0x21 || *c == b'=')
        .unwrap_or(b.len() - j.min(b.len()))
}

pub(super) const ONES: u64 = 0x0101_0101_0101_0101;
pub(super) const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The eight bytes at `j`, if there are eight.
pub(super) fn word_at(b: &[u8], j: usize) -> Option<u64> {
    let w = b.get(j..j + 8)?;
    Some(u64::from_le_bytes([
        w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7],
    ]))
}

/// `str::trim_start` for the ASCII whitespace a trace line has (ftrace pads the task column
/// with blanks): eight blanks a step, then a byte at a time.
pub(super) fn trim_ascii_start(s: &str) -> &str {
    let b = s.as_bytes();
    let mut j = 0;
    while word_at(b, j) == Some(ONES * b' ' as u64) {
        j += 8;
    }
    let n = j + b[j..]
        .iter()
        .take_while(|c| c.is_ascii_whitespace())
        .count();
    &s[n..]
}

pub(super) fn first_token(s: &str) -> &str {
    // Bytes, not chars: ASCII whitespace never sits inside a multi-byte UTF-8 sequence.
    // Eight bytes a step while none is below 0x21 (every blank is), then a byte at a time.
    let b = s.as_bytes();
    let mut j = 0;
    while let Some(w) = word_at(b, j) {
        if w.wrapping_sub(ONES * 0x21) & !w & HIGHS != 0 {
            break;
        }
        j += 8;
    }
    let end = j + b[j..]
        .iter()
        .position(|c| c.is_ascii_whitespace())
        .unwrap_or(b.len() - j);
    &s[..end]
}

/// The first `needle` at or after `j`: eight bytes a step (the task column runs 10 to 30).
pub(super) fn find_byte(b: &[u8], mut j: usize, needle: u8) -> Option<usize> {
    while let Some(w) = word_at(b, j) {
        let x = w ^ (ONES * needle as u64);
        let hit = x.wrapping_sub(ONES) & !x & HIGHS;
        if hit != 0 {
            return Some(j + (hit.trailing_zeros() / 8) as usize);
        }
        j += 8;
    }
    b.get(j..)?.iter().position(|c| *c == needle).map(|k| j + k)
}

/// A kprobe's `key=value` field that parse.rs's `Fields` does not keep (`key` with its `=`).
pub(super) fn probe_field<'a>(detail: &'a str, key: &str) -> Option<&'a str> {
    detail.split(' ').find_map(|t| t.strip_prefix(key))
}

/// A kprobe's 64-bit decimal field `key` (`lut=9580252160`), or an error naming it.
pub(super) fn probe_u64(detail: &str, key: &str, event: &str) -> Result<u64, LineError> {
    probe_read(detail, key, event, "a 64-bit non-negative integer", |v| {
        v.parse().ok()
    })
}

/// A kprobe's 32-bit signed field `key` (`recent=3`, an `:s32` fetch), or an error naming it.
pub(super) fn probe_i32(detail: &str, key: &str, event: &str) -> Result<i32, LineError> {
    probe_read(detail, key, event, "a 32-bit integer", |v| v.parse().ok())
}

/// A kprobe's 64-bit hex field `key` (`task=0xff3e3b5543962100`, an `:x64` fetch), or an
/// error naming it.
pub(super) fn probe_hex_u64(detail: &str, key: &str, event: &str) -> Result<u64, LineError> {
    let hex = |v: &str| {
        let h = v
            .strip_prefix("0x")
            .filter(|h| !h.is_empty() && h.len() <= 16)?;
        u64::from_str_radix(h, 16).ok()
    };
    probe_read(
        detail,
        key,
        event,
        "a 64-bit hex value (0x0 to 0xffffffffffffffff)",
        hex,
    )
}

/// Field `key` of a kprobe line read by `parse`, or an error naming the field and `expected`.
fn probe_read<T>(
    detail: &str,
    key: &str,
    event: &str,
    expected: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<T, LineError> {
    let v = probe_field(detail, key).unwrap_or("");
    parse(v).ok_or_else(|| {
        let k = key.trim_end_matches('=');
        LineError(format!("{event}: {k}='{v}' is not {expected}"))
    })
}

/// A kretprobe's call site: the hex offset after `+0x` in its leading `(caller+0x68b/...`.
pub(super) fn call_site(detail: &str) -> u32 {
    let head = detail.trim_start().split(' ').next().unwrap_or("");
    let hex = head.split_once("+0x").map_or("", |(_, h)| h);
    u32::from_str_radix(hex.split('/').next().unwrap_or(""), 16).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Text with blanks, '[' and '=' at every offset of a word, multi-byte UTF-8 and a
    /// control byte: each word scan must give what a byte at a time gives, from every start.
    const TEXT: &str =
        "   \t  k\u{e9}-1 [003] d..2 x=[y]  \u{1}caf\u{e9}=1\tw\u{f6}rker==>\r [12] z";

    #[test]
    fn the_word_scans_agree_with_a_byte_at_a_time() {
        for j in 0..=TEXT.len() {
            if !TEXT.is_char_boundary(j) {
                continue;
            }
            let s = &TEXT[j..];
            let b = s.as_bytes();
            assert_eq!(
                trim_ascii_start(s),
                s.trim_start_matches(|c: char| c.is_ascii_whitespace()),
                "trim from {j}"
            );
            let tok_end = b
                .iter()
                .position(u8::is_ascii_whitespace)
                .unwrap_or(b.len());
            assert_eq!(first_token(s), &s[..tok_end], "token from {j}");
            for k in 0..=b.len() {
                let want = b[k..].iter().position(|c| *c == b'[').map(|i| k + i);
                assert_eq!(find_byte(b, k, b'['), want, "'[' from {j}+{k}");
                let stop = b[k..]
                    .iter()
                    .position(|c| *c < 0x21 || *c == b'=')
                    .map_or(b.len(), |i| k + i);
                assert_eq!(next_stop(b, k), stop, "stop from {j}+{k}");
            }
        }
    }
}
