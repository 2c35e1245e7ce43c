//! A scan-depth rule of the user's own (`--nr-expr`, URL `nr_expr`): an integer expression
//! over the throttles' inputs, with the kernel's truncating division. No loops and no calls
//! but `min`, `max` and `if`: evaluation is bounded by the expression's size, and every
//! failure (syntax, an unknown name, overflow, division by zero) is an error that names the
//! position, never a panic.
//!
//! ```text
//! expr   := cmp
//! cmp    := add [("<" | "<=" | ">" | ">=" | "==" | "!=") add]     (1 or 0)
//! add    := mul {("+" | "-") mul}
//! mul    := unary {("*" | "/" | "%") unary}                       (i64, / and % truncate)
//! unary  := "-" unary | primary
//! primary:= integer | name | ("min" | "max") "(" expr "," expr ")"
//!         | "if" "(" expr "," expr "," expr ")" | "(" expr ")"
//! ```

use std::fmt;

/// The longest expression accepted, in bytes, and the deepest nesting.
pub const MAX_LEN: usize = 1000;
const MAX_DEPTH: usize = 64;

/// The names an expression may read.
pub const INPUTS: [&str; 7] = [
    "sum_util",
    "llc_weight",
    "imbalance_pct",
    "nr_idle",
    "avg_idle",
    "avg_scan_cost",
    "nr_running",
];

/// The language's other pieces, as a fuzzer may string them together with [`INPUTS`]: calls,
/// punctuation, operators and boundary constants (the property and wasm tests use them).
pub const PIECES: [&str; 17] = [
    "min(",
    "max(",
    "if(",
    "(",
    ")",
    ",",
    "+",
    "-",
    "*",
    "/",
    "%",
    "<",
    "<=",
    "==",
    "0",
    "9223372036854775807",
    "1024",
];

/// The inputs that belong to the waking CPU (the rest are the LLC's): an expression that reads
/// one is evaluated per wake-up, as SIS_PROP is; else where periodic balance updates
/// nr_idle_scan, as SIS_UTIL is.
const WAKER_INPUTS: [&str; 3] = ["avg_idle", "avg_scan_cost", "nr_running"];

/// What an expression reads, in `INPUTS` order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Inputs {
    /// The LLC's sum of cpu_util_cfs, capacity units.
    pub sum_util: i64,
    pub llc_weight: i64,
    pub imbalance_pct: i64,
    /// The LLC's idle CPUs as its balance saw them.
    pub nr_idle: i64,
    /// The waker CPU's avg_idle and avg_scan_cost, ns.
    pub avg_idle: i64,
    pub avg_scan_cost: i64,
    /// The waker CPU's nr_running.
    pub nr_running: i64,
}

impl Inputs {
    fn get(&self, i: usize) -> i64 {
        [
            self.sum_util,
            self.llc_weight,
            self.imbalance_pct,
            self.nr_idle,
            self.avg_idle,
            self.avg_scan_cost,
            self.nr_running,
        ][i]
    }
}

/// An error and where it is (a character position from 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExprError {
    pub pos: usize,
    pub msg: String,
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at character {}: {}", self.pos, self.msg)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Node {
    Num(i64),
    Input(usize),
    Neg(Box<Node>, usize),
    Bin(Op, Box<Node>, Box<Node>, usize),
    Min(Box<Node>, Box<Node>),
    Max(Box<Node>, Box<Node>),
    If(Box<Node>, Box<Node>, Box<Node>),
}

/// A parsed rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NrExpr {
    root: Node,
    text: String,
    reads: [bool; 7],
}

impl NrExpr {
    pub fn parse(text: &str) -> Result<NrExpr, ExprError> {
        if text.len() > MAX_LEN {
            return Err(ExprError {
                pos: MAX_LEN + 1,
                msg: format!("an expression of at most {MAX_LEN} bytes"),
            });
        }
        let mut p = Parser {
            chars: text.chars().collect(),
            i: 0,
            depth: 0,
            reads: [false; 7],
        };
        let root = p.expr()?;
        p.ws();
        if p.i < p.chars.len() {
            return Err(p.err(&format!("unexpected '{}'", p.chars[p.i])));
        }
        Ok(NrExpr {
            root,
            text: text.trim().to_string(),
            reads: p.reads,
        })
    }

    /// The expression as written (trimmed).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether it reads the waking CPU's inputs (then it is evaluated per wake-up).
    pub fn per_wakeup(&self) -> bool {
        INPUTS
            .iter()
            .zip(self.reads)
            .any(|(name, read)| read && WAKER_INPUTS.contains(name))
    }

    pub fn eval(&self, inputs: &Inputs) -> Result<i64, ExprError> {
        eval(&self.root, inputs)
    }

    /// The number of CPUs the rule lets a scan probe: its value clamped to 0..=llc_weight (an
    /// error, like a value outside, scans nothing more than the clamp allows: 0).
    pub fn nr_scan(&self, inputs: &Inputs) -> u32 {
        self.eval(inputs)
            .map_or(0, |v| v.clamp(0, inputs.llc_weight.max(0)) as u32)
    }
}

fn eval(n: &Node, v: &Inputs) -> Result<i64, ExprError> {
    Ok(match n {
        Node::Num(x) => *x,
        Node::Input(i) => v.get(*i),
        Node::Neg(a, pos) => eval(a, v)?.checked_neg().ok_or_else(|| overflow(*pos))?,
        Node::Min(a, b) => eval(a, v)?.min(eval(b, v)?),
        Node::Max(a, b) => eval(a, v)?.max(eval(b, v)?),
        Node::If(c, a, b) => {
            if eval(c, v)? != 0 {
                eval(a, v)?
            } else {
                eval(b, v)?
            }
        }
        Node::Bin(op, a, b, pos) => {
            let (x, y) = (eval(a, v)?, eval(b, v)?);
            let r = match op {
                Op::Add => x.checked_add(y),
                Op::Sub => x.checked_sub(y),
                Op::Mul => x.checked_mul(y),
                Op::Div | Op::Rem if y == 0 => {
                    return Err(ExprError {
                        pos: *pos,
                        msg: "division by zero".into(),
                    })
                }
                // Truncating toward zero, as C's integer division.
                Op::Div => x.checked_div(y),
                Op::Rem => x.checked_rem(y),
                Op::Lt => Some((x < y) as i64),
                Op::Le => Some((x <= y) as i64),
                Op::Gt => Some((x > y) as i64),
                Op::Ge => Some((x >= y) as i64),
                Op::Eq => Some((x == y) as i64),
                Op::Ne => Some((x != y) as i64),
            };
            r.ok_or_else(|| overflow(*pos))?
        }
    })
}

fn overflow(pos: usize) -> ExprError {
    ExprError {
        pos,
        msg: "integer overflow (the value leaves the 64-bit range)".into(),
    }
}

struct Parser {
    chars: Vec<char>,
    i: usize,
    depth: usize,
    reads: [bool; 7],
}

impl Parser {
    fn err(&self, msg: &str) -> ExprError {
        ExprError {
            pos: self.i + 1,
            msg: msg.to_string(),
        }
    }

    fn ws(&mut self) {
        while self.chars.get(self.i).is_some_and(|c| c.is_whitespace()) {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.ws();
        self.chars.get(self.i).copied()
    }

    fn eat(&mut self, s: &str) -> bool {
        self.ws();
        let n = s.chars().count();
        if self.chars.len() >= self.i + n
            && self.chars[self.i..self.i + n].iter().copied().eq(s.chars())
        {
            self.i += n;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, s: &str) -> Result<(), ExprError> {
        if self.eat(s) {
            Ok(())
        } else {
            let msg = match self.peek() {
                Some(c) => format!("expected '{s}', found '{c}'"),
                None => format!("expected '{s}', found the end"),
            };
            Err(self.err(&msg))
        }
    }

    fn expr(&mut self) -> Result<Node, ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(&format!("nesting deeper than {MAX_DEPTH}")));
        }
        let left = self.add()?;
        self.ws();
        let pos = self.i + 1;
        let op = [
            ("<=", Op::Le),
            (">=", Op::Ge),
            ("==", Op::Eq),
            ("!=", Op::Ne),
            ("<", Op::Lt),
            (">", Op::Gt),
        ]
        .into_iter()
        .find(|(s, _)| self.eat(s))
        .map(|(_, op)| op);
        let node = match op {
            Some(op) => Node::Bin(op, Box::new(left), Box::new(self.add()?), pos),
            None => left,
        };
        self.depth -= 1;
        Ok(node)
    }

    fn add(&mut self) -> Result<Node, ExprError> {
        let mut left = self.mul()?;
        loop {
            self.ws();
            let pos = self.i + 1;
            let op = if self.eat("+") {
                Op::Add
            } else if self.eat("-") {
                Op::Sub
            } else {
                return Ok(left);
            };
            left = Node::Bin(op, Box::new(left), Box::new(self.mul()?), pos);
        }
    }

    fn mul(&mut self) -> Result<Node, ExprError> {
        let mut left = self.unary()?;
        loop {
            self.ws();
            let pos = self.i + 1;
            let op = if self.eat("*") {
                Op::Mul
            } else if self.eat("/") {
                Op::Div
            } else if self.eat("%") {
                Op::Rem
            } else {
                return Ok(left);
            };
            left = Node::Bin(op, Box::new(left), Box::new(self.unary()?), pos);
        }
    }

    fn unary(&mut self) -> Result<Node, ExprError> {
        self.ws();
        let pos = self.i + 1;
        if self.eat("-") {
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(self.err(&format!("nesting deeper than {MAX_DEPTH}")));
            }
            let inner = self.unary()?;
            self.depth -= 1;
            return Ok(Node::Neg(Box::new(inner), pos));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Node, ExprError> {
        match self.peek() {
            Some(c) if c.is_ascii_digit() => {
                let start = self.i;
                while self.chars.get(self.i).is_some_and(|c| c.is_ascii_digit()) {
                    self.i += 1;
                }
                let digits: String = self.chars[start..self.i].iter().collect();
                digits.parse().map(Node::Num).map_err(|_| ExprError {
                    pos: start + 1,
                    msg: format!("{digits} is beyond the 64-bit range"),
                })
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let start = self.i;
                while self
                    .chars
                    .get(self.i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
                {
                    self.i += 1;
                }
                let name: String = self.chars[start..self.i].iter().collect();
                self.name(&name, start)
            }
            Some('(') => {
                self.i += 1;
                let e = self.expr()?;
                self.expect(")")?;
                Ok(e)
            }
            Some(c) => Err(self.err(&format!("expected a number, a name or '(', found '{c}'"))),
            None => Err(self.err("expected a number, a name or '(', found the end")),
        }
    }

    fn name(&mut self, name: &str, start: usize) -> Result<Node, ExprError> {
        let args = |p: &mut Parser, n: usize| -> Result<Vec<Node>, ExprError> {
            p.expect("(")?;
            let mut v = vec![p.expr()?];
            for _ in 1..n {
                p.expect(",")?;
                v.push(p.expr()?);
            }
            p.expect(")")?;
            Ok(v)
        };
        let b = |n: Node| Box::new(n);
        match name {
            "min" | "max" => {
                let mut a = args(self, 2)?;
                let (y, x) = (a.pop(), a.pop());
                let (Some(x), Some(y)) = (x, y) else {
                    return Err(self.err("two arguments"));
                };
                Ok(if name == "min" {
                    Node::Min(b(x), b(y))
                } else {
                    Node::Max(b(x), b(y))
                })
            }
            "if" => {
                let mut a = args(self, 3)?;
                let (z, y, x) = (a.pop(), a.pop(), a.pop());
                let (Some(x), Some(y), Some(z)) = (x, y, z) else {
                    return Err(self.err("three arguments"));
                };
                Ok(Node::If(b(x), b(y), b(z)))
            }
            _ => match INPUTS.iter().position(|n| *n == name) {
                Some(i) => {
                    self.reads[i] = true;
                    Ok(Node::Input(i))
                }
                None => Err(ExprError {
                    pos: start + 1,
                    msg: format!(
                        "unknown name '{name}' (one of {}, or min, max, if)",
                        INPUTS.join(", ")
                    ),
                }),
            },
        }
    }
}

/// linux-6.0 update_idle_cpu_scan in the language (seed 000's equations [2]-[4]): the app's
/// example, and the rule the tests hold to throttle::update_idle_cpu_scan.
pub const SIS_UTIL_RULE: &str = "llc_weight * (1024 - min(1024, (sum_util / llc_weight) * \
    (sum_util / llc_weight) * imbalance_pct * imbalance_pct / (10000 * 1024))) / 1024";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::throttle::update_idle_cpu_scan;

    const SIS_UTIL: &str = SIS_UTIL_RULE;

    fn at(sum_util: i64, llc_weight: i64) -> Inputs {
        Inputs {
            sum_util,
            llc_weight,
            imbalance_pct: 117,
            ..Default::default()
        }
    }

    #[test]
    fn sis_util_written_as_an_expression_reproduces_seed_000s_tables() {
        let e = NrExpr::parse(SIS_UTIL).unwrap();
        assert!(
            !e.per_wakeup(),
            "LLC-wide: evaluated where periodic balance runs"
        );
        // Seed 000's 112-CPU table, at 0, 5, 15, ..., 85, 86 % of the LLC's capacity.
        let pcts = [0, 5, 15, 25, 35, 45, 55, 65, 75, 85, 86];
        let seed = [112, 111, 108, 102, 93, 81, 65, 47, 25, 1, 0];
        for (p, want) in pcts.iter().zip(seed) {
            let sum = p * 112 * 1024 / 100;
            assert_eq!(e.nr_scan(&at(sum, 112)), want, "{p}%");
        }
        // And every sum_util of a 16-CPU and a 112-CPU LLC, against the kernel's arithmetic.
        for w in [16i64, 112] {
            for sum in (0..=w * 1024).step_by(7) {
                let kernel = update_idle_cpu_scan(sum as u64, w as u32, 117);
                assert_eq!(e.nr_scan(&at(sum, w)), kernel, "w {w} sum {sum}");
            }
        }
    }

    #[test]
    fn arithmetic_truncates_as_c_and_comparisons_are_one_or_zero() {
        let v = |s: &str| NrExpr::parse(s).unwrap().eval(&Inputs::default()).unwrap();
        assert_eq!(v("7 / 2"), 3);
        assert_eq!(v("-7 / 2"), -3, "toward zero");
        assert_eq!(v("-7 % 2"), -1);
        assert_eq!(v("1 + 2 * 3 - 4"), 3);
        assert_eq!(v("(1 + 2) * 3"), 9);
        assert_eq!(
            v("2 < 3") + v("3 <= 3") + v("4 > 3") + v("3 >= 4") + v("1 == 1") + v("1 != 1"),
            4
        );
        assert_eq!(v("if(1 > 2, 10, 20)"), 20);
        assert_eq!(v("max(min(5, 3), 4)"), 4);
        assert_eq!(v("--3"), 3);
    }

    #[test]
    fn per_wakeup_when_it_reads_the_wakers_inputs() {
        let e = NrExpr::parse("llc_weight * avg_idle / (avg_scan_cost + 1)").unwrap();
        assert!(e.per_wakeup());
        let v = Inputs {
            llc_weight: 112,
            avg_idle: 1953,
            avg_scan_cost: 500,
            ..Default::default()
        };
        assert_eq!(e.eval(&v).unwrap(), 112 * 1953 / 501);
        assert_eq!(e.nr_scan(&v), 112, "clamped to llc_weight");
    }

    #[test]
    fn errors_name_the_position_and_the_problem() {
        let err = |s: &str| NrExpr::parse(s).unwrap_err();
        assert_eq!(err("1 +").pos, 4);
        assert!(err("llc_wieght * 2")
            .msg
            .contains("unknown name 'llc_wieght'"));
        assert_eq!(err("2 * (3 + 4").msg, "expected ')', found the end");
        assert_eq!(err("3 $ 4").pos, 3);
        assert!(err("min(1)").msg.contains("expected ','"));
        assert!(err("99999999999999999999").msg.contains("64-bit"));
        assert!(err(&"(".repeat(100)).msg.contains("nesting"));
        assert!(err(&"1+".repeat(600)).msg.contains("at most 1000 bytes"));
        let run = |s: &str| {
            NrExpr::parse(s)
                .unwrap()
                .eval(&Inputs::default())
                .unwrap_err()
        };
        assert_eq!(
            run("1 / (2 - 2)"),
            ExprError {
                pos: 3,
                msg: "division by zero".into()
            }
        );
        assert!(run("9223372036854775807 + 1").msg.contains("overflow"));
        assert!(run("-9223372036854775807 - 2").msg.contains("overflow"));
        assert_eq!(
            NrExpr::parse("1 / 0").unwrap().nr_scan(&at(0, 8)),
            0,
            "an error scans nothing"
        );
    }
}
