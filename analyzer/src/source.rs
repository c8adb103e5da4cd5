//! Source files: loading, fixed/free form detection, the line-preserving fixed-form
//! normalizer, INCLUDE expansion, and the map from parse-buffer lines back to the user's
//! original file/line/column.

use crate::diag::{codes, Diagnostic, Location};
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceForm {
    Fixed,
    Free,
}

/// Index of a file in [`SourceMap::files`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct FileId(pub u32);

#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Path as the user gave it (or as resolved for INCLUDE files).
    pub path: PathBuf,
    /// Original text, exactly as read (lossily decoded if not UTF-8).
    pub text: String,
    pub form: SourceForm,
    /// True when this file was brought in by an INCLUDE line.
    pub included: bool,
    /// Where each line starts in `text`, built on first use (`line`, `lines_text`).
    pub line_starts: std::sync::OnceLock<Vec<usize>>,
}

impl SourceFile {
    pub fn new(path: PathBuf, text: String, form: SourceForm, included: bool) -> SourceFile {
        SourceFile { path, text, form, included, line_starts: Default::default() }
    }

    /// Line `line` (from 1) without its end (as `str::lines` gives it), in constant time.
    pub fn line(&self, line: u32) -> Option<&str> {
        if line == 0 {
            return None;
        }
        let starts = self.line_starts.get_or_init(|| {
            let mut v = vec![0];
            v.extend(self.text.match_indices('\n').map(|(i, _)| i + 1).filter(|&i| i < self.text.len()));
            v
        });
        let k = line as usize - 1;
        let start = *starts.get(k)?;
        if start >= self.text.len() {
            return None;
        }
        let end = starts.get(k + 1).map_or(self.text.len(), |&e| e - 1);
        let l = &self.text[start..end];
        let l = l.strip_suffix('\n').unwrap_or(l);
        Some(l.strip_suffix('\r').unwrap_or(l))
    }

    /// Lines `first..=last` joined with newlines (the lines past the end left out).
    pub fn lines_text(&self, first: u32, last: u32) -> String {
        (first..=last).map_while(|l| self.line(l)).collect::<Vec<_>>().join("\n")
    }
    pub fn display_path(&self) -> String {
        self.path.display().to_string()
    }
}

/// All files read for one analysis.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    pub files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }
    pub fn location(&self, file: FileId, line: u32, col: u32) -> Location {
        Location {
            file: self.file(file).display_path(),
            line,
            col,
        }
    }
    /// Original text of a line, for diagnostics.
    pub fn line_text(&self, loc: &Location) -> Option<&str> {
        self.files
            .iter()
            .find(|f| f.display_path() == loc.file)
            .and_then(|f| f.line(loc.line))
    }
    fn add(&mut self, f: SourceFile) -> FileId {
        self.files.push(f);
        FileId(self.files.len() as u32 - 1)
    }
}

/// Where one line of the parse buffer came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineOrigin {
    pub file: FileId,
    /// 1-based line in the original file.
    pub line: u32,
}

/// The free-form text handed to tree-sitter for one top-level file, with INCLUDEs spliced in.
/// Columns map 1:1 to the original lines (the normalizer never moves code).
#[derive(Clone, Debug)]
pub struct ParseBuffer {
    pub root: FileId,
    pub text: String,
    /// `origins[row]` for every 0-based row of `text`.
    pub origins: Vec<LineOrigin>,
}

impl ParseBuffer {
    /// Original (file, line, col) of a 0-based buffer row/column.
    pub fn origin(&self, row: usize, col: usize) -> (FileId, u32, u32) {
        match self.origins.get(row) {
            Some(o) => (o.file, o.line, col as u32 + 1),
            None => {
                let last = self.origins.last().copied().unwrap_or(LineOrigin {
                    file: self.root,
                    line: 1,
                });
                (last.file, last.line, col as u32 + 1)
            }
        }
    }
}

/// Guess the source form: by extension for the usual ones, by content otherwise (`.fdv`, `.inc`...).
pub fn detect_form(path: &Path, text: &str) -> SourceForm {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match ext.as_str() {
        "f" | "for" | "ftn" | "f77" | "fpp" => return SourceForm::Fixed,
        "f90" | "f95" | "f03" | "f08" | "f18" => return SourceForm::Free,
        _ => {}
    }
    detect_form_by_content(text)
}

/// Content heuristics: column-1 comment letters and column-6 continuation marks vote for fixed
/// form; `&` continuations, `!` comments and statements starting in columns 1-5 vote for free form.
pub fn detect_form_by_content(text: &str) -> SourceForm {
    let (mut fixed, mut free) = (0i32, 0i32);
    for line in text.lines() {
        let trimmed = line.trim_end();
        if trimmed.is_empty() {
            continue;
        }
        let b = trimmed.as_bytes();
        match b[0] {
            b'c' | b'C' | b'*' => {
                // `c` starting a word like `call` in column 1 would be free form.
                let rest = &trimmed[1..];
                let word: String = trimmed
                    .chars()
                    .take_while(|c| c.is_ascii_alphabetic())
                    .collect();
                let lw = word.to_ascii_lowercase();
                if b[0] != b'*'
                    && matches!(
                        lw.as_str(),
                        "call"
                            | "character"
                            | "common"
                            | "complex"
                            | "close"
                            | "contains"
                            | "continue"
                            | "cycle"
                            | "case"
                    )
                    && rest.len() > 3
                {
                    free += 1;
                } else {
                    fixed += 2;
                }
                continue;
            }
            b'!' => continue,
            _ => {}
        }
        if trimmed.ends_with('&') {
            free += 2;
        }
        if b.len() > 5
            && b[..5].iter().all(|c| *c == b' ')
            && b[5] != b' '
            && b[5] != b'0'
            && b[5] != b'!'
        {
            fixed += 2;
        }
        let indent = b.iter().take_while(|c| **c == b' ').count();
        if indent < 6 && b.get(indent).is_some_and(|c| c.is_ascii_alphabetic()) {
            free += 1;
        }
        if indent >= 6 {
            fixed += 0; // neutral: free form code is often indented too
        }
    }
    if fixed > free {
        SourceForm::Fixed
    } else {
        SourceForm::Free
    }
}

/// Convert fixed-form lines into free-form lines without moving any code:
/// text after column 72 is cut, comment lines (`C`, `c`, `*`, `D`, `!` in column 1) start
/// with `!`, a continuation mark in column 6 becomes `&` and the previous statement line gets
/// ` &` appended before its trailing comment. Directive lines (`CDVM$`) stay comments.
/// A fixed-form comment line: `C`, `c`, `*`, `!` or a `D` debug line in column 1.
pub fn fixed_comment_line(line: &str) -> bool {
    matches!(line.chars().next(), Some('c' | 'C' | '*' | 'd' | 'D' | '!'))
}

pub fn normalize_fixed(lines: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut last_stmt: Option<usize> = None;
    for raw in lines {
        let line: String = raw.chars().take(72).collect();
        let first = line.chars().next();
        let is_comment = fixed_comment_line(&line)
            || line.trim().is_empty()
            || line
                .chars()
                .take(6)
                .collect::<String>()
                .trim_start()
                .starts_with('!');
        if is_comment {
            if line.trim().is_empty() {
                out.push(String::new());
            } else {
                let mut s = String::from("!");
                s.push_str(&line[first.map_or(0, |c| c.len_utf8())..]);
                out.push(s);
            }
            continue;
        }
        // Tab-format lines: a tab in the label field starts the statement; tab + digit continues.
        if let Some(tab) = line.find('\t').filter(|t| *t < 6) {
            let after = &line[tab + 1..];
            if after.starts_with(|c: char| c.is_ascii_digit() && c != '0')
                && line[..tab].trim().is_empty()
            {
                let mut s = line.clone();
                s.replace_range(tab + 1..tab + 2, "&");
                if let Some(p) = last_stmt {
                    append_continuation(&mut out[p]);
                }
                out.push(s);
            } else {
                out.push(line.clone());
            }
            last_stmt = Some(out.len() - 1);
            continue;
        }
        let chars: Vec<char> = line.chars().collect();
        let is_cont = chars.len() > 5
            && chars[5] != ' '
            && chars[5] != '0'
            && chars[..5].iter().all(|c| *c == ' ');
        if is_cont {
            if let Some(p) = last_stmt {
                append_continuation(&mut out[p]);
            }
            let mut s: String = chars[..5].iter().collect();
            s.push('&');
            s.extend(chars[6..].iter());
            out.push(s);
        } else {
            // Column 6 '0' means "not a continuation": blank it.
            let mut s: String = line.clone();
            if chars.len() > 5 && chars[5] == '0' {
                s = chars[..5].iter().collect::<String>()
                    + " "
                    + &chars[6..].iter().collect::<String>();
            }
            out.push(s);
        }
        last_stmt = Some(out.len() - 1);
    }
    out
}

/// A normalized fixed-form line made valid free-form text, where fixed form's insignificant
/// blanks would split a token: inside dot operators and logical constants (`. eq.`,
/// `.  TRUE .`) and inside real literals' exponents (`0.5E - 7`, `1.0 D 0`). Character
/// literals, comments and the label field are left alone; the blanks taken out of a token
/// are put after it, so every other column stays where it was (diagnostics keep their
/// columns). The parser and the converter (which writes fixed form as free form) use it.
pub fn squeeze_fixed_blanks(line: &str) -> String {
    if line.starts_with('!') || line.len() <= 6 || !line.is_char_boundary(6) {
        return line.to_string();
    }
    let end = comment_start(line).unwrap_or(line.len()).max(6);
    let (head, code, tail) = (&line[..6], &line[6..end], &line[end..]);
    let c: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(line.len());
    out.push_str(head);
    let ident = |ch: char| ch.is_ascii_alphanumeric() || ch == '_';
    let skip_blanks = |mut j: usize| {
        while j < c.len() && c[j] == ' ' {
            j += 1;
        }
        j
    };
    let mut quote: Option<char> = None;
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if let Some(q) = quote {
            out.push(ch);
            if ch == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        if ch == '\'' || ch == '"' {
            quote = Some(ch);
            out.push(ch);
            i += 1;
            continue;
        }
        // . op .
        if ch == '.' {
            let j = skip_blanks(i + 1);
            let mut k = j;
            while k < c.len() && c[k].is_ascii_alphabetic() {
                k += 1;
            }
            let m = skip_blanks(k);
            let word: String = c[j..k].iter().collect::<String>().to_ascii_lowercase();
            const OPS: [&str; 13] = ["eq", "ne", "lt", "le", "gt", "ge", "and", "or", "not", "eqv", "neqv", "true", "false"];
            if k > j && m < c.len() && c[m] == '.' && (j > i + 1 || m > k) && OPS.contains(&word.as_str()) {
                out.push('.');
                out.extend(&c[j..k]);
                out.push('.');
                // the blanks go after the token: every other column stays where it was
                out.extend(std::iter::repeat(' ').take((j - i - 1) + (m - k)));
                i = m + 1;
                continue;
            }
        }
        // a real literal with blanks in its exponent: digits [. digits] E|D [sign] digits
        if ch.is_ascii_digit() && (i == 0 || !(ident(c[i - 1]) || c[i - 1] == '.')) {
            let mut k = i;
            while k < c.len() && c[k].is_ascii_digit() {
                k += 1;
            }
            let dot = k < c.len() && c[k] == '.';
            if dot {
                k += 1;
                while k < c.len() && c[k].is_ascii_digit() {
                    k += 1;
                }
            }
            let e = skip_blanks(k);
            if e < c.len() && matches!(c[e], 'e' | 'E' | 'd' | 'D') {
                let mut s = skip_blanks(e + 1);
                let sign = s < c.len() && (c[s] == '+' || c[s] == '-');
                if sign {
                    s = skip_blanks(s + 1);
                }
                let mut d = s;
                while d < c.len() && c[d].is_ascii_digit() {
                    d += 1;
                }
                let after = skip_blanks(d);
                let blanks = e > k || c[e + 1..s].contains(&' ');
                if d > s && blanks && (dot || sign) && !(after < c.len() && (c[after] == '=' || ident(c[after]))) {
                    out.extend(&c[i..k]);
                    out.push(c[e]);
                    if sign {
                        out.push(c[skip_blanks(e + 1)]);
                    }
                    out.extend(&c[s..d]);
                    let written = (k - i) + 1 + sign as usize + (d - s);
                    out.extend(std::iter::repeat(' ').take((d - i) - written));
                    i = d;
                    continue;
                }
            }
            out.extend(&c[i..k]);
            i = k;
            continue;
        }
        out.push(ch);
        i += 1;
    }
    out.push_str(tail);
    out
}

/// Append ` &` to a statement line, before a trailing `!` comment that is outside strings.
fn append_continuation(line: &mut String) {
    let pos = comment_start(line).unwrap_or(line.len());
    let head = line[..pos].trim_end().len();
    line.insert_str(head, " &");
}

/// Byte position of a `!` that starts a trailing comment (outside character literals).
pub fn comment_start(line: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    for (i, c) in line.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '!' => return Some(i),
            None => {}
        }
    }
    None
}

/// Recognize `INCLUDE 'name'` (any case, either quote) on a normalized line.
pub fn include_target(line: &str) -> Option<(String, usize)> {
    let t = line.trim_start();
    let indent = line.len() - t.len();
    if !t
        .get(..7)
        .is_some_and(|w| w.eq_ignore_ascii_case("include"))
    {
        return None;
    }
    let rest = t[7..].trim_start();
    let q = rest.chars().next()?;
    if q != '\'' && q != '"' {
        return None;
    }
    let end = rest[1..].find(q)?;
    let after = rest[1 + end + 1..].trim();
    if !after.is_empty() && !after.starts_with('!') {
        return None;
    }
    Some((rest[1..1 + end].to_string(), indent + 1))
}

pub struct LoadOptions<'a> {
    pub include_dirs: &'a [PathBuf],
    /// Force a form for the given (top-level) files.
    pub force_form: Option<SourceForm>,
}

/// Read a file, tolerating non-UTF-8 bytes (Latin-1 comments are common in legacy code).
pub fn read_text(path: &Path) -> Result<(String, bool), std::io::Error> {
    let bytes = std::fs::read(path)?;
    match String::from_utf8(bytes) {
        Ok(s) => Ok((s, true)),
        Err(e) => Ok((String::from_utf8_lossy(e.as_bytes()).into_owned(), false)),
    }
}

/// Load a top-level file and build its parse buffer (INCLUDEs spliced in).
pub fn load(
    path: &Path,
    map: &mut SourceMap,
    opts: &LoadOptions,
    diags: &mut Vec<Diagnostic>,
) -> Option<ParseBuffer> {
    let (text, utf8) = match read_text(path) {
        Ok(t) => t,
        Err(e) => {
            diags.push(Diagnostic::error(
                codes::IO_ERROR,
                format!("cannot read {}: {e}", path.display()),
                None,
            ));
            return None;
        }
    };
    let form = opts.force_form.unwrap_or_else(|| detect_form(path, &text));
    let id = map.add(SourceFile::new(path.to_path_buf(), text, form, false));
    if !utf8 {
        diags.push(Diagnostic::warning(
            codes::NOT_UTF8,
            format!(
                "{} is not valid UTF-8; invalid bytes were replaced",
                path.display()
            ),
            None,
        ));
    }
    let mut buf = ParseBuffer {
        root: id,
        text: String::new(),
        origins: vec![],
    };
    let mut stack = vec![path.to_path_buf()];
    expand(id, map, opts, diags, &mut buf, &mut stack);
    Some(buf)
}

fn normalized_lines(file: &SourceFile) -> Vec<String> {
    let lines: Vec<&str> = file.text.lines().collect();
    match file.form {
        SourceForm::Fixed => normalize_fixed(&lines).iter().map(|l| squeeze_fixed_blanks(l)).collect(),
        SourceForm::Free => lines.iter().map(|l| l.to_string()).collect(),
    }
}

fn expand(
    id: FileId,
    map: &mut SourceMap,
    opts: &LoadOptions,
    diags: &mut Vec<Diagnostic>,
    buf: &mut ParseBuffer,
    stack: &mut Vec<PathBuf>,
) {
    let lines = normalized_lines(map.file(id));
    let form = map.file(id).form;
    let dir = map
        .file(id)
        .path
        .parent()
        .map(|p| p.to_path_buf())
        .unwrap_or_default();
    for (i, line) in lines.iter().enumerate() {
        let lineno = i as u32 + 1;
        if let Some((name, col)) = include_target(line) {
            let candidates = std::iter::once(dir.join(&name))
                .chain(opts.include_dirs.iter().map(|d| d.join(&name)));
            let found = candidates.into_iter().find(|p| p.is_file());
            let loc = map.location(id, lineno, col as u32);
            match found {
                None => {
                    diags.push(
                        Diagnostic::error(
                            codes::MISSING_INCLUDE,
                            format!("include file '{name}' not found"),
                            Some(loc),
                        )
                        .with_note(format!(
                            "searched {} and the -I directories",
                            if dir.as_os_str().is_empty() {
                                ".".into()
                            } else {
                                dir.display().to_string()
                            }
                        )),
                    );
                    push_line(buf, "", id, lineno);
                }
                Some(p) if stack.iter().any(|s| same_file(s, &p)) || stack.len() > 16 => {
                    diags.push(Diagnostic::error(
                        codes::INCLUDE_CYCLE,
                        format!("include file '{name}' includes itself (directly or indirectly)"),
                        Some(loc),
                    ));
                    push_line(buf, "", id, lineno);
                }
                Some(p) => match read_text(&p) {
                    Ok((text, _)) => {
                        // An included file takes the includer's form unless its extension says otherwise.
                        let f = match p
                            .extension()
                            .and_then(|e| e.to_str())
                            .map(|e| e.to_ascii_lowercase())
                            .as_deref()
                        {
                            Some("f" | "for" | "f77") => SourceForm::Fixed,
                            Some("f90" | "f95" | "f03" | "f08") => SourceForm::Free,
                            _ => form,
                        };
                        let existing = map
                            .files
                            .iter()
                            .position(|sf| same_file(&sf.path, &p) && sf.form == f);
                        let inc = match existing {
                            Some(k) => FileId(k as u32),
                            None => map.add(SourceFile::new(p.clone(), text, f, true)),
                        };
                        push_line(buf, "", id, lineno);
                        stack.push(p);
                        expand(inc, map, opts, diags, buf, stack);
                        stack.pop();
                    }
                    Err(e) => {
                        diags.push(Diagnostic::error(
                            codes::IO_ERROR,
                            format!("cannot read include file {}: {e}", p.display()),
                            Some(loc),
                        ));
                        push_line(buf, "", id, lineno);
                    }
                },
            }
        } else {
            push_line(buf, line, id, lineno);
        }
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

fn push_line(buf: &mut ParseBuffer, line: &str, file: FileId, lineno: u32) {
    buf.text.push_str(line);
    buf.text.push('\n');
    buf.origins.push(LineOrigin { file, line: lineno });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_form_continuation_and_comments() {
        let src = [
            "C comment",
            "      X = A +",
            "     *    B ! tail",
            "      END",
        ];
        let out = normalize_fixed(&src);
        assert_eq!(out[0], "! comment");
        assert_eq!(out[1], "      X = A + &");
        assert_eq!(out[2], "     &    B ! tail");
        assert_eq!(out[3], "      END");
    }

    #[test]
    fn fixed_form_cuts_column_72_and_keeps_columns() {
        let long = format!("      Y = 1{}IGNORED", " ".repeat(60));
        let out = normalize_fixed(&[long.as_str()]);
        assert_eq!(out[0].len(), 72);
        assert!(!out[0].contains("IGNORED"));
    }

    #[test]
    fn continuation_goes_before_trailing_comment_and_skips_strings() {
        let src = ["      PRINT *, 'a!b' ! note", "     1, X"];
        let out = normalize_fixed(&src);
        assert_eq!(out[0], "      PRINT *, 'a!b' & ! note");
    }

    #[test]
    fn fixed_form_blanks_inside_tokens_are_squeezed_for_free_form() {
        let sq = squeeze_fixed_blanks;
        assert_eq!(sq("      IF (N . eq. 200 .AND. X . LT .Y) Z = 1"), "      IF (N .eq.  200 .AND. X .LT.  Y) Z = 1");
        assert_eq!(sq("      L = . TRUE ."), "      L = .TRUE.  ");
        assert_eq!(sq("      EPS = 0.5E - 7 + 1.0 D 0 * 2.E+ 3"), "      EPS = 0.5E-7   + 1.0D0   * 2.E+3 ");
        // unchanged: strings, comments, the label field, identifiers, DO variables
        for l in [
            "      PRINT *, '. eq. 0.5E - 7' ! . eq.",
            "   10 E2 = 1",
            "      X1 E = 2",
            "      DO 20 E1 = 1, 3",
            "      DO 20 E1=1,3",
            "      Y = X1E - 7 + A.EQ.B",
            "      Z = 1.5 + 2 D",
        ] {
            assert_eq!(sq(l), l);
        }
    }

    #[test]
    fn detects_forms() {
        assert_eq!(
            detect_form_by_content("C hello\n      X = 1\n      END\n"),
            SourceForm::Fixed
        );
        assert_eq!(
            detect_form_by_content("program p\n  x = 1 + &\n   2\nend program\n"),
            SourceForm::Free
        );
        assert_eq!(
            detect_form_by_content("      PROGRAM P\n      X = 1 +\n     *  2\n      END\n"),
            SourceForm::Fixed
        );
    }

    #[test]
    fn include_lines() {
        assert_eq!(
            include_target("      INCLUDE 'a.inc'"),
            Some(("a.inc".into(), 7))
        );
        assert_eq!(
            include_target("include \"b.h\" ! c"),
            Some(("b.h".into(), 1))
        );
        assert_eq!(include_target("      includex = 1"), None);
    }
}

#[cfg(test)]
mod line_index_tests {
    use super::*;

    #[test]
    fn lines_by_index_are_what_str_lines_gives() {
        for text in ["", "a", "a\n", "a\nbc", "a\r\nbc\r\n", "\n\nx\n", "  x\n\n"] {
            let f = SourceFile::new(PathBuf::from("t.f"), text.to_string(), SourceForm::Fixed, false);
            let want: Vec<&str> = text.lines().collect();
            let got: Vec<&str> = (1..=want.len() as u32 + 1).map_while(|l| f.line(l)).collect();
            assert_eq!(got, want, "{text:?}");
            assert_eq!(f.line(0), None);
            assert_eq!(f.lines_text(1, 2), want.iter().take(2).cloned().collect::<Vec<_>>().join("\n"), "{text:?}");
        }
    }
}
