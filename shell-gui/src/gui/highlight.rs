//! Fortran syntax colouring driven by tree-sitter-fortran's own highlight query
//! (`HIGHLIGHTS_QUERY`). Fixed form is first converted line by line into free form without
//! moving code (`analyzer::source::normalize_fixed`), so every capture lands on the same line
//! and column of the user's file. No egui here: the result is byte ranges per line.

use std::sync::OnceLock;
use streaming_iterator::StreamingIterator;
use tree_sitter::{Language, Parser, Query, QueryCursor};

/// What a piece of text is, for choosing its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Keyword,
    Comment,
    String,
    Number,
    Function,
    Type,
    Operator,
    Variable,
}

impl Class {
    fn of_capture(name: &str) -> Option<Class> {
        let head = name.split('.').next().unwrap_or(name);
        Some(match head {
            "keyword" | "attribute" | "module" | "custom" => Class::Keyword,
            "comment" => Class::Comment,
            "string" => Class::String,
            "number" | "boolean" => Class::Number,
            "function" => Class::Function,
            "type" => Class::Type,
            "operator" | "punctuation" => Class::Operator,
            "variable" | "property" => Class::Variable,
            _ => return None,
        })
    }
}

/// A coloured run of one line: byte range `start..end` of the line's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    pub start: usize,
    pub end: usize,
    pub class: Class,
}

fn language() -> Language {
    tree_sitter_fortran::LANGUAGE.into()
}

fn query() -> &'static Query {
    static Q: OnceLock<Query> = OnceLock::new();
    Q.get_or_init(|| {
        Query::new(&language(), tree_sitter_fortran::HIGHLIGHTS_QUERY)
            .expect("tree-sitter-fortran's highlight query compiles")
    })
}

/// The coloured runs of every line of `text` (one entry per line of `text.lines()`).
/// Where captures overlap, the innermost wins. Never fails: text the grammar cannot
/// parse is simply less coloured.
pub fn highlight(text: &str, fixed: bool) -> Vec<Vec<Run>> {
    let lines: Vec<&str> = text.lines().collect();
    let parsed: Vec<String> = if fixed {
        analyzer::source::normalize_fixed(&lines)
    } else {
        lines.iter().map(|l| l.to_string()).collect()
    };
    let buffer = parsed.join("\n");
    let mut classes: Vec<Vec<Option<Class>>> = lines.iter().map(|l| vec![None; l.len()]).collect();
    let mut parser = Parser::new();
    if parser.set_language(&language()).is_ok() {
        if let Some(tree) = parser.parse(&buffer, None) {
            let q = query();
            let names = q.capture_names();
            let mut cursor = QueryCursor::new();
            let mut caps = cursor.captures(q, tree.root_node(), buffer.as_bytes());
            // (start, end, pattern, class): the query colours whole statements as keywords
            // and their names as variables, so the innermost capture wins, and among equal
            // ranges the later (more specific) pattern.
            let mut found: Vec<(tree_sitter::Point, tree_sitter::Point, usize, usize, Class)> =
                vec![];
            while let Some((m, i)) = caps.next() {
                let c = m.captures()[*i];
                if let Some(class) = Class::of_capture(names[c.index as usize]) {
                    let size = c.node.end_byte() - c.node.start_byte();
                    found.push((
                        c.node.start_position(),
                        c.node.end_position(),
                        size,
                        m.pattern_index,
                        class,
                    ));
                }
            }
            found.sort_by(|a, b| b.2.cmp(&a.2).then(a.3.cmp(&b.3)));
            for (s, e, _, _, class) in found {
                for row in s.row..=e.row.min(lines.len().saturating_sub(1)) {
                    let Some(cells) = classes.get_mut(row) else {
                        break;
                    };
                    let from = if row == s.row { s.column } else { 0 };
                    let to = if row == e.row { e.column } else { cells.len() };
                    for cell in cells.iter_mut().take(to).skip(from) {
                        *cell = Some(class);
                    }
                }
            }
        }
    }
    // Fixed form: everything past column 72 is a comment for the compiler.
    if fixed {
        for cells in classes.iter_mut() {
            for cell in cells.iter_mut().skip(72) {
                *cell = Some(Class::Comment);
            }
        }
    }
    lines
        .iter()
        .zip(classes)
        .map(|(line, cells)| runs(line, &cells))
        .collect()
}

/// Group equal neighbouring cells into runs whose ends are character boundaries.
fn runs(line: &str, cells: &[Option<Class>]) -> Vec<Run> {
    let mut out: Vec<Run> = vec![];
    let mut i = 0;
    while i < cells.len() {
        let Some(class) = cells[i] else {
            i += 1;
            continue;
        };
        let mut j = i + 1;
        while j < cells.len() && cells[j] == Some(class) {
            j += 1;
        }
        let (mut s, mut e) = (i, j);
        while s > 0 && !line.is_char_boundary(s) {
            s -= 1;
        }
        while e < line.len() && !line.is_char_boundary(e) {
            e += 1;
        }
        match out.last_mut() {
            Some(last) if last.end > s => last.end = last.end.max(e),
            _ => out.push(Run {
                start: s,
                end: e,
                class,
            }),
        }
        i = j;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class_at(text: &str, fixed: bool, line: usize, word: &str) -> Option<Class> {
        let runs = highlight(text, fixed);
        let l = text.lines().nth(line).unwrap();
        let col = l.find(word).unwrap();
        runs[line]
            .iter()
            .find(|r| r.start <= col && col < r.end)
            .map(|r| r.class)
    }

    #[test]
    fn fixed_form_keywords_comments_numbers() {
        let src =
            "C a comment\n      PROGRAM P\n      DO 10 I = 1, 10\n   10 CONTINUE\n      END\n";
        assert_eq!(class_at(src, true, 0, "comment"), Some(Class::Comment));
        assert_eq!(class_at(src, true, 1, "PROGRAM"), Some(Class::Keyword));
        assert_eq!(class_at(src, true, 2, "DO"), Some(Class::Keyword));
        assert_eq!(class_at(src, true, 2, "10 I"), Some(Class::Number));
    }

    #[test]
    fn free_form_strings_and_continuations() {
        let src = "program p\n  print *, 'hi', &\n    1.5\nend program\n";
        assert_eq!(class_at(src, false, 1, "'hi'"), Some(Class::String));
        assert_eq!(class_at(src, false, 2, "1.5"), Some(Class::Number));
        assert_eq!(class_at(src, false, 0, "program"), Some(Class::Keyword));
    }
}
