//! Text layout: the user's text cut into lines (line endings kept), recognition of existing
//! DVM directive lines, and directive bodies laid out as comment lines within the column
//! limits of each source form.

/// Fixed form: text must end at column 72.
pub const FIXED_LIMIT: usize = 72;
/// Free form: lines hold at most 132 characters.
pub const FREE_LIMIT: usize = 132;

/// One line of the user's text: its content (without the line ending) and its line ending
/// (`"\r\n"`, `"\n"`, or `""` for a last line without one).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Line<'a> {
    pub content: &'a str,
    pub eol: &'a str,
}

/// Cut a text into lines the way `str::lines` numbers them, keeping each line ending.
pub(crate) fn split_lines(text: &str) -> Vec<Line<'_>> {
    text.split_inclusive('\n')
        .map(|l| {
            if let Some(c) = l.strip_suffix("\r\n") {
                Line {
                    content: c,
                    eol: &l[c.len()..],
                }
            } else if let Some(c) = l.strip_suffix('\n') {
                Line {
                    content: c,
                    eol: &l[c.len()..],
                }
            } else {
                Line {
                    content: l,
                    eol: "",
                }
            }
        })
        .collect()
}

/// The line ending most lines of the text use (`"\n"` when there is none).
pub(crate) fn dominant_eol(lines: &[Line]) -> &'static str {
    let crlf = lines.iter().filter(|l| l.eol == "\r\n").count();
    let lf = lines.iter().filter(|l| l.eol == "\n").count();
    if crlf > lf {
        "\r\n"
    } else {
        "\n"
    }
}

fn eq_dvm(s: &str) -> bool {
    s.len() == 4 && s.eq_ignore_ascii_case("DVM$")
}

/// Is this line (without its line ending) a DVM directive line or a continuation of one:
/// `CDVM$`, `cdvm$`, `*DVM$`, `!DVM$` in column 1 in fixed form; `!DVM$` after optional
/// blanks in free form (the same lines the front end reads as DVM directives). `!$SPF` hints
/// are not DVM directive lines.
pub fn is_dvm_line(line: &str, fixed_form: bool) -> bool {
    if fixed_form {
        let mut c = line.chars();
        matches!(c.next(), Some('c' | 'C' | '*' | '!')) && c.as_str().get(..4).is_some_and(eq_dvm)
    } else {
        let t = line.trim_start_matches([' ', '\t']);
        t.strip_prefix('!')
            .and_then(|r| r.get(..4))
            .is_some_and(eq_dvm)
    }
}

/// The leading blanks of a line (its indentation).
pub(crate) fn indentation(line: &str) -> &str {
    let t = line.trim_start_matches([' ', '\t']);
    &line[..line.len() - t.len()]
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Cut a directive body into pieces of at most `width` characters whose concatenation is the
/// body. A cut goes, in order of preference: after a comma outside parentheses, before a
/// blank outside parentheses, after any comma, between two tokens, anywhere. A preferred cut
/// is taken only if it keeps at least a third of the width on the line.
pub(crate) fn split_body(body: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let chars: Vec<char> = body.chars().collect();
    // depth[i]: parenthesis depth just before chars[i].
    let mut depth = Vec::with_capacity(chars.len() + 1);
    let mut dp: i32 = 0;
    for &c in &chars {
        depth.push(dp);
        match c {
            '(' => dp += 1,
            ')' => dp -= 1,
            _ => {}
        }
    }
    depth.push(dp);
    let mut out = Vec::new();
    let mut p = 0;
    while chars.len() - p > width {
        let hi = p + width;
        // Candidate cut positions b: the piece is chars[p..b].
        let classes: [&dyn Fn(usize) -> bool; 4] = [
            &|b: usize| chars[b - 1] == ',' && depth[b - 1] == 0,
            &|b: usize| chars[b] == ' ' && depth[b] == 0,
            &|b: usize| chars[b - 1] == ',',
            &|b: usize| !(is_ident(chars[b - 1]) && is_ident(chars[b])),
        ];
        let mut best: Option<usize> = None;
        let mut fallback: Option<usize> = None;
        for class in classes {
            if let Some(b) = (p + 1..=hi).rev().find(|&b| class(b)) {
                if b - p >= width.div_ceil(3) {
                    best = Some(b);
                    break;
                }
                fallback = Some(fallback.map_or(b, |f: usize| f.max(b)));
            }
        }
        let b = best.or(fallback).unwrap_or(hi);
        out.push(chars[p..b].iter().collect());
        p = b;
    }
    if p < chars.len() || out.is_empty() {
        out.push(chars[p..].iter().collect());
    }
    out
}

/// The comment lines (without line endings) that carry a directive body.
///
/// Fixed form: `CDVM$ ` in columns 1-6, continuation lines `CDVM$*`, nothing past column 72.
/// Free form: `!DVM$ ` after `indent`, a line that goes on ends with `&` and the next starts
/// with `!DVM$&`; at most 132 characters (the indentation is dropped if it leaves less than 40
/// columns for the text).
pub fn layout_directive(body: &str, fixed_form: bool, indent: &str) -> Vec<String> {
    if fixed_form {
        let pieces = split_body(body, FIXED_LIMIT - 6);
        return pieces
            .into_iter()
            .enumerate()
            .map(|(k, p)| format!("{}{p}", if k == 0 { "CDVM$ " } else { "CDVM$*" }))
            .collect();
    }
    let mut indent = indent;
    if FREE_LIMIT.saturating_sub(indent.chars().count() + 7) < 40 {
        indent = "";
    }
    let width = FREE_LIMIT - indent.chars().count() - 7;
    let pieces = split_body(body, width);
    let last = pieces.len() - 1;
    pieces
        .into_iter()
        .enumerate()
        .map(|(k, p)| {
            let lead = if k == 0 { "!DVM$ " } else { "!DVM$&" };
            let amp = if k < last { "&" } else { "" };
            format!("{indent}{lead}{p}{amp}")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_concatenate_to_the_body_and_fit() {
        let body = "PARALLEL (J,I) ON A(I,J), REDUCTION(MAX(EPS),SUM(S)), SHADOW_RENEW(A(1:1,1:1),B(2:2,2:2)), REMOTE_ACCESS(C(:,1))";
        for w in [5, 10, 20, 30, 66, 125] {
            let p = split_body(body, w);
            assert_eq!(p.concat(), body, "width {w}");
            assert!(p.iter().all(|x| x.chars().count() <= w), "width {w}: {p:?}");
        }
    }

    #[test]
    fn cuts_after_top_level_commas_first() {
        let body = "PARALLEL (J,I) ON A(I,J), REDUCTION(MAX(EPS)), SHADOW_RENEW(A(1:1,1:1))";
        let p = split_body(body, 50);
        assert_eq!(
            p,
            vec![
                "PARALLEL (J,I) ON A(I,J), REDUCTION(MAX(EPS)),",
                " SHADOW_RENEW(A(1:1,1:1))"
            ]
        );
    }

    #[test]
    fn long_parenthesised_list_cut_after_inner_comma() {
        let body = format!("SHADOW_RENEW({})", ["ABCDEFGH(1:1,1:1)"; 6].join(","));
        let p = split_body(&body, 66);
        assert_eq!(p.concat(), body);
        assert!(p[0].ends_with(','), "{p:?}");
    }

    #[test]
    fn dvm_lines() {
        assert!(is_dvm_line("CDVM$ DISTRIBUTE A(BLOCK)", true));
        assert!(is_dvm_line("cdvm$*,B", true));
        assert!(is_dvm_line("*DVM$ PARALLEL (I) ON A(I)", true));
        assert!(is_dvm_line("!dvm$ x", true));
        assert!(!is_dvm_line("C$SPF ANALYSIS(PRIVATE(X))", true));
        assert!(!is_dvm_line("      !DVM$ x", true));
        assert!(!is_dvm_line("C     DVM$", true));
        assert!(!is_dvm_line("      X = 1", true));
        assert!(is_dvm_line("   !DVM$ PARALLEL (I)", false));
        assert!(is_dvm_line("\t!dvm$& ,B", false));
        assert!(!is_dvm_line("!$SPF PARALLEL", false));
        assert!(!is_dvm_line("x = 1 !DVM$ no", false));
        assert!(!is_dvm_line("!DVM", false));
        assert!(!is_dvm_line("", false));
        assert!(!is_dvm_line("!é", false));
    }

    #[test]
    fn lines_keep_their_endings() {
        let l = split_lines("a\r\nb\nc");
        assert_eq!(l.len(), 3);
        assert_eq!((l[0].content, l[0].eol), ("a", "\r\n"));
        assert_eq!((l[1].content, l[1].eol), ("b", "\n"));
        assert_eq!((l[2].content, l[2].eol), ("c", ""));
        assert_eq!(split_lines("").len(), 0);
        assert_eq!(dominant_eol(&split_lines("a\r\nb\r\nc\n")), "\r\n");
    }
}

/// A Fortran statement laid out within the column limits: fixed form from column 7 with
/// continuation lines marked `&` in column 6, free form after `indent` with `&` at the end of
/// each continued line and at the start of the next. Lines break at blanks only.
pub(crate) fn statement(text: &str, fixed: bool, indent: &str) -> Vec<String> {
    let (limit, first, next) = if fixed {
        (FIXED_LIMIT, "      ".to_string(), "     &".to_string())
    } else {
        (FREE_LIMIT - 2, indent.to_string(), format!("{indent}& "))
    };
    let mut out: Vec<String> = vec![];
    let mut cur = first;
    let mut empty = true;
    for w in text.split(' ').filter(|w| !w.is_empty()) {
        let sep = if empty { "" } else { " " };
        if !empty && cur.len() + sep.len() + w.len() > limit {
            if !fixed {
                cur.push_str(" &");
            }
            out.push(std::mem::replace(&mut cur, next.clone()));
            cur.push_str(w);
        } else {
            cur.push_str(sep);
            cur.push_str(w);
        }
        empty = false;
    }
    out.push(cur);
    out
}
