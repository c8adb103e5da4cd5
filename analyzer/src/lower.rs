//! Lowering: tree-sitter-fortran's concrete syntax tree of one parse buffer into program
//! units. Statements are first flattened in source order (labels are read from the label
//! field of the line, not from tree-sitter's nesting), then DO and IF structure is rebuilt
//! here, so labelled and shared-label F77 loops do not depend on the grammar's choices.

use crate::ast::*;
use crate::diag::{codes, Diagnostic};
use crate::source::{FileId, ParseBuffer, SourceMap};
use tree_sitter::Node as TsNode;

pub struct Lowered {
    pub units: Vec<Unit>,
}

struct Ctx<'a> {
    buf: &'a ParseBuffer,
    map: &'a SourceMap,
    src: &'a str,
    lines: Vec<&'a str>,
    diags: &'a mut Vec<Diagnostic>,
    /// Variables named like keywords the grammar cannot take as names, renamed in the text
    /// the parser sees (alias -> the user's name; see `keyword_aliases`).
    aliases: std::collections::BTreeMap<String, String>,
}

/// Keywords that tree-sitter-fortran does not accept as variable names in every position
/// (`class = 'U'` is a syntax error), though Fortran allows any keyword as a name. Type
/// keywords are left out: a variable named INTEGER is too rare to risk.
const NAME_KEYWORDS: &[&str] = &[
    "abstract", "allocate", "assign", "associate", "backspace", "bind", "class", "close", "common", "contains",
    "continue", "deallocate", "endfile", "enum", "equivalence", "forall", "goto", "implicit", "import", "intent",
    "interface", "namelist", "pause", "procedure", "protected", "return", "rewind", "use", "volatile",
];

/// The text the parser sees: variables declared (in a type declaration) with a name from
/// NAME_KEYWORDS are renamed to an alias of the same length (columns stay), everywhere
/// outside character literals and comments, except where the word starts a statement that is
/// not an assignment (`CLOSE(10)` stays the statement). None when nothing is renamed.
fn keyword_aliases(text: &str) -> Option<(String, std::collections::BTreeMap<String, String>)> {
    let code_of = |l: &str| -> usize { crate::source::comment_start(l).unwrap_or(l.len()) };
    let words = |l: &str| -> Vec<(usize, String)> {
        let mut v = vec![];
        let b = l.as_bytes();
        let mut quote: Option<u8> = None;
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if let Some(q) = quote {
                if c == q {
                    quote = None;
                }
                i += 1;
                continue;
            }
            if c == b'\'' || c == b'"' {
                quote = Some(c);
                i += 1;
                continue;
            }
            if c.is_ascii_alphabetic() && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                v.push((start, l[start..i].to_ascii_lowercase()));
                continue;
            }
            i += 1;
        }
        v
    };
    // declared: in a type declaration statement
    let mut declared = std::collections::BTreeSet::new();
    for l in text.lines() {
        let code = &l[..code_of(l)];
        let ws = words(code);
        let Some((_, first)) = ws.first() else { continue };
        if matches!(first.as_str(), "integer" | "real" | "double" | "doubleprecision" | "complex" | "logical" | "character") {
            // the entities: after `::` (attributes such as INTENT come before it), else
            // everything after the type (F77: `CHARACTER*8 CLASS`)
            let from = match code.find("::") {
                Some(k) => k + 2,
                None => 0,
            };
            for (at, w) in &ws[1..] {
                if *at >= from && NAME_KEYWORDS.contains(&w.as_str()) {
                    declared.insert(w.clone());
                }
            }
        }
    }
    if declared.is_empty() {
        return None;
    }
    let all: std::collections::BTreeSet<String> = text.lines().flat_map(|l| words(l).into_iter().map(|(_, w)| w)).collect();
    let mut aliases = std::collections::BTreeMap::new();
    let mut to_alias = std::collections::BTreeMap::new();
    for kw in &declared {
        let alias = ["z_", "y_", "x_", "w_", "v_"]
            .iter()
            .map(|p| format!("{p}{}", &kw[2..]))
            .find(|a| !all.contains(a))?;
        aliases.insert(alias.clone(), kw.clone());
        to_alias.insert(kw.clone(), alias);
    }
    let mut out = String::with_capacity(text.len());
    for (n, l) in text.split('\n').enumerate() {
        if n > 0 {
            out.push('\n');
        }
        let code_end = code_of(l);
        let ws = words(&l[..code_end]);
        let mut line = l.to_string();
        for (k, (at, w)) in ws.iter().enumerate() {
            let Some(alias) = to_alias.get(w) else { continue };
            // the first word of a statement (after a label; not a continuation) stays a
            // keyword unless an assignment follows: `close = 1`, `close(2) = 1`
            let before = l[..*at].trim();
            let starts = k == 0 && (before.is_empty() || before.chars().all(|c| c.is_ascii_digit()));
            if starts {
                let rest = l[at + w.len()..code_end].trim_start();
                let after_parens = if let Some(r) = rest.strip_prefix('(') {
                    let mut depth = 1;
                    let mut end = None;
                    for (i, c) in r.char_indices() {
                        match c {
                            '(' => depth += 1,
                            ')' => {
                                depth -= 1;
                                if depth == 0 {
                                    end = Some(i);
                                    break;
                                }
                            }
                            _ => {}
                        }
                    }
                    end.map(|e| r[e + 1..].trim_start()).unwrap_or("")
                } else {
                    rest
                };
                if !(after_parens.starts_with('=') && !after_parens.starts_with("==")) {
                    continue;
                }
            }
            line.replace_range(*at..at + w.len(), alias);
        }
        out.push_str(&line);
    }
    Some((out, aliases))
}

pub fn parse_tree(text: &str) -> Option<tree_sitter::Tree> {
    let mut p = tree_sitter::Parser::new();
    p.set_language(&tree_sitter_fortran::LANGUAGE.into()).ok()?;
    p.parse(text, None)
}

pub fn lower(buf: &ParseBuffer, map: &SourceMap, diags: &mut Vec<Diagnostic>) -> Lowered {
    let mut units = vec![];
    let (src, aliases) = match keyword_aliases(&buf.text) {
        Some((t, a)) => (std::borrow::Cow::Owned(t), a),
        None => (std::borrow::Cow::Borrowed(buf.text.as_str()), Default::default()),
    };
    let Some(tree) = parse_tree(&src) else {
        diags.push(Diagnostic::error(
            codes::SYNTAX,
            "the parser gave no tree",
            Some(map.location(buf.root, 1, 1)),
        ));
        return Lowered { units };
    };
    let mut cx = Ctx {
        buf,
        map,
        src: &src,
        lines: src.split('\n').collect(),
        diags,
        aliases,
    };
    let root = tree.root_node();
    let mut c = root.walk();
    for ch in root.children(&mut c) {
        lower_top(&mut cx, ch, None, &mut units);
    }
    Lowered { units }
}

fn lower_top(cx: &mut Ctx, n: TsNode, parent: Option<&str>, units: &mut Vec<Unit>) {
    match n.kind() {
        "program" | "subroutine" | "function" | "module" | "block_data" | "submodule" => {
            lower_unit(cx, n, parent, units)
        }
        "comment" => {}
        "ERROR" => {
            // A whole unit failed to parse: report; try to salvage units inside.
            report_errors(cx, n);
            let mut c = n.walk();
            for ch in n.children(&mut c) {
                if matches!(ch.kind(), "program" | "subroutine" | "function" | "module") {
                    lower_top(cx, ch, parent, units);
                }
            }
        }
        k if k.ends_with("_statement") || k == "do_loop" || k == "if_statement" => {
            // Statements outside any unit: an implicit main program (F77 allows omitting PROGRAM).
            lower_implicit_main(cx, n, units);
        }
        _ => {}
    }
}

fn lower_implicit_main(cx: &mut Ctx, n: TsNode, units: &mut Vec<Unit>) {
    let span = span_of(cx, n);
    if let Some(u) = units
        .iter_mut()
        .find(|u| u.name == "main" && u.kind == UnitKind::Program && u.parent.is_none())
    {
        let mut flat = std::mem::take(&mut u.stmts);
        flatten(cx, n, &mut flat);
        u.stmts = flat;
        return;
    }
    let mut flat = vec![];
    flatten(cx, n, &mut flat);
    units.push(Unit {
        kind: UnitKind::Program,
        name: "main".into(),
        params: vec![],
        result: None,
        fn_type: None,
        file: span.file,
        span,
        end_line: span.end_line,
        parent: None,
        stmts: flat,
        body: vec![],
    });
}

fn text<'a>(cx: &Ctx<'a>, n: TsNode) -> &'a str {
    &cx.src[n.byte_range()]
}

fn lname(cx: &Ctx, n: TsNode) -> String {
    let name = text(cx, n).trim().to_ascii_lowercase();
    match cx.aliases.get(&name) {
        Some(user) => user.clone(),
        None => name,
    }
}

fn span_of(cx: &Ctx, n: TsNode) -> Span {
    let s = n.start_position();
    let e = n.end_position();
    let (file, line, col) = cx.buf.origin(s.row, s.column);
    let end_row = if e.column == 0 && e.row > s.row {
        e.row - 1
    } else {
        e.row
    };
    let (efile, eline, _) = cx.buf.origin(end_row, 0);
    Span {
        file,
        line,
        col,
        end_line: if efile == file { eline.max(line) } else { line },
    }
}

/// Inside an ERROR node, the node where the trouble starts: the first child that is not a
/// complete, error-free statement (tree-sitter often wraps a whole unit in one ERROR node).
fn error_focus(n: TsNode) -> TsNode {
    let mut c = n.walk();
    let kids: Vec<TsNode> = n.children(&mut c).collect();
    for k in kids {
        let complete = !k.has_error()
            && (k.kind().ends_with("_statement")
                || matches!(
                    k.kind(),
                    "variable_declaration"
                        | "variable_modification"
                        | "comment"
                        | "do_loop"
                        | "if_statement"
                        | "program"
                        | "subroutine"
                        | "function"
                ));
        if complete {
            continue;
        }
        return if k.is_error() { error_focus(k) } else { k };
    }
    n
}

/// Two common mistakes said plainly instead of "syntax error near ...": an END DO / END IF
/// without its construct (E0010), and a program unit whose END is missing.
fn explain_error(cx: &Ctx, n: TsNode, snippet: &str) -> Option<(&'static str, String, Option<(FileId, u32, u32)>)> {
    // a fixed-form statement cut at column 72 (a long line typed as if columns were free): on
    // the error's lines, or the statement just before them (the parser may stumble only at
    // the next statement, a `CONTINUE` after an expression ending in `/`)
    let start = n.start_position().row;
    let before = (start.saturating_sub(3)..start).rev().find(|&row| {
        let (fid, line, _) = cx.buf.origin(row, 0);
        cx.map.file(fid).line(line).is_some_and(|t| !t.trim().is_empty() && !crate::source::fixed_comment_line(t))
    });
    for row in before.into_iter().chain(start..=n.end_position().row) {
        let (fid, line, _) = cx.buf.origin(row, 0);
        let f = cx.map.file(fid);
        if f.form != crate::source::SourceForm::Fixed {
            continue;
        }
        let Some(orig) = f.line(line) else { continue };
        let comment = crate::source::fixed_comment_line(orig);
        let past: String = orig.chars().skip(72).collect();
        // (card sequence numbers fill columns 73-80 with digits from column 73 on: four at
        // least, not the `4` of `... / 4` typed one column too far)
        let sequence = !past.starts_with(' ') && past.trim_end().len() >= 4 && past.trim().chars().all(|c| c.is_ascii_digit());
        if !comment && !past.trim().is_empty() && !sequence {
            return Some((
                codes::SYNTAX,
                format!(
                    "syntax error: this line goes past column 72, and fixed form ignores what follows (`{}` is cut off; the error shows near `{}`); continue the statement on a next line (a character in column 6)",
                    past.trim().chars().take(30).collect::<String>(),
                    snippet.trim()
                ),
                Some((fid, line, 73)),
            ));
        }
    }
    let line = cx.lines.get(n.start_position().row)?.trim().to_ascii_lowercase();
    let line = line.trim_start_matches(|c: char| c.is_ascii_digit() || c == ' ');
    for (pat, what) in [("end do", "END DO without a DO"), ("enddo", "END DO without a DO"), ("end if", "END IF without an IF ... THEN"), ("endif", "END IF without an IF ... THEN")] {
        if line.starts_with(pat) {
            return Some((codes::UNMATCHED_END, format!("{what} (an extra `{}`?)", line.trim()), None));
        }
    }
    let head = snippet.trim().to_ascii_lowercase();
    let unit = ["program", "subroutine", "module", "block data", "function"]
        .iter()
        .any(|k| head.starts_with(k) || head.split_whitespace().skip(1).any(|w| w.starts_with("function")));
    if unit {
        // the error runs to the end of the file and no END line closes it
        let body = text(cx, n);
        let closed = body.lines().skip(1).any(|l| {
            let t = l.trim().to_ascii_lowercase();
            t == "end" || ["end program", "end subroutine", "end function", "end module", "end block"].iter().any(|e| t.starts_with(e))
        });
        if !closed && n.end_position().row + 2 >= cx.lines.len() {
            return Some((codes::UNMATCHED_END, format!("`{}` has no END statement: the file ends inside it", snippet.trim()), None));
        }
    }
    None
}

fn report_errors(cx: &mut Ctx, n: TsNode) {
    if n.is_error() || n.is_missing() {
        let n = if n.is_error() { error_focus(n) } else { n };
        let sp = span_of(cx, n);
        let what = if n.is_missing() {
            format!("syntax error: missing {}", n.kind())
        } else {
            "syntax error".to_string()
        };
        let snippet: String = text(cx, n)
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .chars()
            .take(40)
            .collect();
        let msg = if snippet.is_empty() || n.is_missing() {
            what
        } else {
            format!("{what} near `{snippet}`")
        };
        let (code, msg, at) = explain_error(cx, n, &snippet).unwrap_or((codes::SYNTAX, msg, None));
        let (file, line, col) = at.unwrap_or((sp.file, sp.line, sp.col));
        cx.diags.push(Diagnostic::error(code, msg, Some(cx.map.location(file, line, col))));
        return;
    }
    if !n.has_error() {
        return;
    }
    let mut c = n.walk();
    for ch in n.children(&mut c) {
        report_errors(cx, ch);
    }
}

fn lower_unit(cx: &mut Ctx, n: TsNode, parent: Option<&str>, units: &mut Vec<Unit>) {
    let kind = match n.kind() {
        "program" => UnitKind::Program,
        "subroutine" => UnitKind::Subroutine,
        "function" => UnitKind::Function,
        "module" | "submodule" => UnitKind::Module,
        _ => UnitKind::BlockData,
    };
    let span = span_of(cx, n);
    let mut unit = Unit {
        kind,
        name: String::new(),
        params: vec![],
        result: None,
        fn_type: None,
        file: span.file,
        span,
        end_line: span.end_line,
        parent: parent.map(|s| s.to_string()),
        stmts: vec![],
        body: vec![],
    };
    let mut flat: Vec<Stmt> = vec![];
    let mut internal: Vec<TsNode> = vec![];
    let mut c = n.walk();
    for ch in n.children(&mut c) {
        match ch.kind() {
            "program_statement"
            | "subroutine_statement"
            | "function_statement"
            | "module_statement"
            | "block_data_statement"
            | "submodule_statement" => {
                unit_header(cx, ch, &mut unit);
                if ch.has_error() {
                    report_errors(cx, ch);
                }
            }
            k if k.starts_with("end_")
                && k.ends_with("_statement")
                && !k.starts_with("end_do")
                && !k.starts_with("end_if") =>
            {
                unit.end_line = span_of(cx, ch).line;
            }
            "internal_procedures" => {
                let mut c2 = ch.walk();
                for p in ch.children(&mut c2) {
                    if matches!(p.kind(), "subroutine" | "function" | "module_procedure") {
                        internal.push(p);
                    }
                }
            }
            _ => flatten(cx, ch, &mut flat),
        }
    }
    if unit.name.is_empty() {
        unit.name = match kind {
            UnitKind::Program => "main".into(),
            UnitKind::BlockData => "_blockdata".into(),
            _ => "_unnamed".into(),
        };
    }
    if kind == UnitKind::Function && unit.result.is_none() {
        unit.result = Some(unit.name.clone());
    }
    unit.stmts = flat;
    let name = unit.name.clone();
    units.push(unit);
    for p in internal {
        lower_unit(cx, p, Some(&name), units);
    }
}

fn unit_header(cx: &mut Ctx, n: TsNode, unit: &mut Unit) {
    let mut c = n.walk();
    for ch in n.children(&mut c) {
        match ch.kind() {
            "name" if unit.name.is_empty() => unit.name = lname(cx, ch),
            "parameters" => {
                let mut c2 = ch.walk();
                for p in ch.named_children(&mut c2) {
                    if p.kind() == "identifier" {
                        unit.params.push(lname(cx, p));
                    }
                }
            }
            "function_result" => {
                let id = named_kids(ch)
                    .into_iter()
                    .find(|x| x.kind() == "identifier");
                if let Some(id) = id {
                    unit.result = Some(lname(cx, id));
                }
            }
            "intrinsic_type" => unit.fn_type = Some(type_spec(cx, ch)),
            _ => {}
        }
    }
}

/// The statement label of the statement starting at `n`: digits in front of it on its line.
fn label_of(cx: &Ctx, n: TsNode) -> Option<u32> {
    let p = n.start_position();
    let line = cx.lines.get(p.row)?;
    let prefix = line.get(..p.column)?;
    let t = prefix.trim();
    if !t.is_empty() && t.len() <= 5 && t.bytes().all(|b| b.is_ascii_digit()) {
        t.parse().ok()
    } else {
        None
    }
}

fn push(flat: &mut Vec<Stmt>, label: Option<u32>, span: Span, kind: StmtKind) {
    let id = StmtId(flat.len() as u32);
    flat.push(Stmt {
        id,
        label,
        name: None,
        span,
        kind,
    });
}

/// Flatten one syntax node into statements (source order).
fn flatten(cx: &mut Ctx, n: TsNode, flat: &mut Vec<Stmt>) {
    match n.kind() {
        "comment" | "statement_label" | "do_label_virtual" | ";" => {}
        "do_loop" | "end_do_label_loop_statement" => {
            let mut c = n.walk();
            let kids: Vec<TsNode> = n.children(&mut c).collect();
            let mut name = None;
            for ch in kids {
                if ch.kind() == "block_label_start_expression" {
                    name = Some(lname(cx, ch).trim_end_matches(':').trim().to_string());
                    continue;
                }
                let before = flat.len();
                flatten(cx, ch, flat);
                if let Some(nm) = name.take() {
                    if let Some(s) = flat.get_mut(before) {
                        s.name = Some(nm);
                    }
                }
            }
        }
        "end_do_loop_statement" => push(flat, label_of(cx, n), span_of(cx, n), StmtKind::EndDo),
        "if_statement" => lower_if(cx, n, flat),
        "elseif_clause" | "else_clause" => {
            let mut c = n.walk();
            let kids: Vec<TsNode> = n.children(&mut c).collect();
            let sp = span_of(cx, n);
            if n.kind() == "elseif_clause" {
                let cond = kids
                    .iter()
                    .find(|k| k.kind() == "parenthesized_expression")
                    .map(|k| expr(cx, *k))
                    .unwrap_or(Expr::Opaque(vec![]));
                push(
                    flat,
                    label_of(cx, n),
                    Span {
                        end_line: sp.line,
                        ..sp
                    },
                    StmtKind::ElseIf(cond),
                );
            } else {
                push(
                    flat,
                    label_of(cx, n),
                    Span {
                        end_line: sp.line,
                        ..sp
                    },
                    StmtKind::Else,
                );
            }
            for ch in kids
                .iter()
                .filter(|k| k.is_named() && k.kind() != "parenthesized_expression")
            {
                flatten(cx, *ch, flat);
            }
        }
        "end_if_statement" => push(flat, label_of(cx, n), span_of(cx, n), StmtKind::EndIf),
        "ERROR" => {
            report_errors(cx, n);
            // Salvage complete statements inside the error node.
            let mut c = n.walk();
            let kids: Vec<TsNode> = n.children(&mut c).collect();
            let sp = span_of(cx, n);
            push(flat, label_of(cx, n), sp, StmtKind::Error);
            for ch in kids {
                if ch.is_named()
                    && (ch.kind().ends_with("_statement")
                        || ch.kind() == "do_loop"
                        || ch.kind() == "if_statement")
                {
                    flatten(cx, ch, flat);
                }
            }
        }
        _ if !n.is_named() => {}
        _ => {
            let label = label_of(cx, n);
            let span = span_of(cx, n);
            if n.has_error() {
                report_errors(cx, n);
                push(flat, label, span, StmtKind::Error);
                return;
            }
            let kind = stmt(cx, n);
            if let StmtKind::Unsupported { what, .. } = &kind {
                let loc = cx.map.location(span.file, span.line, span.col);
                cx.diags.push(Diagnostic::warning(
                    codes::UNSUPPORTED,
                    format!(
                        "unsupported construct ({what}): loops containing it are not parallelized"
                    ),
                    Some(loc),
                ));
            }
            push(flat, label, span, kind);
        }
    }
}

fn lower_if(cx: &mut Ctx, n: TsNode, flat: &mut Vec<Stmt>) {
    let mut c = n.walk();
    let kids: Vec<TsNode> = n.children(&mut c).collect();
    let is_block = kids.iter().any(|k| k.kind() == "then");
    let label = label_of(cx, n);
    let sp = span_of(cx, n);
    let cond_node = kids
        .iter()
        .find(|k| k.kind() == "parenthesized_expression")
        .copied();
    let cond = cond_node
        .map(|k| expr(cx, k))
        .unwrap_or(Expr::Opaque(vec![]));
    if is_block {
        let head_line = cond_node
            .map(|k| span_of(cx, k).end_line)
            .unwrap_or(sp.line);
        push(
            flat,
            label,
            Span {
                end_line: head_line,
                ..sp
            },
            StmtKind::IfThen(cond),
        );
        let mut seen_cond = false;
        for ch in kids {
            if !seen_cond && Some(ch) == cond_node {
                seen_cond = true;
                continue;
            }
            if ch.is_named() {
                flatten(cx, ch, flat);
            }
        }
    } else {
        let inner = kids
            .iter()
            .filter(|k| k.is_named() && Some(**k) != cond_node && k.kind() != "comment")
            .last()
            .copied();
        let inner_stmt = match inner {
            Some(i) if !i.has_error() => {
                let isp = span_of(cx, i);
                Stmt {
                    id: StmtId(u32::MAX),
                    label: None,
                    name: None,
                    span: isp,
                    kind: stmt(cx, i),
                }
            }
            _ => {
                report_errors(cx, n);
                Stmt {
                    id: StmtId(u32::MAX),
                    label: None,
                    name: None,
                    span: sp,
                    kind: StmtKind::Error,
                }
            }
        };
        push(
            flat,
            label,
            sp,
            StmtKind::LogicalIf(cond, Box::new(inner_stmt)),
        );
    }
}

fn named_kids<'t>(n: TsNode<'t>) -> Vec<TsNode<'t>> {
    let mut c = n.walk();
    n.named_children(&mut c)
        .filter(|k| k.kind() != "comment")
        .collect()
}

fn labels_in(cx: &Ctx, n: TsNode) -> Vec<u32> {
    named_kids(n)
        .into_iter()
        .filter(|k| k.kind() == "statement_label_reference")
        .filter_map(|k| text(cx, k).trim().parse().ok())
        .collect()
}

fn stmt(cx: &mut Ctx, n: TsNode) -> StmtKind {
    let kids = named_kids(n);
    match n.kind() {
        "assignment_statement" => {
            let lhs = n
                .child_by_field_name("left")
                .or_else(|| kids.first().copied());
            let rhs = n
                .child_by_field_name("right")
                .or_else(|| kids.last().copied());
            match (lhs, rhs) {
                (Some(l), Some(r)) if kids.len() >= 2 => StmtKind::Assign {
                    lhs: expr(cx, l),
                    rhs: expr(cx, r),
                },
                _ => StmtKind::Error,
            }
        }
        "pointer_association_statement" => unsupported(cx, n, "pointer assignment".into()),
        "do_statement" => do_stmt(cx, n),
        "keyword_statement" => keyword_stmt(cx, n),
        "arithmetic_if_statement" => {
            let e = kids
                .iter()
                .find(|k| k.kind() == "parenthesized_expression")
                .map(|k| expr(cx, *k))
                .unwrap_or(Expr::Opaque(vec![]));
            let l = labels_in(cx, n);
            if l.len() == 3 {
                StmtKind::ArithIf(e, [l[0], l[1], l[2]])
            } else {
                StmtKind::Error
            }
        }
        "stop_statement" | "error_stop_statement" => StmtKind::Stop,
        "subroutine_call" => {
            let name = kids
                .iter()
                .find(|k| k.kind() == "identifier")
                .map(|k| lname(cx, *k))
                .unwrap_or_default();
            let args = kids
                .iter()
                .find(|k| k.kind() == "argument_list")
                .map(|k| args(cx, *k))
                .unwrap_or_default();
            StmtKind::Call { name, args }
        }
        "print_statement"
        | "write_statement"
        | "read_statement"
        | "open_statement"
        | "close_statement"
        | "inquire_statement"
        | "file_position_statement"
        | "flush_statement" => io_stmt(cx, n),
        "format_statement" => StmtKind::Format,
        "variable_declaration" => var_decl(cx, n),
        "variable_modification" => {
            let attr = kids
                .iter()
                .find(|k| k.kind() == "type_qualifier")
                .map(|k| lname(cx, *k))
                .unwrap_or_default();
            let ents = entities(cx, &kids);
            if attr == "dimension" {
                StmtKind::Dimension(ents)
            } else {
                StmtKind::AttrStmt {
                    attr,
                    entities: ents,
                }
            }
        }
        "save_statement" => StmtKind::AttrStmt {
            attr: "save".into(),
            entities: entities(cx, &kids),
        },
        "common_statement" => {
            let mut blocks = vec![];
            for g in kids.iter().filter(|k| k.kind() == "variable_group") {
                let gk = named_kids(*g);
                let name = gk
                    .iter()
                    .find(|k| k.kind() == "name")
                    .map(|k| lname(cx, *k))
                    .unwrap_or_default();
                blocks.push((name, entities(cx, &gk)));
            }
            if blocks.is_empty() {
                // Blank COMMON: `COMMON X, Y`
                blocks.push((String::new(), entities(cx, &kids)));
            }
            StmtKind::Common(blocks)
        }
        "parameter_statement" => {
            let mut ps = vec![];
            for a in kids.iter().filter(|k| k.kind() == "parameter_assignment") {
                let ak = named_kids(*a);
                if ak.len() >= 2 {
                    ps.push((lname(cx, ak[0]), expr(cx, ak[ak.len() - 1])));
                }
            }
            StmtKind::Parameter(ps)
        }
        "implicit_statement" => {
            if kids.iter().any(|k| k.kind() == "none") {
                return StmtKind::Implicit(None);
            }
            let mut rules: Vec<(TypeSpec, Vec<(char, char)>)> = vec![];
            let mut cur: Option<TypeSpec> = None;
            for k in &kids {
                match k.kind() {
                    "intrinsic_type" => cur = Some(type_spec(cx, *k)),
                    "implicit_range" => {
                        if let Some(t) = &cur {
                            let s = lname(cx, *k);
                            let parts: Vec<&str> = s.split('-').map(|x| x.trim()).collect();
                            let a = parts.first().and_then(|x| x.chars().next());
                            let b = parts.last().and_then(|x| x.chars().next());
                            if let (Some(a), Some(b)) = (a, b) {
                                match rules.last_mut() {
                                    Some((rt, rs)) if *rt == *t => rs.push((a, b)),
                                    _ => rules.push((t.clone(), vec![(a, b)])),
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
            StmtKind::Implicit(Some(rules))
        }
        "data_statement" => {
            let mut objs = vec![];
            for s in kids.iter().filter(|k| k.kind() == "data_set") {
                for o in named_kids(*s) {
                    if o.kind() != "data_value" {
                        objs.push(expr(cx, o));
                    }
                }
            }
            StmtKind::Data(objs)
        }
        "equivalence_statement" => {
            let sets = kids
                .iter()
                .filter(|k| k.kind() == "equivalence_set")
                .map(|s| named_kids(*s).into_iter().map(|e| expr(cx, e)).collect())
                .collect();
            StmtKind::Equivalence(sets)
        }
        "allocate_statement" | "deallocate_statement" => {
            let items: Vec<Expr> = kids
                .iter()
                .map(|k| {
                    if k.kind() == "sized_allocation" {
                        let kk = named_kids(*k);
                        let name = kk.first().map(|x| lname(cx, *x)).unwrap_or_default();
                        let dims = kk
                            .iter()
                            .find(|x| x.kind() == "size")
                            .map(|s| {
                                named_kids(*s)
                                    .into_iter()
                                    .map(|d| extent_arg(cx, d))
                                    .collect()
                            })
                            .unwrap_or_default();
                        Expr::Ref(name, dims)
                    } else if k.kind() == "keyword_argument" {
                        // STAT= / ERRMSG= name a variable the statement sets; SOURCE= / MOLD=
                        // an expression it reads
                        let kk = named_kids(*k);
                        let key = kk.first().map(|x| lname(cx, *x)).unwrap_or_default();
                        let v = kk.get(1).map(|x| expr(cx, *x)).unwrap_or(Expr::Opaque(vec![]));
                        if key == "stat" || key == "errmsg" {
                            v
                        } else {
                            Expr::Opaque(vec![v])
                        }
                    } else {
                        expr(cx, *k)
                    }
                })
                .collect();
            if n.kind() == "allocate_statement" {
                StmtKind::Allocate(items)
            } else {
                StmtKind::Deallocate(items)
            }
        }
        "use_statement" => {
            let module = kids
                .iter()
                .find(|k| k.kind() == "module_name" || k.kind() == "name")
                .map(|k| lname(cx, *k))
                .unwrap_or_default();
            let only = kids.iter().find(|k| k.kind() == "included_items").map(|k| {
                named_kids(*k)
                    .into_iter()
                    .filter(|x| x.kind() == "identifier")
                    .map(|x| lname(cx, x))
                    .collect()
            });
            StmtKind::Use { module, only }
        }
        "interface" => {
            // Procedures declared by an interface block are external procedures with no body.
            let mut ents = vec![];
            for p in kids
                .iter()
                .filter(|k| matches!(k.kind(), "function" | "subroutine"))
            {
                for h in named_kids(*p) {
                    if matches!(h.kind(), "function_statement" | "subroutine_statement") {
                        if let Some(nm) = named_kids(h).into_iter().find(|x| x.kind() == "name") {
                            ents.push(Entity {
                                name: lname(cx, nm),
                                dims: None,
                                init: None,
                            });
                        }
                    }
                }
            }
            StmtKind::AttrStmt {
                attr: "external".into(),
                entities: ents,
            }
        }
        "implicit_none" => StmtKind::Implicit(None),
        "include_statement" => StmtKind::Continue,
        other => unsupported(cx, n, other.replace('_', " ")),
    }
}

/// A statement we do not model, with every name it mentions (treated as read and written).
fn unsupported(cx: &Ctx, n: TsNode, what: String) -> StmtKind {
    fn names(cx: &Ctx, n: TsNode, out: &mut Vec<Name>) {
        if n.kind() == "identifier" {
            let s = lname(cx, n);
            if !out.contains(&s) {
                out.push(s);
            }
        }
        let mut c = n.walk();
        for ch in n.named_children(&mut c) {
            names(cx, ch, out);
        }
    }
    let mut v = vec![];
    names(cx, n, &mut v);
    StmtKind::Unsupported { what, names: v }
}

fn do_stmt(cx: &mut Ctx, n: TsNode) -> StmtKind {
    let kids = named_kids(n);
    let label = kids
        .iter()
        .find(|k| k.kind() == "statement_label_reference")
        .and_then(|k| text(cx, *k).trim().parse().ok());
    if let Some(w) = kids.iter().find(|k| k.kind() == "while_statement") {
        let cond = named_kids(*w).first().map(|c| expr(cx, *c));
        return StmtKind::DoWhile { label, cond, concurrent: false };
    }
    let words: String = text(cx, n).to_ascii_lowercase().split_whitespace().collect::<Vec<_>>().join(" ");
    let words = words.trim_start_matches(|c: char| c.is_ascii_digit() || c == ' ');
    let words = words.split_once(':').map_or(words, |(name, rest)| {
        // a construct name `outer: do concurrent ...`
        if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') { rest.trim_start() } else { words }
    });
    if words.starts_with("do concurrent") || words.starts_with("doconcurrent") {
        return StmtKind::DoWhile { label, cond: None, concurrent: true };
    }
    match kids.iter().find(|k| k.kind() == "loop_control_expression") {
        Some(lc) => {
            let parts = named_kids(*lc);
            if parts.len() < 3 {
                return StmtKind::Error;
            }
            let var = lname(cx, parts[0]);
            let lo = expr(cx, parts[1]);
            let hi = expr(cx, parts[2]);
            let step = parts.get(3).map(|s| expr(cx, *s));
            StmtKind::Do {
                label,
                var,
                lo,
                hi,
                step,
            }
        }
        None => StmtKind::DoWhile { label, cond: None, concurrent: false },
    }
}

fn keyword_stmt(cx: &mut Ctx, n: TsNode) -> StmtKind {
    let t = text(cx, n).trim().to_ascii_lowercase();
    let word: String = t.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
    let labels = labels_in(cx, n);
    match word.as_str() {
        "continue" => StmtKind::Continue,
        "return" => StmtKind::Return,
        "cycle" | "exit" => {
            let rest = t[word.len()..].trim();
            let nm = if rest.is_empty() {
                None
            } else {
                Some(rest.to_string())
            };
            if word == "cycle" {
                StmtKind::Cycle(nm)
            } else {
                StmtKind::Exit(nm)
            }
        }
        "stop" => StmtKind::Stop,
        "goto" | "go" => {
            let rest = t
                .trim_start_matches("goto")
                .trim_start_matches("go")
                .trim_start()
                .trim_start_matches("to")
                .trim_start();
            if rest.starts_with('(') {
                let sel = named_kids(n)
                    .into_iter()
                    .filter(|k| k.kind() != "statement_label_reference")
                    .last()
                    .map(|k| expr(cx, k))
                    .unwrap_or(Expr::Opaque(vec![]));
                StmtKind::ComputedGoto(labels, sel)
            } else if labels.len() == 1
                && rest
                    .chars()
                    .all(|c| c.is_ascii_digit() || c.is_whitespace())
            {
                StmtKind::Goto(labels[0])
            } else {
                unsupported(cx, n, "assigned GOTO".into())
            }
        }
        _ => unsupported(cx, n, format!("{word} statement")),
    }
}

fn io_stmt(cx: &mut Ctx, n: TsNode) -> StmtKind {
    let kind = match n.kind() {
        "print_statement" => IoKind::Print,
        "write_statement" => IoKind::Write,
        "read_statement" => IoKind::Read,
        "open_statement" => IoKind::Open,
        "close_statement" => IoKind::Close,
        "inquire_statement" => IoKind::Inquire,
        "flush_statement" => IoKind::Flush,
        _ => {
            let t = text(cx, n).trim().to_ascii_lowercase();
            if t.starts_with("backspace") {
                IoKind::Backspace
            } else if t.starts_with("endfile") || t.starts_with("end file") {
                IoKind::Endfile
            } else {
                IoKind::Rewind
            }
        }
    };
    let mut reads = vec![];
    let mut writes = vec![];
    for k in named_kids(n) {
        match k.kind() {
            "output_item_list" => reads.extend(named_kids(k).into_iter().map(|e| expr(cx, e))),
            "input_item_list" => writes.extend(named_kids(k).into_iter().map(|e| expr(cx, e))),
            "unit_identifier" | "keyword_argument" => {
                for e in named_kids(k) {
                    if !matches!(e.kind(), "identifier") || k.kind() == "unit_identifier" {
                        reads.push(expr(cx, e));
                    } else if k.kind() == "keyword_argument" {
                        // keyword name is the first identifier; values follow
                    }
                }
                if k.kind() == "keyword_argument" {
                    if let Some(v) = named_kids(k).into_iter().nth(1) {
                        reads.push(expr(cx, v));
                    }
                }
            }
            "format_identifier" | "statement_label_reference" => {}
            _ => reads.push(expr(cx, k)),
        }
    }
    // Keep only things that are not plain string/number constants.
    reads.retain(|e| {
        !matches!(
            e,
            Expr::Int(_) | Expr::Str(_) | Expr::Real(_) | Expr::Logical(_)
        )
    });
    StmtKind::Io {
        kind,
        reads,
        writes,
    }
}

fn type_spec(cx: &Ctx, n: TsNode) -> TypeSpec {
    let t = lname(cx, n).replace(' ', "");
    let base = if t.starts_with("doubleprecision") {
        BaseType::DoublePrecision
    } else if t.starts_with("doublecomplex") {
        BaseType::DoubleComplex
    } else if t.starts_with("integer") {
        BaseType::Integer
    } else if t.starts_with("real") {
        BaseType::Real
    } else if t.starts_with("complex") {
        BaseType::Complex
    } else if t.starts_with("logical") {
        BaseType::Logical
    } else if t.starts_with("character") {
        BaseType::Character
    } else {
        BaseType::Derived(t.clone())
    };
    // Kind: `*8`, `(8)`, `(kind=8)`, `(len=10)`
    let digits: String = match t.find(['*', '(']) {
        Some(p) => t[p..].chars().filter(|c| c.is_ascii_digit()).collect(),
        None => String::new(),
    };
    let kind = digits.parse().ok();
    TypeSpec { base, kind }
}

fn var_decl(cx: &mut Ctx, n: TsNode) -> StmtKind {
    let kids = named_kids(n);
    let mut ty = TypeSpec {
        base: BaseType::Real,
        kind: None,
    };
    let mut attrs = vec![];
    for k in &kids {
        match k.kind() {
            "intrinsic_type" => ty = type_spec(cx, *k),
            "derived_type" => {
                ty = TypeSpec {
                    base: BaseType::Derived(lname(cx, *k)),
                    kind: None,
                }
            }
            "type_qualifier" => attrs.push(
                lname(cx, *k)
                    .split('(')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_string(),
            ),
            _ => {}
        }
    }
    let mut ents = entities(cx, &kids);
    // `DIMENSION(n)` attribute applies to plain entities.
    if let Some(dq) = kids
        .iter()
        .find(|k| k.kind() == "type_qualifier" && lname(cx, **k).starts_with("dimension"))
    {
        let dims: Option<Vec<DimDecl>> = named_kids(*dq)
            .into_iter()
            .find(|x| x.kind() == "argument_list" || x.kind() == "size")
            .map(|s| dim_decls(cx, s));
        if let Some(d) = dims {
            for e in ents.iter_mut().filter(|e| e.dims.is_none()) {
                e.dims = Some(d.clone());
            }
        }
    }
    StmtKind::TypeDecl {
        ty,
        attrs,
        entities: ents,
    }
}

fn entities(cx: &mut Ctx, kids: &[TsNode]) -> Vec<Entity> {
    let mut out = vec![];
    for k in kids {
        match k.kind() {
            "identifier" => out.push(Entity {
                name: lname(cx, *k),
                dims: None,
                init: None,
            }),
            "sized_declarator" => {
                let kk = named_kids(*k);
                let name = kk.first().map(|x| lname(cx, *x)).unwrap_or_default();
                let dims = kk
                    .iter()
                    .find(|x| x.kind() == "size")
                    .map(|s| dim_decls(cx, *s));
                out.push(Entity {
                    name,
                    dims,
                    init: None,
                });
            }
            "init_declarator" => {
                let kk = named_kids(*k);
                let mut e = entities(cx, &kk[..kk.len().min(1)])
                    .pop()
                    .unwrap_or(Entity {
                        name: String::new(),
                        dims: None,
                        init: None,
                    });
                if kk.len() >= 2 {
                    e.init = Some(expr(cx, kk[kk.len() - 1]));
                }
                out.push(e);
            }
            "call_expression" => {
                // DIMENSION/ALLOCATABLE/COMMON items parsed as call expressions: `X(10)`
                if let Expr::Ref(name, args) = expr(cx, *k) {
                    let dims = args
                        .into_iter()
                        .map(|a| match a {
                            Arg::Range(lo, hi, _) => DimDecl {
                                assumed: hi.is_none(),
                                star: false,
                                lo,
                                hi,
                            },
                            Arg::Expr(Expr::Var(v)) if v == "*" => DimDecl {
                                lo: None,
                                hi: None,
                                assumed: true,
                                star: true,
                            },
                            Arg::Expr(e) | Arg::Keyword(_, e) => DimDecl {
                                lo: None,
                                hi: Some(e),
                                assumed: false,
                                star: false,
                            },
                        })
                        .collect();
                    out.push(Entity {
                        name,
                        dims: Some(dims),
                        init: None,
                    });
                }
            }
            _ => {}
        }
    }
    out
}

fn dim_decls(cx: &mut Ctx, size: TsNode) -> Vec<DimDecl> {
    let mut out = vec![];
    for d in named_kids(size) {
        match d.kind() {
            "extent_specifier" | "assumed_size" => {
                let t = text(cx, d).trim().to_string();
                let parts = named_kids(d);
                if t == "*" || t == ":" {
                    out.push(DimDecl {
                        lo: None,
                        hi: None,
                        assumed: true,
                        star: t == "*",
                    });
                } else if let Some(colon) = t.find(':') {
                    let lo_txt = t[..colon].trim();
                    let hi_txt = t[colon + 1..].trim();
                    let mut it = parts.iter();
                    let lo = if lo_txt.is_empty() {
                        None
                    } else {
                        it.next().map(|p| expr(cx, *p))
                    };
                    let hi = if hi_txt.is_empty() || hi_txt == "*" {
                        None
                    } else {
                        it.next().map(|p| expr(cx, *p))
                    };
                    out.push(DimDecl {
                        assumed: hi.is_none(),
                        star: hi_txt == "*",
                        lo,
                        hi,
                    });
                } else {
                    let hi = parts.first().map(|p| expr(cx, *p));
                    out.push(DimDecl {
                        assumed: hi.is_none(),
                        star: t.contains('*'),
                        lo: None,
                        hi,
                    });
                }
            }
            _ => {
                let t = text(cx, d).trim().to_string();
                if t == "*" {
                    out.push(DimDecl {
                        lo: None,
                        hi: None,
                        assumed: true,
                        star: true,
                    });
                } else {
                    out.push(DimDecl {
                        lo: None,
                        hi: Some(expr(cx, d)),
                        assumed: false,
                        star: false,
                    });
                }
            }
        }
    }
    // `A(*)` may come through as an anonymous `*` only.
    if out.is_empty() && text(cx, size).contains('*') {
        out.push(DimDecl {
            lo: None,
            hi: None,
            assumed: true,
            star: true,
        });
    }
    out
}

fn extent_arg(cx: &mut Ctx, d: TsNode) -> Arg {
    if d.kind() == "extent_specifier" {
        let t = text(cx, d).trim().to_string();
        let parts = named_kids(d);
        let segs: Vec<&str> = t.split(':').collect();
        let mut it = parts.iter();
        let mut take = |s: Option<&&str>| -> Option<Expr> {
            match s {
                Some(s) if !s.trim().is_empty() => it.next().map(|p| expr(cx, *p)),
                _ => None,
            }
        };
        let lo = take(segs.first());
        let hi = take(segs.get(1));
        let st = take(segs.get(2));
        Arg::Range(lo, hi, st)
    } else {
        Arg::Expr(expr(cx, d))
    }
}

fn args(cx: &mut Ctx, al: TsNode) -> Vec<Arg> {
    named_kids(al)
        .into_iter()
        .map(|a| match a.kind() {
            "keyword_argument" => {
                let kk = named_kids(a);
                let name = kk.first().map(|x| lname(cx, *x)).unwrap_or_default();
                let v = kk
                    .get(1)
                    .map(|x| expr(cx, *x))
                    .unwrap_or(Expr::Opaque(vec![]));
                Arg::Keyword(name, v)
            }
            _ => extent_arg(cx, a),
        })
        .collect()
}

fn op_of(cx: &Ctx, n: TsNode) -> Option<String> {
    let mut c = n.walk();
    let found = n
        .children(&mut c)
        .filter(|k| !k.is_named())
        .map(|k| text(cx, k).trim().to_ascii_lowercase())
        .find(|t| !matches!(t.as_str(), "&" | "(" | ")" | ""));
    found
}

fn parse_int(t: &str) -> Option<i64> {
    let t = t.trim();
    // kind suffix: 10_8
    let t = t.split('_').next().unwrap_or(t);
    t.parse().ok()
}

fn parse_real(t: &str) -> Option<f64> {
    let t = t.trim().to_ascii_lowercase();
    let t = t.split('_').next().unwrap_or(&t).replace(['d', 'q'], "e");
    let t = if t.ends_with('.') { format!("{t}0") } else { t };
    let t = if t.starts_with('.') {
        format!("0{t}")
    } else {
        t
    };
    t.replace(".e", ".0e").parse().ok()
}

fn expr(cx: &mut Ctx, n: TsNode) -> Expr {
    let kids = named_kids(n);
    match n.kind() {
        "identifier" => Expr::Var(lname(cx, n)),
        "number_literal" => {
            let t = text(cx, n);
            match parse_int(t) {
                Some(i) if !t.contains(['.', 'e', 'E', 'd', 'D']) => Expr::Int(i),
                _ => parse_real(t)
                    .map(Expr::Real)
                    .unwrap_or(Expr::Opaque(vec![])),
            }
        }
        "string_literal" => {
            let t = text(cx, n);
            Expr::Str(
                t.get(1..t.len().saturating_sub(1))
                    .unwrap_or("")
                    .to_string(),
            )
        }
        "boolean_literal" => Expr::Logical(lname(cx, n).contains("true")),
        "parenthesized_expression" => kids
            .first()
            .map(|k| expr(cx, *k))
            .unwrap_or(Expr::Opaque(vec![])),
        "call_expression" => {
            let name = kids
                .first()
                .filter(|k| k.kind() == "identifier")
                .map(|k| lname(cx, *k));
            let al = kids.iter().find(|k| k.kind() == "argument_list");
            match (name, al) {
                (Some(name), Some(al)) => Expr::Ref(name, args(cx, *al)),
                _ => Expr::Opaque(kids.iter().map(|k| expr(cx, *k)).collect()),
            }
        }
        "math_expression"
        | "relational_expression"
        | "logical_expression"
        | "concatenation_expression" => {
            let op = op_of(cx, n).unwrap_or_default();
            if kids.len() == 1 {
                // `.NOT. x`
                let e = expr(cx, kids[0]);
                return match op.as_str() {
                    ".not." => Expr::Unary(UnOp::Not, Box::new(e)),
                    "-" => Expr::Unary(UnOp::Neg, Box::new(e)),
                    _ => Expr::Unary(UnOp::Plus, Box::new(e)),
                };
            }
            if kids.len() != 2 {
                return Expr::Opaque(kids.iter().map(|k| expr(cx, *k)).collect());
            }
            let bop = match op.as_str() {
                "+" => BinOp::Add,
                "-" => BinOp::Sub,
                "*" => BinOp::Mul,
                "/" => BinOp::Div,
                "**" => BinOp::Pow,
                "//" => BinOp::Concat,
                "==" | ".eq." => BinOp::Eq,
                "/=" | ".ne." => BinOp::Ne,
                "<" | ".lt." => BinOp::Lt,
                "<=" | ".le." => BinOp::Le,
                ">" | ".gt." => BinOp::Gt,
                ">=" | ".ge." => BinOp::Ge,
                ".and." => BinOp::And,
                ".or." => BinOp::Or,
                ".eqv." => BinOp::Eqv,
                ".neqv." => BinOp::Neqv,
                _ => return Expr::Opaque(kids.iter().map(|k| expr(cx, *k)).collect()),
            };
            Expr::Binary(
                bop,
                Box::new(expr(cx, kids[0])),
                Box::new(expr(cx, kids[1])),
            )
        }
        "unary_expression" => {
            let op = op_of(cx, n).unwrap_or_default();
            let e = kids
                .first()
                .map(|k| expr(cx, *k))
                .unwrap_or(Expr::Opaque(vec![]));
            match op.as_str() {
                "-" => match e {
                    Expr::Int(i) => Expr::Int(-i),
                    Expr::Real(r) => Expr::Real(-r),
                    e => Expr::Unary(UnOp::Neg, Box::new(e)),
                },
                ".not." => Expr::Unary(UnOp::Not, Box::new(e)),
                _ => Expr::Unary(UnOp::Plus, Box::new(e)),
            }
        }
        "implied_do_loop_expression" => {
            let lc = kids.iter().find(|k| k.kind() == "loop_control_expression");
            let items: Vec<Expr> = kids
                .iter()
                .filter(|k| k.kind() != "loop_control_expression")
                .map(|k| expr(cx, *k))
                .collect();
            match lc.map(|l| named_kids(*l)) {
                Some(p) if p.len() >= 3 => {
                    let var = lname(cx, p[0]);
                    let lo = Box::new(expr(cx, p[1]));
                    let hi = Box::new(expr(cx, p[2]));
                    let step = p.get(3).map(|s| Box::new(expr(cx, *s)));
                    Expr::ImpliedDo {
                        items,
                        var,
                        lo,
                        hi,
                        step,
                    }
                }
                _ => Expr::Opaque(items),
            }
        }
        _ => Expr::Opaque(kids.iter().map(|k| expr(cx, *k)).collect()),
    }
}

/// Rebuild DO / IF structure from a unit's flat statement list.
pub fn structure(unit: &mut Unit, map: &SourceMap, diags: &mut Vec<Diagnostic>) {
    enum Open {
        Do {
            header: StmtId,
            label: Option<u32>,
            body: Vec<Node>,
        },
        If {
            arms: Vec<(StmtId, Vec<Node>)>,
        },
    }
    let mut stack: Vec<Open> = vec![];
    let mut top: Vec<Node> = vec![];
    fn cur<'a>(stack: &'a mut [Open], top: &'a mut Vec<Node>) -> &'a mut Vec<Node> {
        match stack.last_mut() {
            Some(Open::Do { body, .. }) => body,
            Some(Open::If { arms }) => &mut arms.last_mut().expect("if has an arm").1,
            None => top,
        }
    }
    let loc = |s: &Stmt| map.location(s.span.file, s.span.line, s.span.col);
    for s in &unit.stmts {
        // FORMAT stays in place (it has no effect, but it is part of the code's lines).
        if !s.kind.is_executable() && !matches!(s.kind, StmtKind::Format) {
            continue;
        }
        let id = s.id;
        match &s.kind {
            StmtKind::Do { label, .. } | StmtKind::DoWhile { label, .. } => stack.push(Open::Do {
                header: id,
                label: *label,
                body: vec![],
            }),
            StmtKind::IfThen(_) => stack.push(Open::If {
                arms: vec![(id, vec![])],
            }),
            StmtKind::ElseIf(_) | StmtKind::Else => match stack.last_mut() {
                Some(Open::If { arms }) => arms.push((id, vec![])),
                _ => {
                    diags.push(Diagnostic::error(
                        codes::UNMATCHED_END,
                        "ELSE without a matching IF-THEN",
                        Some(loc(s)),
                    ));
                }
            },
            StmtKind::EndIf => match stack.pop() {
                Some(Open::If { arms }) => cur(&mut stack, &mut top).push(Node::If {
                    arms,
                    end: Some(id),
                }),
                other => {
                    if let Some(o) = other {
                        stack.push(o);
                    }
                    diags.push(Diagnostic::error(
                        codes::UNMATCHED_END,
                        "END IF without a matching IF-THEN",
                        Some(loc(s)),
                    ));
                }
            },
            StmtKind::EndDo
                if s.label.is_none()
                    || !stack.iter().any(
                        |o| matches!(o, Open::Do { label: Some(l), .. } if Some(*l) == s.label),
                    ) =>
            {
                match stack.pop() {
                    Some(Open::Do { header, body, .. }) => {
                        cur(&mut stack, &mut top).push(Node::Do {
                            header,
                            body,
                            end: Some(id),
                        })
                    }
                    other => {
                        if let Some(o) = other {
                            stack.push(o);
                        }
                        diags.push(Diagnostic::error(
                            codes::UNMATCHED_END,
                            "END DO without a matching DO",
                            Some(loc(s)),
                        ));
                    }
                }
            }
            _ => {
                cur(&mut stack, &mut top).push(Node::Stmt(id));
                // A labelled statement closes every DO that ends on its label (shared terminal labels).
                if let Some(l) = s.label {
                    loop {
                        let closes = matches!(stack.last(), Some(Open::Do { label: Some(x), .. }) if *x == l);
                        if !closes {
                            // An IF block still open around the terminal statement is an error.
                            if stack
                                .iter()
                                .any(|o| matches!(o, Open::Do { label: Some(x), .. } if *x == l))
                            {
                                diags.push(Diagnostic::error(codes::UNMATCHED_END, format!("DO loop ending at label {l} is closed inside an unfinished block"), Some(loc(s))));
                                // Recover: close whatever is open above the loop.
                                match stack.pop() {
                                    Some(Open::If { arms }) => {
                                        cur(&mut stack, &mut top).push(Node::If { arms, end: None })
                                    }
                                    Some(Open::Do { header, body, .. }) => {
                                        cur(&mut stack, &mut top).push(Node::Do {
                                            header,
                                            body,
                                            end: None,
                                        })
                                    }
                                    None => break,
                                }
                                continue;
                            }
                            break;
                        }
                        if let Some(Open::Do { header, body, .. }) = stack.pop() {
                            cur(&mut stack, &mut top).push(Node::Do {
                                header,
                                body,
                                end: None,
                            });
                        }
                    }
                }
            }
        }
    }
    while let Some(o) = stack.pop() {
        let (sid, what) = match &o {
            Open::Do { header, .. } => (*header, "DO loop is not closed"),
            Open::If { arms } => (arms[0].0, "IF block is not closed"),
        };
        diags.push(Diagnostic::error(
            codes::UNMATCHED_END,
            what,
            Some(loc(unit.stmt(sid))),
        ));
        let node = match o {
            Open::Do { header, body, .. } => Node::Do {
                header,
                body,
                end: None,
            },
            Open::If { arms } => Node::If { arms, end: None },
        };
        cur(&mut stack, &mut top).push(node);
    }
    unit.body = top;
}

#[cfg(test)]
mod tests {
    use super::keyword_aliases;

    #[test]
    fn keyword_named_variables_get_aliases_of_the_same_length() {
        let src = "      CHARACTER CLASS\n      INTEGER RETURN\n      CLASS = 'U'\n      IF (CLASS .EQ. 'class') RETURN = 1\n      RETURN\n  10  RETURN = 2\n";
        let (text, aliases) = keyword_aliases(src).expect("renamed");
        assert_eq!(
            text,
            "      CHARACTER z_ass\n      INTEGER z_turn\n      z_ass = 'U'\n      IF (z_ass .EQ. 'class') z_turn = 1\n      RETURN\n  10  z_turn = 2\n"
        );
        assert_eq!(aliases.get("z_ass").map(String::as_str), Some("class"));
        assert_eq!(text.len(), src.len());
        // attributes are not entities; undeclared keywords are keywords
        assert!(keyword_aliases("      double precision, intent(in) :: x\n      return\n").is_none());
        assert!(keyword_aliases("      CLOSE(10)\n      CONTINUE\n").is_none());
    }
}
