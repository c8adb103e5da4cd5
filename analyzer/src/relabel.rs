//! A second copy of a DO loop's source lines in its unit (the generated program's ELSE branch
//! of a loop parallel under run-time tests): the labels the loop's statements define get
//! numbers the unit does not use, and every reference to them inside the copy follows (the
//! DO statement's terminal label, GO TO, computed GO TO, arithmetic IF, in a logical IF
//! too). A copy that cannot be made so is refused: a statement of another kind that names
//! one of those labels (a READ with `ERR=` or a FORMAT inside the loop), a jump from outside
//! the loop to one of its statements (the original lines end up inside an IF block), a line
//! shared by two statements, lines of an INCLUDE file, a construct name on the DO line, a
//! fixed-form line the new numbers would push past column 72.

use std::collections::BTreeSet;

use crate::ast::{for_each_stmt, Node, Stmt, StmtKind, Unit};

/// The lines of loop `node` (its DO line to its last statement's last line) with its labels
/// renumbered; `taken` holds labels earlier copies in the unit took (the new ones are added).
/// `text` is the unit's file as lines; `fixed`, whether it is fixed form. None when the loop
/// cannot be copied (see the module's comment).
pub fn loop_copy(unit: &Unit, node: &Node, text: &[&str], fixed: bool, taken: &mut BTreeSet<u32>) -> Option<Vec<String>> {
    let Node::Do { header, .. } = node else { return None };
    let mut stmts: Vec<&Stmt> = vec![];
    for_each_stmt(unit, std::slice::from_ref(node), &mut |st| stmts.push(st));
    if stmts.iter().any(|st| st.span.file != unit.file || st.name.is_some()) {
        return None;
    }
    let first = unit.stmt(*header).span.line as usize;
    let last = stmts.iter().map(|s| s.span.end_line as usize).max()?;
    if first == 0 || last > text.len() || named(text[first - 1]) {
        return None;
    }
    let mut lines: Vec<String> = text[first - 1..last].iter().map(|l| l.to_string()).collect();
    let defined: Vec<u32> = stmts.iter().filter_map(|s| s.label).collect();
    if defined.is_empty() {
        return Some(lines);
    }
    // (the original lines go inside `IF (tests) THEN`: a jump from outside the loop to one of
    // its statements, the DO statement included, would jump into that block)
    let inside: BTreeSet<_> = stmts.iter().map(|s| s.id).collect();
    let targets: BTreeSet<u32> = stmts.iter().filter(|s| !matches!(s.kind, StmtKind::Format)).filter_map(|s| s.label).collect();
    if unit.stmts.iter().filter(|s| !inside.contains(&s.id)).any(|s| referenced(&s.kind).iter().any(|l| targets.contains(l))) {
        return None;
    }
    let mut used: BTreeSet<u32> = unit.stmts.iter().filter_map(|s| s.label).collect();
    used.extend(taken.iter().copied());
    let mut map: Vec<(u32, u32)> = vec![];
    for l in defined {
        if map.iter().any(|(o, _)| *o == l) {
            continue;
        }
        let n = fresh(l, &used)?;
        used.insert(n);
        map.push((l, n));
    }
    let new_of = |l: u64| map.iter().find(|(o, _)| u64::from(*o) == l).map(|(_, n)| *n);
    for st in &stmts {
        let refs = referenced(&st.kind);
        let scanned = matches!(st.kind.action(), StmtKind::Io { .. } | StmtKind::Call { .. } | StmtKind::Unsupported { .. } | StmtKind::Error);
        let wanted = refs.iter().filter(|l| new_of(u64::from(**l)).is_some()).count();
        if !scanned && wanted == 0 && st.label.is_none() {
            continue;
        }
        let (lo, hi) = (st.span.line as usize - first, st.span.end_line as usize - first);
        let code = Code::read(&lines, lo, hi, fixed, st.label.is_some());
        if scanned {
            // statements that may name labels the rules below do not read (`READ (5, 100)`,
            // `ERR=200`, `CALL S(*10)`, `ASSIGN 10 TO L`): refused when any number in one is
            // a renamed label
            if code.numbers(fixed).iter().any(|r| new_of(r.value).is_some()) {
                return None;
            }
        }
        let mut edits: Vec<(usize, usize, usize, u32, bool)> = vec![]; // (line, from, to, new, label field)
        if let Some(l) = st.label {
            let (from, to) = label_field(&lines[lo], fixed)?;
            edits.push((lo, from, to, new_of(u64::from(l))?, true));
        }
        if wanted > 0 {
            for r in code.label_refs(st.kind.action(), matches!(st.kind, StmtKind::LogicalIf(..)), fixed)? {
                if let Some(n) = new_of(r.value) {
                    edits.push((r.line, r.from, r.to, n, false));
                }
            }
            // every reference the statement's kind names must have been found
            if edits.iter().filter(|e| !e.4).count() != wanted {
                return None;
            }
        }
        if edits.is_empty() {
            continue;
        }
        // (a statement sharing a line with another: its columns are not known)
        if unit.shares_a_line(st) {
            return None;
        }
        edits.sort_by_key(|e| std::cmp::Reverse((e.0, e.1)));
        for (line, from, to, n, field) in edits {
            let s = &mut lines[line];
            let was = s.len();
            let digits = n.to_string();
            if field && fixed && !s[..to].contains('\t') && digits.len() != to - from {
                // columns 1 to 5, the new number from column 1
                let rest = s[5.min(s.len())..].to_string();
                *s = format!("{digits:<5}{rest}");
            } else {
                s.replace_range(from..to, &digits);
            }
            if fixed && s.len() != was && (s.len() > 72 || was > 72) {
                return None;
            }
        }
    }
    taken.extend(map.iter().map(|(_, n)| *n));
    Some(lines)
}

/// Whether a DO line names its construct (`OUTER: DO`).
fn named(line: &str) -> bool {
    let t = line.trim_start();
    let name_len = t.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(t.len());
    name_len > 0 && !t.as_bytes()[0].is_ascii_digit() && t[name_len..].trim_start().starts_with(':') && !t[name_len..].trim_start().starts_with("::")
}

/// A label no statement of the unit defines and no earlier copy took: the next free one with
/// as many digits as `l` (so lines keep their length), else the first free one with as many,
/// else one with more digits.
fn fresh(l: u32, used: &BTreeSet<u32>) -> Option<u32> {
    let digits = l.to_string().len() as u32;
    for d in digits..=5 {
        let (lo, hi) = (10u32.pow(d - 1).max(1), 10u32.pow(d) - 1);
        let start = if d == digits { l + 1 } else { lo };
        if let Some(n) = (start..=hi).chain(lo..start.min(hi + 1)).find(|n| !used.contains(n)) {
            return Some(n);
        }
    }
    None
}

/// The labels a statement's kind names (jumps, a DO's terminal label).
fn referenced(k: &StmtKind) -> Vec<u32> {
    match k {
        StmtKind::Do { label: Some(l), .. } | StmtKind::DoWhile { label: Some(l), .. } => vec![*l],
        StmtKind::LogicalIf(_, inner) => referenced(&inner.kind),
        other => crate::cfg::jump_labels(other),
    }
}

/// The byte range of the label in a statement's first line.
fn label_field(line: &str, fixed: bool) -> Option<(usize, usize)> {
    let b = line.as_bytes();
    let field = if fixed { b.iter().position(|c| *c == b'\t').unwrap_or(5).min(5).min(b.len()) } else { b.len() };
    let from = (0..field).find(|&i| b[i] != b' ')?;
    let to = (from..field).find(|&i| !b[i].is_ascii_digit()).unwrap_or(field);
    (to > from).then_some((from, to))
}

/// A number in a statement's code: its value and where its digits lie.
struct Num {
    value: u64,
    line: usize,
    from: usize,
    to: usize,
}

/// The code characters of a statement (labels, comments, continuation marks and the columns
/// past 72 of fixed form left out; characters of character constants as `'`), upper case,
/// each with its line (in the copy) and byte offset.
struct Code {
    chars: Vec<(char, usize, usize)>,
}

impl Code {
    /// The statement on lines `lo..=hi`; `labelled`: its first line starts with a label
    /// (left out; fixed form leaves out columns 1 to 6 anyway).
    fn read(lines: &[String], lo: usize, hi: usize, fixed: bool, labelled: bool) -> Code {
        let mut chars = vec![];
        let mut quote: Option<char> = None;
        for (k, line) in lines.iter().enumerate().take(hi + 1).skip(lo) {
            let start = if fixed {
                if matches!(line.chars().next(), Some('c' | 'C' | '*' | '!')) || line.trim().is_empty() {
                    continue;
                }
                match line.find('\t') {
                    Some(t) if t < 6 => t + 1,
                    _ => 6,
                }
            } else {
                let t = line.len() - line.trim_start().len();
                if line.trim_start().starts_with('!') || line.trim().is_empty() {
                    continue;
                }
                match () {
                    _ if k > lo && line[t..].starts_with('&') => t + 1,
                    _ if k == lo && labelled => label_field(line, false).map_or(t, |(_, to)| to),
                    _ => t,
                }
            };
            let end = if fixed { 72.min(line.len()) } else { line.len() };
            for (i, c) in line.char_indices().filter(|(i, _)| *i >= start && *i < end) {
                match quote {
                    Some(q) => {
                        if c == q {
                            quote = None;
                        }
                        chars.push(('\'', k, i));
                    }
                    None if c == '\'' || c == '"' => {
                        quote = Some(c);
                        chars.push(('\'', k, i));
                    }
                    None if c == '!' => break,
                    None => chars.push((c.to_ascii_uppercase(), k, i)),
                }
            }
        }
        Code { chars }
    }

    /// The significant characters (blanks left out in fixed form, where they mean nothing)
    /// as indices into `chars`.
    fn sig(&self, fixed: bool) -> Vec<usize> {
        (0..self.chars.len()).filter(|&i| !(fixed && self.chars[i].0 == ' ')).collect()
    }

    /// Every unsigned integer in the code that is not part of a name or a real constant.
    fn numbers(&self, fixed: bool) -> Vec<Num> {
        let sig = self.sig(fixed);
        let mut out = vec![];
        let mut k = 0;
        while k < sig.len() {
            let c = self.chars[sig[k]].0;
            if c.is_ascii_digit() {
                let prev = k.checked_sub(1).map(|p| self.chars[sig[p]].0);
                let mut e = k;
                while e < sig.len() && self.chars[sig[e]].0.is_ascii_digit() {
                    e += 1;
                }
                let next = sig.get(e).map(|&i| self.chars[i].0);
                let in_name = prev.is_some_and(|p| p.is_ascii_alphanumeric() || p == '_' || p == '.') || next == Some('.');
                if !in_name {
                    if let Some(n) = self.num(&sig[k..e]) {
                        out.push(n);
                    }
                }
                k = e;
            } else {
                k += 1;
            }
        }
        out
    }

    /// The number whose digits are `chars[ix]` (one line only).
    fn num(&self, ix: &[usize]) -> Option<Num> {
        let (first, last) = (self.chars[*ix.first()?], self.chars[*ix.last()?]);
        if first.1 != last.1 {
            return None;
        }
        let digits: String = ix.iter().map(|&i| self.chars[i].0).collect();
        Some(Num { value: digits.parse().ok()?, line: first.1, from: first.2, to: last.2 + 1 })
    }

    /// The label references of a statement of kind `k` (the inner statement of a logical IF
    /// when `in_if`), found where its syntax puts them; None where the text does not read as
    /// expected.
    fn label_refs(&self, k: &StmtKind, in_if: bool, fixed: bool) -> Option<Vec<Num>> {
        let sig = self.sig(fixed);
        let text: Vec<char> = sig.iter().map(|&i| self.chars[i].0).collect();
        let mut at = 0;
        let skip_blanks = |at: &mut usize| {
            while *at < text.len() && text[*at] == ' ' {
                *at += 1;
            }
        };
        let keyword = |at: &mut usize, w: &str| -> bool {
            // (free form: `GO TO` may have blanks inside)
            let mut p = *at;
            for c in w.chars() {
                while p < text.len() && text[p] == ' ' && c != ' ' {
                    p += 1;
                }
                if p >= text.len() || text[p] != c {
                    return false;
                }
                p += 1;
            }
            *at = p;
            true
        };
        // past `IF (` ... `)` (the condition of a logical or arithmetic IF)
        let past_paren = |at: &mut usize| -> bool {
            let mut depth = 0;
            while *at < text.len() {
                match text[*at] {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            *at += 1;
                            return true;
                        }
                    }
                    _ => {}
                }
                *at += 1;
            }
            false
        };
        let digits = |at: &mut usize| -> Option<Num> {
            skip_blanks(at);
            let s = *at;
            while *at < text.len() && text[*at].is_ascii_digit() {
                *at += 1;
            }
            (*at > s).then(|| self.num(&sig[s..*at])).flatten()
        };
        skip_blanks(&mut at);
        if in_if {
            if !keyword(&mut at, "IF") || !past_paren(&mut at) {
                return None;
            }
            skip_blanks(&mut at);
        }
        let mut out = vec![];
        match k {
            StmtKind::Do { label: Some(_), .. } | StmtKind::DoWhile { label: Some(_), .. } => {
                if !keyword(&mut at, "DO") {
                    return None;
                }
                out.push(digits(&mut at)?);
            }
            StmtKind::Goto(_) => {
                if !keyword(&mut at, "GOTO") {
                    return None;
                }
                out.push(digits(&mut at)?);
            }
            StmtKind::ComputedGoto(ls, _) => {
                if !keyword(&mut at, "GOTO") || !keyword(&mut at, "(") {
                    return None;
                }
                for (i, _) in ls.iter().enumerate() {
                    if i > 0 && !keyword(&mut at, ",") {
                        return None;
                    }
                    out.push(digits(&mut at)?);
                }
            }
            StmtKind::ArithIf(..) => {
                if !keyword(&mut at, "IF") || !past_paren(&mut at) {
                    return None;
                }
                for i in 0..3 {
                    if i > 0 && !keyword(&mut at, ",") {
                        return None;
                    }
                    out.push(digits(&mut at)?);
                }
            }
            _ => {}
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_labels_keep_their_digits_where_they_can() {
        let used: BTreeSet<u32> = [10, 11, 20, 99, 1, 2, 3, 4, 5, 6, 7, 8, 9].into_iter().collect();
        assert_eq!(fresh(10, &used), Some(12));
        assert_eq!(fresh(99, &used), Some(12));
        assert_eq!(fresh(5, &used), Some(12));
        assert_eq!(fresh(130, &used), Some(131));
    }

    #[test]
    fn numbers_skip_names_reals_and_strings() {
        let lines = vec!["      X1 = 130 + 2.5 + Y(3) + 'A 130'".to_string()];
        let c = Code::read(&lines, 0, 0, true, false);
        let v: Vec<u64> = c.numbers(true).iter().map(|n| n.value).collect();
        assert_eq!(v, vec![130, 3]);
    }
}
