//! A scenario file is one flat JSON object (field -> string, number or boolean). This reads
//! exactly that, without serde_json's deserialiser: the page imports scenario files too, and the
//! deserialiser is ~18 KB of its gzipped wasm (the 350 KB budget). Errors end "at line L column
//! C" as serde_json's do, which the CLI turns into PATH:L:C.

/// A member's value: a string (unescaped), number or boolean as text, or the raw text of
/// anything else (null, an array, an object), which no scenario field takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Scalar(String),
    Other(String),
}

/// The object's members in file order. A repeated key is an error: serde_json's map would keep
/// the last value without a word, and a scenario file that sets a field twice is a mistake.
pub fn object_members(text: &str) -> Result<Vec<(String, Value)>, String> {
    let mut p = Reader {
        s: text.as_bytes(),
        i: 0,
    };
    let mut out: Vec<(String, Value)> = Vec::new();
    p.ws();
    p.expect(b'{', "expected `{` (a JSON object)")?;
    p.ws();
    if p.peek() == Some(b'}') {
        p.i += 1;
    } else {
        loop {
            p.ws();
            if p.peek() != Some(b'"') {
                return Err(p.err(if p.peek().is_none() {
                    "EOF while parsing an object"
                } else {
                    "key must be a string"
                }));
            }
            let key_at = p.i;
            let key = p.string()?;
            if out.iter().any(|(k, _)| *k == key) {
                p.i = key_at;
                return Err(p.err(&format!("duplicate key `{key}`")));
            }
            p.ws();
            p.expect(b':', "expected `:`")?;
            p.ws();
            let value = p.value()?;
            out.push((key, value));
            p.ws();
            match p.peek() {
                Some(b',') => {
                    p.i += 1;
                    p.ws();
                    if p.peek() == Some(b'}') {
                        return Err(p.err("trailing comma"));
                    }
                }
                Some(b'}') => {
                    p.i += 1;
                    break;
                }
                None => return Err(p.err("EOF while parsing an object")),
                Some(_) => return Err(p.err("expected `,` or `}`")),
            }
        }
    }
    p.ws();
    if p.peek().is_some() {
        return Err(p.err("trailing characters"));
    }
    Ok(out)
}

struct Reader<'a> {
    s: &'a [u8],
    i: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    /// `words at line L column C` for the byte at `i` (columns count characters, from 1).
    fn err(&self, words: &str) -> String {
        let before = &self.s[..self.i.min(self.s.len())];
        let line = before.iter().filter(|b| **b == b'\n').count() + 1;
        let start = before
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |n| n + 1);
        let col = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
        format!("{words} at line {line} column {col}")
    }

    fn expect(&mut self, b: u8, words: &str) -> Result<(), String> {
        if self.peek() == Some(b) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.err(words))
        }
    }

    fn value(&mut self) -> Result<Value, String> {
        match self.peek() {
            Some(b'"') => self.string().map(Value::Scalar),
            Some(b't') => self.literal("true").map(Value::Scalar),
            Some(b'f') => self.literal("false").map(Value::Scalar),
            Some(b'n') => self.literal("null").map(Value::Other),
            Some(b'-' | b'0'..=b'9') => self.number().map(Value::Scalar),
            Some(b'[' | b'{') => self.nested().map(Value::Other),
            None => Err(self.err("EOF while parsing a value")),
            Some(_) => Err(self.err("expected value")),
        }
    }

    fn literal(&mut self, word: &str) -> Result<String, String> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(word.to_string())
        } else {
            Err(self.err("expected value"))
        }
    }

    /// JSON's number grammar; the text as written (the field's own parser judges it).
    fn number(&mut self) -> Result<String, String> {
        let start = self.i;
        let digits = |r: &mut Self| {
            let from = r.i;
            while matches!(r.peek(), Some(b'0'..=b'9')) {
                r.i += 1;
            }
            r.i - from
        };
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        let int_start = self.i;
        let n = digits(self);
        let mut ok = n > 0 && !(n > 1 && self.s[int_start] == b'0');
        if ok && self.peek() == Some(b'.') {
            self.i += 1;
            ok = digits(self) > 0;
        }
        if ok && matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            ok = digits(self) > 0;
        }
        if !ok {
            // Said at the number's first character.
            self.i = start;
            return Err(self.err("invalid number"));
        }
        Ok(String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }

    fn string(&mut self) -> Result<String, String> {
        self.expect(b'"', "expected a string")?;
        let mut out: Vec<u8> = Vec::new();
        loop {
            match self.peek() {
                None => return Err(self.err("EOF while parsing a string")),
                Some(b'"') => {
                    self.i += 1;
                    // Only whole UTF-8 sequences and escapes were copied: always valid.
                    return Ok(String::from_utf8_lossy(&out).into_owned());
                }
                Some(b'\\') => {
                    self.i += 1;
                    let simple = match self.peek() {
                        Some(b'"') => Some('"'),
                        Some(b'\\') => Some('\\'),
                        Some(b'/') => Some('/'),
                        Some(b'b') => Some('\u{8}'),
                        Some(b'f') => Some('\u{c}'),
                        Some(b'n') => Some('\n'),
                        Some(b'r') => Some('\r'),
                        Some(b't') => Some('\t'),
                        Some(b'u') => None,
                        _ => return Err(self.err("invalid escape")),
                    };
                    self.i += 1;
                    let c = match simple {
                        Some(c) => c,
                        None => self.unicode_escape()?,
                    };
                    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                }
                Some(b) if b < 0x20 => {
                    return Err(self
                        .err("control character (\\u0000-\\u001F) found while parsing a string"))
                }
                Some(b) => {
                    out.push(b);
                    self.i += 1;
                }
            }
        }
    }

    /// After `\u`: four hex digits (a surrogate pair takes a second `\uXXXX`).
    fn unicode_escape(&mut self) -> Result<char, String> {
        let hex4 = |r: &mut Self| -> Result<u32, String> {
            let h =
                r.s.get(r.i..r.i + 4)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .filter(|_| r.s[r.i..r.i + 4].iter().all(u8::is_ascii_hexdigit))
                    .ok_or_else(|| r.err("invalid \\u escape"))?;
            r.i += 4;
            Ok(h)
        };
        let hi = hex4(self)?;
        let c = if (0xD800..0xDC00).contains(&hi) {
            if !self.s[self.i..].starts_with(b"\\u") {
                return Err(self.err("lone leading surrogate in hex escape"));
            }
            self.i += 2;
            let lo = hex4(self)?;
            if !(0xDC00..0xE000).contains(&lo) {
                return Err(self.err("invalid low surrogate in hex escape"));
            }
            char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
        } else {
            char::from_u32(hi)
        };
        c.ok_or_else(|| self.err("invalid \\u escape"))
    }

    /// An array or object skipped whole (strings inside included); its raw text.
    fn nested(&mut self) -> Result<String, String> {
        let start = self.i;
        let mut depth = 0usize;
        loop {
            match self.peek() {
                None => return Err(self.err("EOF while parsing a value")),
                Some(b'[' | b'{') => {
                    depth += 1;
                    self.i += 1;
                }
                Some(b']' | b'}') => {
                    depth -= 1;
                    self.i += 1;
                    if depth == 0 {
                        return Ok(String::from_utf8_lossy(&self.s[start..self.i]).into_owned());
                    }
                }
                Some(b'"') => {
                    self.string()?;
                }
                Some(_) => self.i += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> Value {
        Value::Scalar(v.into())
    }

    #[test]
    fn reads_a_flat_object_in_file_order() {
        let m = object_members(
            " {\"preset\": \"linux-6.0\", \"load\": 150, \"x\": -1.5e3, \"b\": true,\n\"n\": null, \"a\": [1, {\"]\": 2}], \"o\": {}}\n",
        )
        .unwrap();
        assert_eq!(
            m,
            [
                ("preset".into(), s("linux-6.0")),
                ("load".into(), s("150")),
                ("x".into(), s("-1.5e3")),
                ("b".into(), s("true")),
                ("n".into(), Value::Other("null".into())),
                ("a".into(), Value::Other("[1, {\"]\": 2}]".into())),
                ("o".into(), Value::Other("{}".into())),
            ]
        );
        assert_eq!(object_members("{}").unwrap(), []);
    }

    #[test]
    fn escapes_decode_and_a_repeated_key_is_an_error() {
        let m = object_members(r#"{"k": "a", "k2": "é"}"#).unwrap();
        assert_eq!(m, [("k".into(), s("a")), ("k2".into(), s("é"))]);
        assert_eq!(
            object_members("{\"k\": \"a\",\n \"k2\": 1, \"k\": \"z\"}").unwrap_err(),
            "duplicate key `k` at line 2 column 11"
        );
        let m = object_members(r#"{"k": "a\"\\\/\n\t\u00e9\ud83d\ude00x"}"#).unwrap();
        assert_eq!(m, [("k".into(), s("a\"\\/\n\té😀x"))]);
    }

    #[test]
    fn errors_say_what_and_where() {
        for (text, want) in [
            ("{\n \"load\": 3,,\n}", "key must be a string at line 2 column 12"),
            ("{\"load\": 3,}", "trailing comma at line 1 column 12"),
            ("[1]", "expected `{` (a JSON object) at line 1 column 1"),
            ("{\"load\" 3}", "expected `:` at line 1 column 9"),
            ("{\"load\": 3 4}", "expected `,` or `}` at line 1 column 12"),
            ("{\"load\": 01}", "invalid number at line 1 column 10"),
            ("{\"load\": 1.}", "invalid number at line 1 column 10"),
            ("{\"load\": tru}", "expected value at line 1 column 10"),
            ("{\"load\": \"a\\x\"}", "invalid escape at line 1 column 13"),
            ("{\"load\": \"\\ud800\"}", "lone leading surrogate in hex escape at line 1 column 17"),
            ("{\"load\": \"é\u{1}\"}", "control character (\\u0000-\\u001F) found while parsing a string at line 1 column 12"),
            ("{\"load\": [1", "EOF while parsing a value at line 1 column 12"),
            ("{\"load\": 1", "EOF while parsing an object at line 1 column 11"),
            ("{} x", "trailing characters at line 1 column 4"),
            ("", "expected `{` (a JSON object) at line 1 column 1"),
        ] {
            assert_eq!(object_members(text).unwrap_err(), want, "{text:?}");
        }
    }
}
