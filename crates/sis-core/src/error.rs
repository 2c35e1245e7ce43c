//! Input errors that name the field, the value and what is allowed.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    pub field: String,
    pub value: String,
    pub expected: String,
}

impl InputError {
    pub fn range(field: &str, value: impl fmt::Display, expected: &str) -> Self {
        InputError {
            field: field.to_string(),
            value: value.to_string(),
            expected: expected.to_string(),
        }
    }

    /// An unknown name, with the closest valid name as a suggestion.
    pub fn unknown<'a>(field: &str, value: &str, valid: impl IntoIterator<Item = &'a str>) -> Self {
        let valid: Vec<&str> = valid.into_iter().collect();
        let best = closest(value, &valid);
        let expected = match best {
            Some(b) => format!("one of {} (did you mean '{b}'?)", valid.join(", ")),
            None => format!("one of {}", valid.join(", ")),
        };
        InputError {
            field: field.to_string(),
            value: value.to_string(),
            expected,
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid {} '{}': expected {}",
            self.field, self.value, self.expected
        )
    }
}

impl std::error::Error for InputError {}

/// The valid name nearest to `value` by edit distance, if it is close enough to be a typo.
pub fn closest<'a>(value: &str, valid: &[&'a str]) -> Option<&'a str> {
    let v = value.to_ascii_lowercase();
    valid
        .iter()
        .map(|c| (levenshtein(&v, &c.to_ascii_lowercase()), *c))
        .min()
        .filter(|(d, c)| *d <= 3.max(c.len() / 3))
        .map(|(_, c)| c)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_names_field_value_and_range() {
        let e = InputError::range("llc_weight", 0, "an integer in 1..=1024");
        assert_eq!(
            e.to_string(),
            "invalid llc_weight '0': expected an integer in 1..=1024"
        );
    }

    #[test]
    fn suggests_closest() {
        assert_eq!(
            closest("llc_wieght", &["llc_weight", "llcs", "load"]),
            Some("llc_weight")
        );
        assert_eq!(closest("zzzzzzzzzzzz", &["llc_weight", "llcs"]), None);
    }
}
