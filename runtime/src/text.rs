//! Small helpers over the text of one Fortran statement (free form, continuations joined):
//! top-level splitting, parenthesis matching and identifier search outside character
//! literals.

/// Byte positions of the characters of `s` that are outside character literals, with the
/// parenthesis depth at each of them.
fn scan(s: &str) -> Vec<(usize, char, i32)> {
    let mut out = vec![];
    let mut depth = 0;
    let mut quote: Option<char> = None;
    let cs: Vec<(usize, char)> = s.char_indices().collect();
    let mut k = 0;
    while k < cs.len() {
        let (i, c) = cs[k];
        if let Some(q) = quote {
            if c == q {
                if k + 1 < cs.len() && cs[k + 1].1 == q {
                    k += 2;
                    continue;
                }
                quote = None;
            }
            k += 1;
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '(' | '[' => {
                out.push((i, c, depth));
                depth += 1;
                k += 1;
                continue;
            }
            ')' | ']' => depth -= 1,
            _ => {}
        }
        out.push((i, c, depth));
        k += 1;
    }
    out
}

/// Split at `sep` characters at parenthesis depth 0, outside literals.
pub fn split_top(s: &str, sep: char) -> Vec<String> {
    let mut parts = vec![];
    let mut start = 0;
    for (i, c, d) in scan(s) {
        if c == sep && d == 0 {
            parts.push(s[start..i].to_string());
            start = i + c.len_utf8();
        }
    }
    parts.push(s[start..].to_string());
    parts
}

/// The name an item of a list starts with (`A(N, M)`, `stat=k`), lower case.
pub fn leading_name(item: &str) -> String {
    item.trim().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>().to_ascii_lowercase()
}

/// Position of the `)` matching the `(` at byte `open`.
pub fn matching_paren(s: &str, open: usize) -> Option<usize> {
    let mut depth = 0;
    for (i, c, _) in scan(s) {
        if i < open {
            continue;
        }
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Position of the first assignment `=` at depth 0 (not `==`, `<=`, `>=`, `/=`, `=>`).
pub fn assign_eq(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    for (i, c, d) in scan(s) {
        if c == '=' && d == 0 {
            let prev = if i > 0 { b[i - 1] } else { b' ' };
            let next = b.get(i + 1).copied().unwrap_or(b' ');
            if !matches!(prev, b'=' | b'<' | b'>' | b'/') && !matches!(next, b'=' | b'>') {
                return Some(i);
            }
        }
    }
    None
}

/// A DO header's parts (`do [label] var = lo, hi [, step]`): the position of its `=` and
/// the two or three bound expressions after it, as written (None for anything else).
pub fn do_parts(t: &str) -> Option<(usize, Vec<String>)> {
    let eq = assign_eq(t)?;
    let parts = split_top(&t[eq + 1..], ',');
    (2..=3).contains(&parts.len()).then_some((eq, parts))
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

/// Occurrences of identifier `name` (any case) outside literals: (start, end) byte ranges.
/// Skips `.op.` operators, structure components (`x%name`) and keyword arguments
/// (`name=` inside parentheses is still returned; callers decide).
pub fn idents(s: &str, name: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let n = name.len();
    let mut out = vec![];
    let outside: std::collections::BTreeSet<usize> = scan(s).into_iter().map(|(i, _, _)| i).collect();
    let mut i = 0;
    while i + n <= b.len() {
        if outside.contains(&i)
            && s[i..i + n].eq_ignore_ascii_case(name)
            && (i == 0 || !is_ident_char(b[i - 1]) && b[i - 1] != b'%')
            && (i + n == b.len() || !is_ident_char(b[i + n]))
            && !(i > 0 && b[i - 1] == b'.' && b.get(i + n) == Some(&b'.'))
        {
            out.push((i, i + n));
            i += n;
        } else {
            i += 1;
        }
    }
    out
}

/// The byte range of the terminal label in a DO statement's line (`[label] [name:] DO 10[,]
/// I = ...`, any case and spacing) and its value; None for any other line.
pub fn do_label(line: &str) -> Option<(usize, usize, u32)> {
    let mut at = line.len() - line.trim_start().len();
    // a statement label
    let digits = line[at..].chars().take_while(|c| c.is_ascii_digit()).count();
    if digits > 0 && line[at + digits..].starts_with([' ', '\t']) {
        at += digits;
        at += line[at..].len() - line[at..].trim_start().len();
    }
    // a construct name
    if let Some(c) = line[at..].find(':') {
        let name = line[at..at + c].trim();
        if !name.is_empty() && name.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_') && !line[at + c..].starts_with(":=") {
            at += c + 1;
            at += line[at..].len() - line[at..].trim_start().len();
        }
    }
    if line.len() < at + 2 || !line[at..at + 2].eq_ignore_ascii_case("do") {
        return None;
    }
    at += 2;
    at += line[at..].len() - line[at..].trim_start().len();
    let n = line[at..].chars().take_while(|c| c.is_ascii_digit()).count();
    let value = line[at..at + n].parse().ok()?;
    Some((at, at + n, value))
}

/// Leading statement label and the rest of the statement.
pub fn split_label(s: &str) -> (Option<String>, String) {
    let t = s.trim_start();
    let digits: String = t.chars().take_while(|c| c.is_ascii_digit()).collect();
    if !digits.is_empty() && t[digits.len()..].starts_with([' ', '\t']) {
        (Some(digits.clone()), t[digits.len()..].trim_start().to_string())
    } else {
        (None, t.to_string())
    }
}

/// The statement text of normalized source lines `lines` (continuations joined, comments
/// dropped).
pub fn join(lines: &[&str]) -> String {
    let mut out = String::new();
    for (k, l) in lines.iter().enumerate() {
        let l = match analyzer::source::comment_start(l) {
            Some(p) => &l[..p],
            None => l,
        };
        let mut t = l.trim_end();
        let mut cont_start = false;
        if k > 0 {
            let ts = t.trim_start();
            if let Some(r) = ts.strip_prefix('&') {
                t = r;
                cont_start = true;
            } else {
                t = ts;
            }
        }
        let t = t.strip_suffix('&').unwrap_or(t);
        if k > 0 && !cont_start && !out.ends_with(' ') {
            out.push(' ');
        }
        out.push_str(t);
    }
    out.trim().to_string()
}

/// If `s` starts with keyword `kw` (any case) followed by a non-identifier character,
/// the rest.
pub fn strip_kw<'a>(s: &'a str, kw: &str) -> Option<&'a str> {
    let t = s.trim_start();
    if t.len() >= kw.len() && t[..kw.len()].eq_ignore_ascii_case(kw) {
        let rest = &t[kw.len()..];
        if rest.is_empty() || !is_ident_char(rest.as_bytes()[0]) {
            return Some(rest);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitting() {
        assert_eq!(split_top("A(L,L), EPS, B(2,'a,b')", ','), vec!["A(L,L)", " EPS", " B(2,'a,b')"]);
        assert_eq!(matching_paren("x(a(1),b)", 1), Some(8));
        assert_eq!(assign_eq("IF (A .LE. 2) X = 1"), Some(16));
        assert_eq!(assign_eq("A(I,J) = B(I,J) == 1"), Some(7));
    }

    #[test]
    fn identifiers() {
        let t = "A(I) = AA + a + 'a' + X%A + B.EQ.A";
        assert_eq!(idents(t, "a"), vec![(0, 1), (12, 13), (t.len() - 1, t.len())]);
        assert!(idents("IF (X .EQ. 1)", "eq").is_empty());
    }

    #[test]
    fn joining() {
        assert_eq!(join(&["      B(I,J) = (A(1) + &", "     &   A(2)) / 4"]), "B(I,J) = (A(1) +    A(2)) / 4");
        assert_eq!(split_label("  3 OPEN (3)"), (Some("3".into()), "OPEN (3)".into()));
    }

    #[test]
    fn do_labels() {
        assert_eq!(do_label("      DO 10 J = 1, N"), Some((9, 11, 10)));
        assert_eq!(do_label("   5  do 20, k = 1, 2"), Some((9, 11, 20)));
        assert_eq!(do_label("outer: DO 7 I = 1, 3"), Some((10, 11, 7)));
        assert_eq!(do_label("DO I = 1, 3"), None);
        assert_eq!(do_label("DOUBLE PRECISION X"), None);
        assert_eq!(do_label("X = 1"), None);
    }
}
