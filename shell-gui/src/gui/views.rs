//! Drawing: the frame (tabs, progress, errors) and one function per page. All state lives in
//! [`App`]; these functions only read it and record what the user did.

use super::highlight::{Class, Run};
use super::model::{LoopRow, Project};
use super::{profile, runner, App, SortBy, Tab};
use analyzer::overrides::{LoopRef, Override, REDUCTION_OPS};
use egui::text::LayoutJob;
use egui::{Color32, FontId, RichText, TextFormat, Ui};

const ROW_H: f32 = 20.0;
const MARGIN_W: f32 = 64.0;
const ERROR: Color32 = Color32::from_rgb(230, 80, 70);
const OK: Color32 = Color32::from_rgb(110, 190, 110);
const MUTED: Color32 = Color32::from_gray(150);
const COMPUTATION: Color32 = Color32::from_rgb(80, 140, 220);
const COMMUNICATION: Color32 = Color32::from_rgb(230, 150, 60);
const TRANSFERS: Color32 = Color32::from_rgb(120, 190, 120);

pub fn verdict_color(v: &str) -> Color32 {
    match v {
        "parallel" => Color32::from_rgb(90, 200, 110),
        "across" => Color32::from_rgb(230, 190, 60),
        _ => Color32::from_rgb(220, 90, 80),
    }
}

fn verdict_letter(v: &str) -> &'static str {
    match v {
        "parallel" => "P",
        "across" => "A",
        _ => "S",
    }
}

fn class_color(c: Class) -> Color32 {
    match c {
        Class::Keyword => Color32::from_rgb(110, 160, 255),
        Class::Comment => Color32::from_rgb(120, 150, 120),
        Class::String => Color32::from_rgb(220, 150, 100),
        Class::Number => Color32::from_rgb(170, 210, 140),
        Class::Function => Color32::from_rgb(220, 210, 130),
        Class::Type => Color32::from_rgb(80, 200, 190),
        Class::Operator => Color32::from_rgb(190, 190, 190),
        Class::Variable => Color32::from_rgb(215, 215, 215),
    }
}

pub fn window(app: &mut App, ui: &mut Ui) {
    egui::Panel::top("top").show(ui, |ui| top_bar(app, ui));
    if app.error.is_some() || app.info.is_some() || !app.effects.is_empty() {
        egui::Panel::bottom("messages").show(ui, |ui| messages(app, ui));
    }
    egui::CentralPanel::default().show(ui, |ui| {
        if app.project.is_none() {
            if app.busy() {
                ui.label("Loading the project database…");
            } else {
                ui.label("No project loaded (see the error below).");
            }
            return;
        }
        match app.tab {
            Tab::Source => source_page(app, ui),
            Tab::Loops => loops_page(app, ui),
            Tab::Refinements => refinements_page(app, ui),
            Tab::Schemes => schemes_page(app, ui),
            Tab::Program => program_page(app, ui),
            Tab::Run => run_page(app, ui),
        }
    });
}

fn top_bar(app: &mut App, ui: &mut Ui) {
    ui.horizontal(|ui| {
        ui.strong(format!("sapfor: {}", app.db_path.display()));
        ui.separator();
        for t in Tab::ALL {
            if ui.selectable_label(app.tab == t, t.title()).clicked() {
                app.tab = t;
            }
        }
        ui.separator();
        if let Some(job) = &app.job {
            ui.spinner();
            ui.label(format!(
                "Working: {} ({:.1} s)",
                job.step,
                job.started.elapsed().as_secs_f32()
            ));
        } else if let Some(p) = &app.project {
            let errors = p
                .diagnostics
                .iter()
                .filter(|d| d.severity == "error")
                .count();
            ui.label(format!(
                "analysis #{}: {} loops, {} schemes, {} refinements",
                p.analysis_id,
                p.loops.len(),
                p.schemes.len(),
                p.overrides.len()
            ));
            if errors > 0 {
                ui.colored_label(ERROR, format!("{errors} errors in the program"));
            }
        }
    });
}

fn messages(app: &mut App, ui: &mut Ui) {
    if let Some(e) = app.error.clone() {
        ui.horizontal(|ui| {
            ui.colored_label(ERROR, RichText::new(format!("Error: {e}")).strong());
            if ui.small_button("Dismiss").clicked() {
                app.error = None;
            }
        });
    }
    if let Some(i) = &app.info {
        ui.colored_label(OK, i.as_str());
    }
    if !app.effects.is_empty() {
        ui.horizontal(|ui| {
            ui.strong("What the refinements did:");
            if ui.small_button("Dismiss effects").clicked() {
                app.effects.clear();
            }
        });
        effects_view(app, ui);
    }
}

/// The effect of each refinement of the last change: applied (and what changed) or not
/// applied (and why; it was not kept).
fn effects_view(app: &App, ui: &mut Ui) {
    for e in &app.effects {
        match &e.refused {
            None => {
                ui.colored_label(OK, format!("applied: {}", e.refinement));
            }
            Some(why) => {
                ui.colored_label(
                    ERROR,
                    format!("NOT applied, not kept: {}: {why}", e.refinement),
                );
            }
        }
        if e.refused.is_none() {
            for n in &e.notes {
                ui.label(format!("    {n}"));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Source page: the text with verdict markers, the selected loop's facts and refinement form.

/// The search field of a page over `texts`: where to go (file index, line) when the text
/// changed or Next/Previous was clicked.
fn find_bar(ui: &mut Ui, id: &str, find: &mut super::Find, texts: &[&str]) -> Option<(usize, u32)> {
    let mut go = None;
    ui.horizontal(|ui| {
        let l = ui.label("Find:");
        let r = ui
            .add(
                egui::TextEdit::singleline(&mut find.text)
                    .id_salt(id)
                    .desired_width(160.0)
                    .hint_text("text, a variable"),
            )
            .labelled_by(l.id);
        let enter = r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        if find.update(texts) {
            go = find.at();
        }
        if ui.small_button("Previous").clicked() {
            go = find.step(false);
        }
        if ui.small_button("Next").clicked() || enter {
            go = find.step(true);
        }
        if !find.text.trim().is_empty() {
            if find.hits.is_empty() {
                ui.colored_label(ERROR, "not found");
            } else {
                ui.label(format!("{} of {} lines", find.current + 1, find.hits.len()));
            }
        }
    });
    go
}

/// Byte ranges of `needle` in `line`, case-insensitive (ASCII).
pub fn find_marks(line: &str, needle: &str) -> Vec<(usize, usize)> {
    let needle = needle.trim().to_ascii_lowercase();
    if needle.is_empty() {
        return vec![];
    }
    let hay = line.to_ascii_lowercase();
    let mut out = vec![];
    let mut from = 0;
    while let Some(i) = hay[from..].find(&needle) {
        out.push((from + i, from + i + needle.len()));
        from += i + needle.len();
    }
    out
}

fn source_page(app: &mut App, ui: &mut Ui) {
    let Some(p) = app.project.as_ref() else {
        return;
    };
    if p.files.len() > 1 {
        egui::Panel::left("files").resizable(true).show(ui, |ui| {
            ui.strong("Files");
            egui::ScrollArea::vertical().id_salt("file-list").show(ui, |ui| {
                for i in 0..p.files.len() {
                    if ui
                        .selectable_label(app.file == i, &p.files[i].name)
                        .clicked()
                    {
                        app.file = i;
                    }
                }
            });
        });
    }
    egui::Panel::right("loop")
        .resizable(true)
        .default_size(420.0)
        .show(ui, |ui| {
            egui::ScrollArea::vertical()
                .id_salt("loop-details")
                .show(ui, |ui| {
                    // the loop's facts and blockers, then the form, then the dependences
                    // (thousands in a big loop, grouped): the form never moves down
                    loop_details(app, ui);
                    ui.separator();
                    refine_form(app, ui);
                    ui.separator();
                    dependences(app, ui);
                    diagnostics(app, ui);
                });
        });
    egui::CentralPanel::default().show(ui, |ui| source_text(app, ui));
}

fn diagnostics(app: &App, ui: &mut Ui) {
    let Some(p) = app.project.as_ref() else {
        return;
    };
    if p.diagnostics.is_empty() {
        return;
    }
    ui.separator();
    ui.strong("Analysis diagnostics");
    for d in &p.diagnostics {
        let c = if d.severity == "error" {
            ERROR
        } else {
            COMMUNICATION
        };
        ui.colored_label(c, d.to_string());
    }
}

/// Text of a line with colours, the selected loop's background and marked byte ranges.
fn line_job(line: &str, runs: &[Run], bg: Color32, marks: &[(usize, usize)]) -> LayoutJob {
    let mut cuts: Vec<usize> = vec![0, line.len()];
    for r in runs {
        cuts.extend([r.start, r.end]);
    }
    for (s, e) in marks {
        cuts.extend([*s, *e]);
    }
    cuts.retain(|c| *c <= line.len() && line.is_char_boundary(*c));
    cuts.sort_unstable();
    cuts.dedup();
    let mut job = LayoutJob::default();
    for w in cuts.windows(2) {
        let (s, e) = (w[0], w[1]);
        let color = runs
            .iter()
            .find(|r| r.start <= s && s < r.end)
            .map_or(Color32::from_gray(215), |r| class_color(r.class));
        let marked = marks.iter().any(|(a, b)| *a <= s && s < *b);
        job.append(
            &line[s..e],
            0.0,
            TextFormat {
                font_id: FontId::monospace(13.0),
                color: if marked { Color32::BLACK } else { color },
                background: if marked {
                    Color32::from_rgb(240, 200, 60)
                } else {
                    bg
                },
                ..Default::default()
            },
        );
    }
    if line.is_empty() {
        job.append(
            " ",
            0.0,
            TextFormat {
                font_id: FontId::monospace(13.0),
                background: bg,
                ..Default::default()
            },
        );
    }
    job
}

/// The 1-based lines of the statement starting at `line`: it and its continuation lines.
pub fn statement_lines(lines: &[&str], fixed: bool, line: u32) -> Vec<u32> {
    let mut out = vec![line];
    let mut i = line as usize; // 0-based index of the next line
    let is_comment = |l: &str| {
        let t = l.trim_start();
        t.is_empty() || t.starts_with('!') || (fixed && l.starts_with(['c', 'C', '*']))
    };
    while i < lines.len() {
        let prev = lines[i - 1];
        let cur = lines[i];
        let continues = if fixed {
            !is_comment(cur)
                && cur.len() > 5
                && cur.is_char_boundary(5)
                && cur.is_char_boundary(6)
                && !matches!(&cur[5..6], " " | "0")
                && cur[..5].trim().is_empty()
        } else {
            let code = prev.split('!').next().unwrap_or("");
            code.trim_end().ends_with('&')
        };
        if !continues {
            break;
        }
        i += 1;
        out.push(i as u32);
    }
    out
}

/// Byte ranges of whole-word, case-insensitive occurrences of `name` in `line`.
pub fn line_marks(line: &str, name: &str) -> Vec<(usize, usize)> {
    let (hay, needle) = (line.to_ascii_lowercase(), name.to_ascii_lowercase());
    let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    let mut out = vec![];
    let mut from = 0;
    while let Some(i) = hay[from..].find(&needle) {
        let s = from + i;
        let e = s + needle.len();
        if !word(hay[..s].chars().next_back()) && !word(hay[e..].chars().next()) {
            out.push((s, e));
        }
        from = e;
    }
    out
}

fn source_text(app: &mut App, ui: &mut Ui) {
    let Some(p) = app.project.as_ref() else {
        return;
    };
    let Some(file) = p.files.get(app.file) else {
        ui.label("The analysis has no source file.");
        return;
    };
    let texts: Vec<&str> = p.files.iter().map(|f| f.text.as_str()).collect();
    if let Some((f, line)) = find_bar(ui, "find-source", &mut app.find, &texts) {
        app.file = f;
        app.scroll_to = Some(line);
        return;
    }
    ui.horizontal(|ui| {
        ui.strong(&file.name);
        ui.label("Margin: P parallel, A across, S sequential (click to select the loop)");
    });
    let found = app.find.at().filter(|(f, _)| *f == app.file).map(|(_, l)| l);
    let needle = app.find.text.clone();
    let lines: Vec<&str> = file.text.lines().collect();
    let runs = app.highlights.get(app.file);
    let sel = app.selected_loop.and_then(|i| p.loops.get(i));
    let dep = sel.and_then(|l| app.selected_dep.and_then(|d| l.deps.get(d)));
    let loops_here: Vec<(usize, &LoopRow)> = p
        .loops
        .iter()
        .enumerate()
        .filter(|(_, l)| l.file == file.name)
        .collect();
    // The lines of the statements at both ends of the selected dependence (with their
    // continuation lines), where the array is marked.
    let dep_lines: Vec<u32> = dep.map_or(vec![], |d| {
        let mut v = statement_lines(&lines, file.fixed, d.source_line);
        v.extend(statement_lines(&lines, file.fixed, d.sink_line));
        v
    });
    let mut clicked: Option<usize> = None;
    let scroll_to = app.scroll_to.take();
    let mut area = egui::ScrollArea::both()
        .id_salt(("source", app.file))
        .auto_shrink([false, false]);
    if let Some(line) = scroll_to {
        area = area.vertical_scroll_offset((line.saturating_sub(5) as f32) * (ROW_H + 3.0));
    }
    area.show_rows(ui, ROW_H, lines.len(), |ui, range| {
        ui.spacing_mut().item_spacing.y = 3.0;
        for i in range {
            let n = i as u32 + 1;
            let text = lines[i];
            let in_sel = sel.is_some_and(|l| l.file == file.name && l.line <= n && n <= l.end_line);
            let bg = if in_sel {
                Color32::from_rgb(35, 55, 85)
            } else {
                Color32::TRANSPARENT
            };
            let marks = match dep {
                Some(d) if dep_lines.contains(&n) => line_marks(text, &d.array),
                _ if found == Some(n) => find_marks(text, &needle),
                _ => vec![],
            };
            let empty = vec![];
            let line_runs = runs.and_then(|r| r.get(i)).unwrap_or(&empty);
            ui.horizontal(|ui| {
                match loops_here.iter().find(|(_, l)| l.line == n) {
                    Some((idx, l)) => {
                        let t = RichText::new(format!("{} {:>4}", verdict_letter(&l.verdict), n))
                            .monospace()
                            .color(verdict_color(&l.verdict))
                            .strong();
                        let r = ui
                            .add_sized(
                                [MARGIN_W, ROW_H],
                                egui::Button::selectable(app.selected_loop == Some(*idx), t),
                            )
                            .on_hover_text(format!("loop {}: {}", l.var.to_uppercase(), l.verdict));
                        if r.clicked() {
                            clicked = Some(*idx);
                        }
                    }
                    None => {
                        ui.add_sized(
                            [MARGIN_W, ROW_H],
                            egui::Label::new(
                                RichText::new(format!("  {n:>4}"))
                                    .monospace()
                                    .color(Color32::from_gray(120)),
                            ),
                        );
                    }
                }
                let dep_line = dep_lines.contains(&n);
                let bg = if dep_line && marks.is_empty() {
                    Color32::from_rgb(90, 70, 20)
                } else {
                    bg
                };
                ui.label(line_job(text, line_runs, bg, &marks));
            });
        }
    });
    if let Some(i) = clicked {
        app.selected_loop = Some(i);
        app.selected_dep = None;
    }
}

fn loop_details(app: &mut App, ui: &mut Ui) {
    let Some(p) = app.project.as_ref() else {
        return;
    };
    let Some(l) = app.selected_loop.and_then(|i| p.loops.get(i)) else {
        ui.label("Select a loop (a P / A / S mark in the margin, or a row on the Loops page).");
        return;
    };
    ui.heading(format!(
        "Loop {} at {}:{}",
        if l.var.is_empty() {
            "WHILE".into()
        } else {
            l.var.to_uppercase()
        },
        l.file,
        l.line
    ));
    ui.label(format!(
        "unit {}, depth {}, lines {}-{}, iterations {}",
        l.unit.to_uppercase(),
        l.depth,
        l.line,
        l.end_line,
        l.iterations.map_or("unknown".into(), |t| t.to_string())
    ));
    ui.horizontal(|ui| {
        ui.label("Verdict:");
        ui.colored_label(
            verdict_color(&l.verdict),
            RichText::new(&l.verdict).strong(),
        );
    });
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.iter()
                .map(|s| s.to_uppercase())
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    ui.label(format!("Private: {}", list(&l.private)));
    let mut vars: Vec<String> = l.private.clone();
    vars.extend(l.reductions.iter().map(|(_, v)| v.clone()));
    let mut pick_var = None;
    if !vars.is_empty() {
        ui.horizontal_wrapped(|ui| {
            ui.label("Refine variable:");
            for v in &vars {
                if ui.small_button(v.to_uppercase()).clicked() {
                    pick_var = Some(v.clone());
                }
            }
        });
    }
    let reds: Vec<String> = l
        .reductions
        .iter()
        .map(|(op, v)| format!("{}({})", op, v.to_uppercase()))
        .collect();
    ui.label(format!(
        "Reductions: {}",
        if reds.is_empty() {
            "none".to_string()
        } else {
            reds.join(", ")
        }
    ));
    for o in &l.overridden_by {
        ui.label(format!("Refined: {o}"));
    }
    if let Some(w) = &l.parallel_when {
        ui.label(w);
    }
    ui.strong(format!("Blockers ({})", l.blockers.len()));
    let blockers = |ui: &mut Ui| {
        for b in &l.blockers {
            ui.colored_label(ERROR, format!("{}: {}", b.code, b.message));
        }
    };
    if l.blockers.len() > 12 {
        egui::ScrollArea::vertical()
            .id_salt("blockers")
            .max_height(240.0)
            .show(ui, blockers);
    } else {
        blockers(ui);
    }
    if let Some(v) = pick_var {
        app.form.var = v;
    }
}

/// The selected loop's dependences, grouped by array and kind (a group opens to its list).
fn dependences(app: &mut App, ui: &mut Ui) {
    let Some(l) = app
        .selected_loop
        .and_then(|i| app.project.as_ref()?.loops.get(i))
    else {
        return;
    };
    ui.strong(format!("Dependences ({})", l.deps.len()));
    let groups = super::model::dep_groups(&l.deps);
    // a short list shows whole; a long one as closed groups (the selected one open)
    let open_all = l.deps.len() <= 12;
    let mut pick = None;
    for g in &groups {
        let title = g.title();
        let has_selected = app.selected_dep.is_some_and(|d| g.members.contains(&d));
        egui::CollapsingHeader::new(title)
            .id_salt(("deps", &g.array, &g.kind))
            .default_open(open_all)
            .open(has_selected.then_some(true))
            .show(ui, |ui| {
                let row = |ui: &mut Ui, i: usize, pick: &mut Option<usize>| {
                    let t = l.deps[i].label();
                    if ui.selectable_label(app.selected_dep == Some(i), t).clicked() {
                        *pick = Some(i);
                    }
                };
                if g.members.len() > 40 {
                    egui::ScrollArea::vertical()
                        .id_salt(("dep-rows", &g.array, &g.kind))
                        .max_height(300.0)
                        .show_rows(ui, ROW_H, g.members.len(), |ui, range| {
                            for k in range {
                                row(ui, g.members[k], &mut pick);
                            }
                        });
                } else {
                    for &i in &g.members {
                        row(ui, i, &mut pick);
                    }
                }
            });
    }
    if let Some(i) = pick {
        app.selected_dep = Some(i);
        app.scroll_to = Some(l.deps[i].source_line);
    }
}

fn refine_form(app: &mut App, ui: &mut Ui) {
    let busy = app.busy();
    let Some(p) = app.project.as_ref() else {
        return;
    };
    let sel = app.selected_loop.and_then(|i| p.loops.get(i)).cloned();
    let file = p
        .files
        .iter()
        .find(|f| sel.as_ref().is_some_and(|l| l.file == f.name))
        .map(|f| (f.path.clone(), f.fixed));
    let arrays = p.arrays.clone();
    let mut add: Vec<Override> = vec![];
    ui.strong("Refine");
    ui.add_enabled_ui(!busy, |ui| {
        if let Some(l) = &sel {
            let at = LoopRef {
                file: l.file.clone(),
                line: l.line,
            };
            ui.horizontal(|ui| {
                if ui.button("Assert parallel").clicked() {
                    add.push(Override::Parallel { at: at.clone() });
                }
                if ui.button("Assert sequential").clicked() {
                    add.push(Override::Sequential { at: at.clone() });
                }
            });
            ui.horizontal(|ui| {
                let l = ui.label("Variable:");
                ui.add(
                    egui::TextEdit::singleline(&mut app.form.var)
                        .desired_width(110.0)
                        .hint_text("names: T, U"),
                )
                .labelled_by(l.id);
                // several names (`T, U V`) make several refinements with one re-run
                let names: Vec<String> = app
                    .form
                    .var
                    .split([',', ' ', ';'])
                    .filter(|n| !n.is_empty())
                    .map(|n| n.to_ascii_lowercase())
                    .collect();
                let names = if names.is_empty() { vec![String::new()] } else { names };
                if ui.button("Private").clicked() {
                    for var in &names {
                        add.push(Override::Private {
                            at: at.clone(),
                            var: var.clone(),
                        });
                    }
                }
                let l = ui.label("op");
                egui::ComboBox::from_id_salt("op")
                    .selected_text(app.form.op.clone())
                    .width(70.0)
                    .show_ui(ui, |ui| {
                        for op in REDUCTION_OPS {
                            ui.selectable_value(&mut app.form.op, op.to_string(), *op);
                        }
                    })
                    .response
                    .labelled_by(l.id);
                if ui.button("Reduction").clicked() {
                    for var in &names {
                        add.push(Override::Reduction {
                            at: at.clone(),
                            op: app.form.op.clone(),
                            var: var.clone(),
                        });
                    }
                }
            });
            ui.checkbox(
                &mut app.form.as_hint,
                "Write assertions into the source as !$SPF hints before this loop (instead of the database)",
            );
        } else {
            ui.label("Loop assertions need a selected loop.");
        }
        ui.horizontal(|ui| {
            let l = ui.label("Array:");
            egui::ComboBox::from_id_salt("array")
                .selected_text(if app.form.array.is_empty() {
                    "choose".to_string()
                } else {
                    app.form.array.to_uppercase()
                })
                .show_ui(ui, |ui| {
                    for (a, rank) in &arrays {
                        ui.selectable_value(
                            &mut app.form.array,
                            a.clone(),
                            format!("{} (rank {rank})", a.to_uppercase()),
                        );
                    }
                })
                .response
                .labelled_by(l.id);
            if ui.button("Do not distribute").clicked() {
                add.push(Override::NoDistribute {
                    array: app.form.array.clone(),
                });
            }
        });
        ui.horizontal(|ui| {
            let l = ui.label("Distribution:");
            ui.add(egui::TextEdit::singleline(&mut app.form.formats).desired_width(110.0))
                .labelled_by(l.id);
            if ui.button("Distribute").clicked() {
                let formats: Vec<String> = app
                    .form
                    .formats
                    .trim()
                    .trim_start_matches('(')
                    .trim_end_matches(')')
                    .split(',')
                    .map(|f| f.trim().to_ascii_uppercase())
                    .collect();
                add.push(Override::Distribute {
                    array: app.form.array.clone(),
                    formats,
                });
            }
        });
    });
    if add.is_empty() {
        return;
    }
    for o in &add {
        if let Err(e) = check(o, &arrays) {
            app.error = Some(e);
            return;
        }
    }
    let change = match (app.form.as_hint, file, &sel) {
        (true, _, _) if add.len() > 1 => {
            app.error = Some(
                "a hint in the source takes one variable: write them one at a time, or record them in the database (untick the hint box)".into(),
            );
            return;
        }
        (true, Some((path, fixed)), Some(l)) => {
            let o = add.remove(0);
            app.shift_selection = Some((l.file.clone(), l.line));
            super::Change {
                hint: Some(super::model::Hint {
                    path,
                    line: l.line,
                    fixed,
                    refinement: o,
                }),
                ..Default::default()
            }
        }
        (true, _, _) => {
            app.error = Some("select the loop to write the hint before".into());
            return;
        }
        _ => super::Change {
            add,
            ..Default::default()
        },
    };
    app.submit(change);
}

/// The checks `sapfor refine` makes (the same functions), and the rank of a distribution,
/// before anything is stored.
fn check(o: &Override, arrays: &[(String, usize)]) -> Result<(), String> {
    use crate::commands::check_name;
    let e = |e: anyhow::Error| e.to_string();
    match o {
        Override::Private { var, .. } | Override::Reduction { var, .. } => check_name(var)
            .map_err(|_| format!("`{var}` is not a Fortran name: type the variable first")),
        Override::NoDistribute { array } | Override::Distribute { array, .. }
            if array.is_empty() =>
        {
            Err("choose an array first".into())
        }
        Override::Distribute { array, formats } => {
            crate::commands::parse_formats(&format!("({})", formats.join(","))).map_err(e)?;
            match arrays.iter().find(|(a, _)| a == array) {
                Some((_, rank)) if *rank != formats.len() => Err(format!(
                    "{} has {rank} dimensions, the distribution gives {}",
                    array.to_uppercase(),
                    formats.len()
                )),
                _ => Ok(()),
            }
        }
        _ => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------------
// Loops page: every loop of the project, filtered and sorted.

/// The rows the loop table shows, in order (indices into `project.loops`).
pub fn visible_loops(app: &App, p: &Project) -> Vec<usize> {
    let f = &app.filter;
    let mut v: Vec<usize> = (0..p.loops.len())
        .filter(|&i| {
            let l = &p.loops[i];
            (f.verdict.is_empty() || l.verdict == f.verdict)
                && (f.unit.is_empty() || l.unit == f.unit)
                && f.depth.is_none_or(|d| l.depth == d)
                && (f.blocker.is_empty() || l.blockers.iter().any(|b| b.code == f.blocker))
                && (f.min_share <= 0.0 || l.share.unwrap_or(0.0) * 100.0 >= f.min_share as f64)
                && (f.file.is_empty() || l.file == f.file)
                && loop_matches(p, l, &f.text)
        })
        .collect();
    let key = |i: &usize| {
        let l = &p.loops[*i];
        match f.sort {
            SortBy::Position => format!("{}:{:08}", l.file, l.line),
            SortBy::Verdict => format!("{}:{}:{:08}", l.verdict, l.file, l.line),
            SortBy::Unit => format!("{}:{}:{:08}", l.unit, l.file, l.line),
            SortBy::Depth => format!("{:04}:{}:{:08}", l.depth, l.file, l.line),
            SortBy::Blockers => format!("{}:{}:{:08}", l.blocker_kinds(), l.file, l.line),
            SortBy::Share => format!("{:020.6}", l.share.unwrap_or(-1.0) * 1e6 + 1e6),
        }
    };
    v.sort_by_key(key);
    if f.descending {
        v.reverse();
    }
    v
}

/// Whether loop `l` matches the search text of the loop table: its `file:line VAR` label,
/// unit, a private, reduction or dependence variable, a blocker message (three letters or
/// more), or a whole name in its source lines (all case-insensitive). An empty text matches
/// every loop.
pub fn loop_matches(p: &Project, l: &LoopRow, text: &str) -> bool {
    let t = text.trim().to_ascii_lowercase();
    if t.is_empty() {
        return true;
    }
    let has = |s: &str| s.to_ascii_lowercase().contains(&t);
    if has(&format!("{} {}", l.label(), l.var)) || has(&l.unit) {
        return true;
    }
    if l.private.iter().chain(l.reductions.iter().map(|(_, v)| v)).any(|v| *v == t)
        || l.deps.iter().any(|d| d.array == t)
        || (t.len() >= 3 && l.blockers.iter().any(|b| has(&b.message)))
    {
        return true;
    }
    p.files.iter().find(|f| f.name == l.file).is_some_and(|f| {
        f.text
            .lines()
            .skip(l.line.saturating_sub(1) as usize)
            .take((l.end_line + 1).saturating_sub(l.line) as usize)
            .any(|line| !line_marks(line, &t).is_empty())
    })
}

fn combo(ui: &mut Ui, label: &str, value: &mut String, choices: &[String]) {
    let l = ui.label(label);
    egui::ComboBox::from_id_salt(label)
        .selected_text(if value.is_empty() {
            "all".to_string()
        } else {
            value.clone()
        })
        .show_ui(ui, |ui| {
            ui.selectable_value(value, String::new(), "all");
            for c in choices {
                ui.selectable_value(value, c.clone(), c.as_str());
            }
        })
        .response
        .labelled_by(l.id);
}

fn loops_page(app: &mut App, ui: &mut Ui) {
    let Some(p) = app.project.as_ref() else {
        return;
    };
    let mut units: Vec<String> = p.loops.iter().map(|l| l.unit.clone()).collect();
    units.sort();
    units.dedup();
    let mut kinds: Vec<String> = p
        .loops
        .iter()
        .flat_map(|l| l.blockers.iter().map(|b| b.code.clone()))
        .collect();
    kinds.sort();
    kinds.dedup();
    let max_depth = p.loops.iter().map(|l| l.depth).max().unwrap_or(0);
    let mut files: Vec<String> = p.loops.iter().map(|l| l.file.clone()).collect();
    files.dedup();
    files.sort();
    files.dedup();
    ui.horizontal_wrapped(|ui| {
        let l = ui.label("Search:");
        ui.add(
            egui::TextEdit::singleline(&mut app.filter.text)
                .id_salt("loop-search")
                .desired_width(140.0)
                .hint_text("loop, variable, file"),
        )
        .labelled_by(l.id)
        .on_hover_text("a loop's file, unit or variable; a variable it uses, privatizes, reduces or depends on; a word of a blocker");
        combo(ui, "File:", &mut app.filter.file, &files);
        combo(
            ui,
            "Verdict:",
            &mut app.filter.verdict,
            &["parallel".into(), "across".into(), "sequential".into()],
        );
        combo(ui, "Unit:", &mut app.filter.unit, &units);
        let l = ui.label("Depth:");
        egui::ComboBox::from_id_salt("f-depth")
            .selected_text(app.filter.depth.map_or("all".into(), |d| d.to_string()))
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut app.filter.depth, None, "all");
                for d in 1..=max_depth {
                    ui.selectable_value(&mut app.filter.depth, Some(d), d.to_string());
                }
            })
            .response
            .labelled_by(l.id);
        combo(ui, "Blocker:", &mut app.filter.blocker, &kinds);
        let l = ui.label("Share at least %:");
        ui.add(
            egui::DragValue::new(&mut app.filter.min_share)
                .range(0.0..=100.0)
                .speed(0.5),
        )
        .labelled_by(l.id);
        if ui.button("Clear filters").clicked() {
            app.filter = super::LoopFilter::default();
        }
    });
    let rows = visible_loops(app, p);
    ui.label(format!("{} of {} loops", rows.len(), p.loops.len()));
    let mut select = None;
    let mut sort = None;
    egui::ScrollArea::both().id_salt("loops").show(ui, |ui| {
        egui::Grid::new("loop-table").striped(true).show(ui, |ui| {
            for (title, key) in [
                ("Loop", SortBy::Position),
                ("Unit", SortBy::Unit),
                ("Depth", SortBy::Depth),
                ("Verdict", SortBy::Verdict),
                ("Blockers", SortBy::Blockers),
                ("Share", SortBy::Share),
            ] {
                let arrow = if app.filter.sort == key {
                    if app.filter.descending {
                        " v"
                    } else {
                        " ^"
                    }
                } else {
                    ""
                };
                if ui.button(format!("{title}{arrow}")).clicked() {
                    sort = Some(key);
                }
            }
            ui.strong("Private / reductions");
            ui.end_row();
            for &i in &rows {
                let l = &p.loops[i];
                if ui
                    .selectable_label(
                        app.selected_loop == Some(i),
                        format!("{} {}", l.label(), l.var.to_uppercase()),
                    )
                    .clicked()
                {
                    select = Some(i);
                }
                ui.label(l.unit.to_uppercase());
                ui.label(l.depth.to_string());
                ui.colored_label(verdict_color(&l.verdict), &l.verdict);
                ui.label(l.blocker_kinds());
                ui.label(l.share.map_or("-".into(), |s| format!("{:.1}%", s * 100.0)));
                let mut pr: Vec<String> = l.private.iter().map(|v| v.to_uppercase()).collect();
                pr.extend(
                    l.reductions
                        .iter()
                        .map(|(o, v)| format!("{o}({})", v.to_uppercase())),
                );
                ui.label(pr.join(", "));
                ui.end_row();
            }
        });
    });
    if let Some(k) = sort {
        if app.filter.sort == k {
            app.filter.descending = !app.filter.descending;
        } else {
            app.filter.sort = k;
            app.filter.descending = false;
        }
    }
    if let Some(i) = select {
        app.show_loop(i);
    }
}

// ---------------------------------------------------------------------------------------------
// Refinements page.

fn refinements_page(app: &mut App, ui: &mut Ui) {
    let Some(p) = app.project.as_ref() else {
        return;
    };
    ui.heading("Recorded refinements");
    ui.label("Recorded in the project database; the analysis and the experts honour them.");
    if p.overrides.is_empty() {
        ui.label("No refinements recorded.");
    }
    let mut remove = None;
    ui.add_enabled_ui(!app.busy(), |ui| {
        for (id, o) in &p.overrides {
            ui.horizontal(|ui| {
                ui.label(format!("#{id}: {o}"));
                if ui.button(format!("Remove #{id}")).clicked() {
                    remove = Some(*id);
                }
            });
        }
    });
    if let Some(id) = remove {
        app.submit(super::Change {
            remove: vec![id],
            ..Default::default()
        });
    }
}

// ---------------------------------------------------------------------------------------------
// Schemes page: estimates as stacked bars, what-if machine, choice and generation.

fn bar(ui: &mut Ui, parts: &[(f64, Color32)], scale: f64, width: f32) {
    let (rect, _) = ui.allocate_exact_size(egui::vec2(width, 14.0), egui::Sense::hover());
    ui.painter().rect_filled(rect, 0.0, Color32::from_gray(40));
    let mut x = rect.left();
    for (v, c) in parts {
        let w = if scale > 0.0 {
            (*v / scale) as f32 * width
        } else {
            0.0
        };
        let r = egui::Rect::from_min_size(
            egui::pos2(x, rect.top()),
            egui::vec2(w.max(0.0), rect.height()),
        );
        ui.painter().rect_filled(r, 0.0, *c);
        x += w.max(0.0);
    }
}

fn legend(ui: &mut Ui) {
    ui.horizontal(|ui| {
        for (c, t) in [
            (COMPUTATION, "computation"),
            (COMMUNICATION, "communication"),
            (TRANSFERS, "transfers"),
        ] {
            let (r, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
            ui.painter().rect_filled(r, 0.0, c);
            ui.label(t);
        }
    });
}

fn schemes_page(app: &mut App, ui: &mut Ui) {
    let Some(p) = app.project.as_ref() else {
        return;
    };
    let chosen_name = p
        .schemes
        .iter()
        .find(|(_, s)| s.chosen)
        .map(|(_, s)| s.name.clone());
    let stored = p.machine.clone();
    let files: Vec<(std::path::PathBuf, String)> = p
        .files
        .iter()
        .map(|f| (crate::commands::absolute(&f.path), f.name.clone()))
        .collect();
    let mut changed = false;
    let mut generate = false;
    let mut reset = false;
    let mut record: Vec<Override> = vec![];
    let mut no_change = false;
    let mut jump: Option<(String, u32)> = None;
    let busy = app.busy();
    // accelerator parameters only where the schemes have regions
    let accelerators = p.target == crate::auto::Target::Dvmh;
    let Some(w) = app.whatif.as_mut() else { return };
    egui::Panel::left("whatif")
        .resizable(true)
        .default_size(300.0)
        .show(ui, |ui| {
            ui.heading("What if");
            ui.label("Re-estimates instantly; nothing is stored.");
            egui::Grid::new("machine").show(ui, |ui| {
                let m = &mut w.machine;
                let l = ui.label("Processes");
                changed |= ui
                    .add(egui::DragValue::new(&mut m.processes).range(1..=100_000))
                    .labelled_by(l.id)
                    .changed();
                ui.end_row();
                let l = ui.label("Grid (e.g. 2x2)");
                changed |= ui
                    .add(
                        egui::TextEdit::singleline(&mut w.grid)
                            .desired_width(80.0)
                            .hint_text("best"),
                    )
                    .labelled_by(l.id)
                    .changed();
                ui.end_row();
                let l = ui.label("Processes per node");
                changed |= ui
                    .add(egui::DragValue::new(&mut m.processes_per_node).range(1..=1024))
                    .labelled_by(l.id)
                    .changed();
                ui.end_row();
                let mut rows = vec![
                    ("Tstart, us", &mut m.tstart_us),
                    ("Tbyte, us", &mut m.tbyte_us),
                    ("Operation, ns", &mut m.flop_ns),
                    ("Memory ref, ns", &mut m.memref_ns),
                    ("Loop start, us", &mut m.loop_overhead_us),
                    ("Thread start, us", &mut m.thread_start_us),
                ];
                if accelerators {
                    rows.extend([
                        ("Accelerator speed-up", &mut m.device_speedup),
                        ("Device copy start, us", &mut m.device_tstart_us),
                        ("Device copy byte, us", &mut m.device_tbyte_us),
                        ("Kernel launch, us", &mut m.kernel_launch_us),
                    ]);
                }
                for (label, v) in rows {
                    let l = ui.label(label);
                    changed |= ui
                        .add(egui::DragValue::new(v).range(0.0..=1e6).speed(0.01))
                        .labelled_by(l.id)
                        .changed();
                    ui.end_row();
                }
                if accelerators {
                    let l = ui.label("GPUs per node");
                    changed |= ui
                        .add(egui::DragValue::new(&mut m.gpus_per_node).range(0..=64))
                        .labelled_by(l.id)
                        .changed();
                    ui.end_row();
                }
            });
            if !accelerators {
                ui.label(RichText::new("DVM schemes (sapfor --auto --target dvm): no accelerator parameters.").color(MUTED));
            }
            if ui.button("Reset to the stored machine").clicked() {
                reset = true;
            }
            if ui
                .add_enabled(!busy, egui::Button::new("Record as refinements"))
                .on_hover_text(
                    "Store the changed parameters in the database; the schemes are re-estimated and stored",
                )
                .clicked()
            {
                record = super::model::machine_changes(&stored, &w.machine);
                if record.is_empty() {
                    no_change = true;
                }
            }
        });
    egui::CentralPanel::default().show(ui, |ui| {
      egui::ScrollArea::vertical().auto_shrink(false).show(ui, |ui| {
        ui.heading("Candidate schemes");
        legend(ui);
        match &w.result {
            Err(e) => {
                ui.colored_label(ERROR, format!("Cannot estimate: {e}"));
            }
            Ok(schemes) => {
                let scale = schemes.iter().map(|s| s.estimate.total).fold(0.0, f64::max);
                let best = schemes
                    .iter()
                    .enumerate()
                    .min_by(|a, b| a.1.estimate.total.total_cmp(&b.1.estimate.total))
                    .map(|(i, _)| i);
                egui::Grid::new("schemes").striped(true).show(ui, |ui| {
                    ui.strong("Scheme");
                    ui.strong("Estimated time");
                    ui.strong("Total, s");
                    ui.strong("Computation");
                    ui.strong("Communication");
                    ui.strong("Transfers");
                    ui.strong("Grid");
                    ui.end_row();
                    for (i, s) in schemes.iter().enumerate() {
                        let mut name = s.name.clone();
                        if chosen_name.as_deref() == Some(s.name.as_str()) {
                            name.push_str(" (chosen)");
                        }
                        if Some(i) == best {
                            name.push_str(" (cheapest)");
                        }
                        if ui.selectable_label(w.selected == i, name).clicked() {
                            w.selected = i;
                        }
                        let e = &s.estimate;
                        bar(
                            ui,
                            &[
                                (e.computation, COMPUTATION),
                                (e.communication, COMMUNICATION),
                                (e.transfers, TRANSFERS),
                            ],
                            scale,
                            260.0,
                        );
                        ui.label(format!("{:.6}", e.total));
                        ui.label(format!("{:.6}", e.computation));
                        ui.label(format!("{:.6}", e.communication));
                        ui.label(format!("{:.6}", e.transfers));
                        ui.label(
                            e.grid
                                .iter()
                                .map(|g| g.to_string())
                                .collect::<Vec<_>>()
                                .join("x"),
                        );
                        ui.end_row();
                    }
                    // the variants the expert did not keep, with the first reason
                    for r in &w.rejected {
                        ui.colored_label(MUTED, format!("{} (rejected)", r.name));
                        let first = r.reasons.first().map(|x| x.describe()).unwrap_or_default();
                        let more = match r.reasons.len() {
                            0 | 1 => String::new(),
                            n => format!(" (and {} more below)", n - 1),
                        };
                        ui.colored_label(MUTED, format!("{first}{more}"));
                        ui.end_row();
                    }
                });
                if let Some(s) = schemes.get(w.selected) {
                    ui.separator();
                    ui.strong(format!("Selected: {}", s.name));
                    for r in &s.regions {
                        // Name the file as the rest of the window does (project-relative).
                        let mut r = r.clone();
                        let at = crate::commands::absolute(std::path::Path::new(&r.at.file));
                        if let Some((_, name)) = files.iter().find(|(path, _)| *path == at) {
                            r.at.file = name.clone();
                        }
                        ui.label(crate::auto::region_line(&r));
                    }
                    for n in s.notes.iter().chain(&s.estimate.notes) {
                        ui.label(n);
                    }
                    if ui.button("Generate the program of this scheme").clicked() {
                        generate = true;
                    }
                }
                if !w.rejected.is_empty() {
                    ui.separator();
                    ui.strong("Rejected variants");
                    ui.label("Every reason; a click on a loop shows it in the source.");
                    for r in &w.rejected {
                        ui.label(format!(
                            "{} {}: {} reason{}",
                            r.expert,
                            r.name,
                            r.reasons.len(),
                            if r.reasons.len() == 1 { "" } else { "s" }
                        ));
                        ui.indent(("rejected", &r.name), |ui| {
                            for why in &r.reasons {
                                match (&why.at, why.line) {
                                    (Some(at), Some(line)) => {
                                        if ui.link(why.describe()).clicked() {
                                            jump = Some((at.file.clone(), line));
                                        }
                                    }
                                    _ => {
                                        ui.label(why.describe());
                                    }
                                }
                            }
                        });
                    }
                }
            }
        }
      });
    });
    if reset {
        w.machine = stored;
        w.machine.grid.clear();
        w.grid.clear();
        changed = true;
    }
    if changed {
        app.reestimate();
    }
    if generate {
        app.generate_selected();
        app.tab = Tab::Program;
    }
    if no_change {
        app.error = Some("the machine parameters are those of the stored schemes".into());
    }
    if !record.is_empty() {
        app.submit(super::Change {
            add: record,
            ..Default::default()
        });
    }
    if let Some((file, line)) = jump {
        match app.loop_at(&file, line) {
            Some(i) => app.show_loop(i),
            None => app.error = Some(format!("no loop at {file}:{line} in this analysis")),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Program page: original and generated text side by side, saving.

fn program_page(app: &mut App, ui: &mut Ui) {
    let Some(p) = app.project.as_ref() else {
        return;
    };
    let Some(g) = app.generated.as_ref() else {
        ui.label("No program generated yet: pick a scheme on the Schemes page.");
        return;
    };
    ui.horizontal(|ui| {
        ui.strong(format!("Program of scheme {}", g.scheme_name));
        ui.label(format!(
            "({} directive lines inserted)",
            g.files.iter().map(|f| f.inserted.len()).sum::<usize>()
        ));
    });
    let mut save = false;
    ui.horizontal(|ui| {
        let l = ui.label(if g.files.len() == 1 {
            "Save to:"
        } else {
            "Save into the directory of:"
        });
        ui.add(egui::TextEdit::singleline(&mut app.save_path).desired_width(360.0))
            .labelled_by(l.id);
        if ui.button("Save").clicked() {
            save = true;
        }
    });
    // one file at a time: a list to pick it, and a search over every generated file
    let names: Vec<String> = g
        .files
        .iter()
        .map(|f| {
            p.files
                .iter()
                .find(|s| crate::commands::absolute(&s.path) == crate::commands::absolute(&f.path))
                .map_or_else(|| f.path.display().to_string(), |s| s.name.clone())
        })
        .collect();
    let texts: Vec<&str> = g.files.iter().map(|f| f.text.as_str()).collect();
    if let Some((f, line)) = find_bar(ui, "find-program", &mut app.find_program, &texts) {
        app.program_file = f;
        app.program_scroll_to = Some(line);
    }
    app.program_file = app.program_file.min(g.files.len().saturating_sub(1));
    if g.files.len() > 1 {
        egui::Panel::left("program-files").resizable(true).show(ui, |ui| {
            ui.strong(format!("Files ({})", g.files.len()));
            egui::ScrollArea::vertical().id_salt("program-file-list").show(ui, |ui| {
                for (k, name) in names.iter().enumerate() {
                    let n = g.files[k].inserted.len();
                    if ui
                        .selectable_label(app.program_file == k, format!("{name} (+{n})"))
                        .clicked()
                    {
                        app.program_file = k;
                    }
                }
            });
        });
    }
    let found = app
        .find_program
        .at()
        .filter(|(f, _)| *f == app.program_file)
        .map(|(_, l)| l);
    let needle = app.find_program.text.clone();
    let scroll_to = app.program_scroll_to.take();
    for (k, f) in g.files.iter().enumerate().filter(|(k, _)| *k == app.program_file) {
        let source = p
            .files
            .iter()
            .find(|s| crate::commands::absolute(&s.path) == crate::commands::absolute(&f.path));
        let original = source.map_or("", |s| s.text.as_str());
        let name = source.map_or_else(|| f.path.display().to_string(), |s| s.name.clone());
        let orig: Vec<&str> = original.lines().collect();
        let gen: Vec<&str> = f.text.lines().collect();
        // Rows: each generated line, with the original line it came from (none for inserted).
        let rows: Vec<(Option<usize>, usize)> = super::model::line_map(original, f)
            .into_iter()
            .enumerate()
            .map(|(i, o)| (o.map(|x| x as usize - 1).filter(|&x| x < orig.len()), i))
            .collect();
        ui.separator();
        ui.strong(format!("{name}  |  generated"));
        let mut area = egui::ScrollArea::both()
            .id_salt(("program", k))
            .auto_shrink([false, true])
            .max_height(ui.available_height());
        if let Some(line) = scroll_to {
            area = area.vertical_scroll_offset((line.saturating_sub(5) as f32) * (ROW_H + 3.0));
        }
        area.show_rows(ui, ROW_H, rows.len(), |ui, range| {
                ui.spacing_mut().item_spacing.y = 3.0;
                for r in range {
                    let (oi, gi) = rows[r];
                    ui.horizontal(|ui| {
                        let mono = |s: String| RichText::new(s).monospace();
                        ui.label(
                            mono(format!(
                                "{:>4} ",
                                oi.map_or(String::new(), |x| (x + 1).to_string())
                            ))
                            .color(Color32::from_gray(120)),
                        );
                        let left = oi.map_or("", |x| orig[x]);
                        ui.allocate_ui_with_layout(
                            egui::vec2(540.0, ROW_H),
                            egui::Layout::left_to_right(egui::Align::Center),
                            |ui| {
                                ui.set_min_width(540.0);
                                ui.add(egui::Label::new(mono(left.to_string())).truncate());
                            },
                        );
                        ui.label(mono(format!("{:>4} ", gi + 1)).color(Color32::from_gray(120)));
                        if found == Some(gi as u32 + 1) {
                            ui.label(line_job(gen[gi], &[], Color32::TRANSPARENT, &find_marks(gen[gi], &needle)));
                        } else if oi.is_none() && f.inserted.contains(&(gi as u32 + 1)) {
                            ui.label(
                                mono(gen[gi].to_string())
                                    .color(Color32::BLACK)
                                    .background_color(Color32::from_rgb(120, 210, 120)),
                            );
                        } else {
                            ui.label(mono(gen[gi].to_string()));
                        }
                    });
                }
            });
    }
    if save {
        app.save_generated();
    }
}

// ---------------------------------------------------------------------------------------------
// Run page.

fn run_page(app: &mut App, ui: &mut Ui) {
    ui.heading("Run the generated program");
    ui.horizontal(|ui| {
        let l = ui.label("Program:");
        ui.add(egui::TextEdit::singleline(&mut app.run_file).desired_width(420.0))
            .labelled_by(l.id)
            .on_hover_text("its files, separated by blanks: what the Program page saved, and the project's C files");
        let l = ui.label("--np");
        ui.add(egui::DragValue::new(&mut app.np).range(1..=4096))
            .labelled_by(l.id);
        let l = ui.label("--threads");
        ui.add(egui::DragValue::new(&mut app.threads).range(1..=1024))
            .labelled_by(l.id);
        ui.checkbox(&mut app.profile, "Profile");
    });
    ui.horizontal(|ui| {
        let l = ui.label("Regions on");
        egui::ComboBox::from_id_salt("devices")
            .selected_text(app.devices.clone())
            .show_ui(ui, |ui| {
                for d in runner::DEVICES {
                    ui.selectable_value(&mut app.devices, d.to_string(), d);
                }
            })
            .response
            .labelled_by(l.id);
        let acc = app.devices != "host";
        ui.add_enabled(acc, egui::Checkbox::new(&mut app.compare, "Compare with the host"))
            .on_hover_text("--compare: every loop of a region runs on the accelerator and on the host; differences are reported");
    });
    let running = app.run.as_ref().is_some_and(|r| r.end().is_none());
    ui.horizontal(|ui| {
        if ui
            .add_enabled(!running, egui::Button::new("Run program"))
            .clicked()
        {
            app.start_run();
        }
        if ui.add_enabled(running, egui::Button::new("Stop")).clicked() {
            if let Some(r) = &app.run {
                r.stop();
            }
        }
    });
    let Some(run) = app.run.as_ref() else {
        ui.label(format!(
            "Runs `{} run FILE... [-I DIR]... --np N --threads T [--profile] [--devices D [--compare]]` in the directory of the first file.",
            app.sapfor_exe.display()
        ));
        if app.run_file.trim().is_empty() {
            ui.label("Save the generated program first (Program page): its files and the project's C files become the program.");
        }
        return;
    };
    ui.label(RichText::new(&run.command).monospace());
    match run.outcome() {
        None => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("Running…");
            });
        }
        Some((true, m)) => {
            ui.colored_label(OK, m);
        }
        Some((false, m)) => {
            ui.colored_label(ERROR, RichText::new(m).strong());
        }
    }
    let lines = run.lines();
    let texts: Vec<String> = lines.iter().map(|(_, l)| l.clone()).collect();
    let prof = profile::parse(&texts);
    let h = if prof.is_some() {
        ui.available_height() * 0.45
    } else {
        ui.available_height()
    };
    egui::ScrollArea::both()
        .id_salt("run-output")
        .max_height(h)
        .auto_shrink([false, true])
        .stick_to_bottom(true)
        .show(ui, |ui| {
            // the profile line is for the window, not part of the program's output
            for (err, l) in lines.iter().filter(|(_, l)| !l.trim_start().starts_with(profile::MARKER)) {
                let t = RichText::new(l).monospace();
                ui.label(if *err { t.color(COMMUNICATION) } else { t });
            }
        });
    if let Some(pr) = prof {
        profile_view(app, ui, &pr);
    }
}

fn profile_view(app: &App, ui: &mut Ui, pr: &profile::Profile) {
    ui.separator();
    ui.strong(format!(
        "Profile{}",
        pr.wall_seconds
            .map_or(String::new(), |w| format!(": {w:.3} s wall"))
    ));
    // the estimates of the scheme picked on the Schemes page, by source file and line
    let scheme = app
        .whatif
        .as_ref()
        .and_then(|w| w.result.as_ref().ok().and_then(|v| v.get(w.selected)));
    let est = match (scheme, app.project.as_ref()) {
        (Some(s), Some(p)) => super::model::nest_times(s, &|f| p.file_name(f)),
        _ => Default::default(),
    };
    // measured loops by the user's source lines (the program's lines where it is not the one
    // saved here)
    // (a loop run as one with the next: its time against both loops' estimates)
    let rows: Vec<(String, u32, f64, Option<u32>)> = pr
        .loops
        .iter()
        .map(|(f, l, s)| {
            let with = pr.with.get(&(f.clone(), *l)).map(|l2| app.source_place(f, *l2).1);
            let (f, l) = app.source_place(f, *l);
            (f, l, *s, with)
        })
        .collect();
    let scale = rows
        .iter()
        .map(|l| l.2)
        .chain(pr.communication.iter().map(|c| c.1))
        .chain(rows.iter().filter_map(|(f, l, _, w)| super::model::pair_time(&est, f, *l, *w)))
        .fold(0.0, f64::max);
    egui::Grid::new("profile").striped(true).show(ui, |ui| {
        ui.strong("Loop");
        ui.strong("Measured");
        ui.strong("Measured, s");
        ui.strong("Estimated, s");
        ui.end_row();
        for (file, line, s, with) in &rows {
            let e = super::model::pair_time(&est, file, *line, *with);
            ui.label(match with {
                Some(l2) => format!("{file}:{line} and {l2}, as one"),
                None => format!("{file}:{line}"),
            });
            bar(ui, &[(*s, COMPUTATION)], scale, 220.0);
            ui.label(format!("{s:.6}"));
            ui.label(e.map_or("-".into(), |e| format!("{e:.6}")));
            ui.end_row();
        }
        ui.strong("Communication");
        ui.end_row();
        for (kind, s) in &pr.communication {
            ui.label(kind);
            bar(ui, &[(*s, COMMUNICATION)], scale, 220.0);
            ui.label(format!("{s:.6}"));
            ui.end_row();
        }
        if let Some(w) = pr.wall_seconds {
            ui.strong("Total");
            ui.label("");
            ui.label(format!("{w:.6}"));
            ui.label(scheme.map_or("-".into(), |s| format!("{:.6}", s.estimate.total)));
            ui.end_row();
        }
    });
    if let Some(s) = scheme {
        ui.label(format!(
            "Estimated: scheme {} on {} processes (Schemes page); measured: the slowest process.",
            s.name,
            app.whatif.as_ref().map_or(0, |w| w.machine.processes)
        ));
    }
}
