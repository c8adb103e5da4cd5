//! The dialog shell (SPEC sections 1-2): a desktop window (egui/eframe, glow backend) on a project
//! database. It reads and writes only through the `database` crate and re-runs the analyzer,
//! the experts and the generator through their crates.
//!
//! Module map: `model` (the [`model::Project`] read from the database; no egui), `worker`
//! (background reload after a refinement), `highlight` (Fortran colouring from tree-sitter),
//! `runner` (the Run action as a child process) and `profile` (reading its profile report),
//! and the views in `views`. [`App`] holds the UI state; [`App::show`] draws one frame into
//! any `Ui`, so the headless tests (egui_kittest) drive exactly what the window shows.

pub mod highlight;
pub mod model;
pub mod profile;
pub mod runner;
pub mod views;
pub mod worker;

use anyhow::Result;
use experts::machine::MachineModel;
use experts::scheme::Scheme;
use model::{Change, Project};
use std::path::PathBuf;
use std::process::ExitCode;

/// The pages of the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    Source,
    Loops,
    Refinements,
    Schemes,
    Program,
    Run,
}

impl Tab {
    pub const ALL: [Tab; 6] = [
        Tab::Source,
        Tab::Loops,
        Tab::Refinements,
        Tab::Schemes,
        Tab::Program,
        Tab::Run,
    ];
    pub fn title(self) -> &'static str {
        match self {
            Tab::Source => "Source",
            Tab::Loops => "Loops",
            Tab::Refinements => "Refinements",
            Tab::Schemes => "Schemes",
            Tab::Program => "Program",
            Tab::Run => "Run",
        }
    }
}

/// Sort key of the loop table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortBy {
    Position,
    Verdict,
    Unit,
    Depth,
    Blockers,
    Share,
}

/// The refinement being composed for the selected loop or array.
#[derive(Clone, Debug)]
pub struct RefineForm {
    pub var: String,
    pub op: String,
    pub array: String,
    pub formats: String,
    /// Write loop assertions into the source as `!$SPF` hints instead of the database.
    pub as_hint: bool,
}

impl Default for RefineForm {
    fn default() -> Self {
        RefineForm {
            var: String::new(),
            op: "sum".into(),
            array: String::new(),
            formats: "(BLOCK,*)".into(),
            as_hint: false,
        }
    }
}

/// The loop-table filters ("" / None = all).
#[derive(Clone, Debug)]
pub struct LoopFilter {
    pub verdict: String,
    pub unit: String,
    pub depth: Option<u32>,
    pub blocker: String,
    /// Minimal estimated share of run time, percent.
    pub min_share: f32,
    /// Only the loops of this file (its project name).
    pub file: String,
    /// Text the loop must match: its file, unit or variable, a private, reduction or
    /// dependence variable, or a name in its source lines (case-insensitive).
    pub text: String,
    pub sort: SortBy,
    pub descending: bool,
}

impl Default for LoopFilter {
    fn default() -> Self {
        LoopFilter {
            verdict: String::new(),
            unit: String::new(),
            depth: None,
            blocker: String::new(),
            min_share: 0.0,
            file: String::new(),
            text: String::new(),
            sort: SortBy::Position,
            descending: false,
        }
    }
}

/// A generated program shown on the Program page.
pub struct Generated {
    pub scheme_id: Option<i64>,
    pub scheme_name: String,
    pub files: Vec<generator::GeneratedFile>,
}

/// A text search over the files of a page (Source, Program): every line holding the text
/// (case-insensitive), and the one shown.
#[derive(Clone, Debug, Default)]
pub struct Find {
    pub text: String,
    /// (file index, 1-based line) of each line that holds the text, in file order.
    pub hits: Vec<(usize, u32)>,
    /// Index into `hits` of the line shown.
    pub current: usize,
    /// What `hits` were computed for: the text and a fingerprint of the files.
    searched: (String, usize),
}

impl Find {
    /// Recompute the hits if the text or the files changed; true when they were recomputed.
    pub fn update(&mut self, texts: &[&str]) -> bool {
        let key = (self.text.clone(), texts.iter().map(|t| t.len() + 1).sum::<usize>() * 31 + texts.len());
        if key == self.searched {
            return false;
        }
        self.searched = key;
        self.hits.clear();
        self.current = 0;
        let needle = self.text.trim().to_lowercase();
        if needle.is_empty() {
            return true;
        }
        for (f, t) in texts.iter().enumerate() {
            for (i, l) in t.lines().enumerate() {
                if l.to_lowercase().contains(&needle) {
                    self.hits.push((f, i as u32 + 1));
                }
            }
        }
        true
    }

    /// The hit shown, if any.
    pub fn at(&self) -> Option<(usize, u32)> {
        self.hits.get(self.current).copied()
    }

    /// Move to the next (or previous) hit, round the end.
    pub fn step(&mut self, forward: bool) -> Option<(usize, u32)> {
        let n = self.hits.len();
        if n == 0 {
            return None;
        }
        self.current = if forward { (self.current + 1) % n } else { (self.current + n - 1) % n };
        self.at()
    }
}

/// A file of the saved program and where its lines come from.
#[derive(Clone, Debug)]
pub struct SavedFile {
    pub path: PathBuf,
    /// The source file it was generated from, as the project names it.
    pub source: String,
    /// For each line (index 0 = line 1), the source line it came from (none: a directive).
    pub lines: Vec<Option<u32>>,
}

impl App {
    /// `file:line` of a loop as the runtime's profile names it (a line of the program run),
    /// as the user's source names it where the program is the one saved here.
    pub fn source_place(&self, file: &str, line: u32) -> (String, u32) {
        let base = |p: &std::path::Path| p.file_name().map(|n| n.to_os_string());
        let f = std::path::Path::new(file);
        self.saved_files
            .iter()
            .find(|s| s.path == f || base(&s.path) == base(f))
            .and_then(|s| s.lines.get((line as usize).checked_sub(1)?).copied().flatten().map(|l| (s.source.clone(), l)))
            .unwrap_or_else(|| (file.to_string(), line))
    }
}

/// The what-if state of the Schemes page.
pub struct WhatIf {
    pub machine: MachineModel,
    pub grid: String,
    pub result: Result<Vec<Scheme>, String>,
    /// The variants the experts rejected for this machine, each with every reason.
    pub rejected: Vec<experts::scheme::Rejected>,
    /// Index into `result` of the scheme the user picked.
    pub selected: usize,
}

pub struct App {
    pub db_path: PathBuf,
    pub project: Option<Project>,
    /// An error to show at the top of the window (failed load, refinement, generation, save).
    pub error: Option<String>,
    /// The last thing that went well (saved a file, removed a refinement...).
    pub info: Option<String>,
    pub job: Option<worker::Job>,
    ctx: Option<egui::Context>,
    pub tab: Tab,
    pub file: usize,
    /// Index into `project.loops`.
    pub selected_loop: Option<usize>,
    /// Index into the selected loop's dependences.
    pub selected_dep: Option<usize>,
    /// Coloured runs per file (computed once per load).
    highlights: Vec<Vec<Vec<highlight::Run>>>,
    pub form: RefineForm,
    pub filter: LoopFilter,
    pub whatif: Option<WhatIf>,
    pub generated: Option<Generated>,
    pub save_path: String,
    /// The files of the program the Run action runs, separated by blanks (set when the
    /// generated program is saved: every file of it, and the project's C files).
    pub run_file: String,
    /// The files of the program last saved, each with the source file it was generated from
    /// and the source line of each of its lines: profiles are shown by source lines.
    pub saved_files: Vec<SavedFile>,
    /// Text search on the Source page (over the project's files).
    pub find: Find,
    /// Text search on the Program page (over the generated files).
    pub find_program: Find,
    /// The generated file shown on the Program page.
    pub program_file: usize,
    /// Scroll the Program page to this line of the file shown on the next frame.
    pub(crate) program_scroll_to: Option<u32>,
    pub np: u32,
    pub threads: u32,
    pub profile: bool,
    /// `--devices` of the Run action (one of `runner::DEVICES`) and `--compare`.
    pub devices: String,
    pub compare: bool,
    pub run: Option<runner::RunJob>,
    /// The `sapfor` executable the Run action calls (this one by default).
    pub sapfor_exe: PathBuf,
    /// Scroll the source view to this line on the next frame.
    scroll_to: Option<u32>,
    /// A hint line is being inserted before this line of this file: the selection moves down.
    pub(crate) shift_selection: Option<(String, u32)>,
    /// The last saved program and its artifact id in the database (runs of it are recorded).
    pub saved: Option<(PathBuf, i64)>,
    /// The current run's outcome was handled (recorded, reported).
    run_handled: bool,
    /// What the refinements of the last change did, with what changed in their loops.
    pub effects: Vec<crate::commands::Effect>,
}

impl App {
    /// Start loading `db` (analyzing `files` first when given) in the background.
    pub fn new(db: PathBuf, files: Vec<PathBuf>, ctx: Option<egui::Context>) -> App {
        let mut app = App {
            db_path: db,
            project: None,
            error: None,
            info: None,
            job: None,
            ctx,
            tab: Tab::Source,
            file: 0,
            selected_loop: None,
            selected_dep: None,
            highlights: vec![],
            form: RefineForm::default(),
            filter: LoopFilter::default(),
            whatif: None,
            generated: None,
            save_path: String::new(),
            run_file: String::new(),
            saved_files: vec![],
            find: Find::default(),
            find_program: Find::default(),
            program_file: 0,
            program_scroll_to: None,
            np: 2,
            threads: 1,
            profile: false,
            devices: "host".into(),
            compare: false,
            run: None,
            sapfor_exe: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("sapfor")),
            scroll_to: None,
            shift_selection: None,
            saved: None,
            run_handled: false,
            effects: vec![],
        };
        app.submit(Change {
            files,
            ..Change::default()
        });
        app
    }

    /// True while a background job runs.
    pub fn busy(&self) -> bool {
        self.job.is_some()
    }

    /// Send a change to the worker (refuses while another one runs).
    pub fn submit(&mut self, change: Change) {
        if self.busy() {
            self.error = Some("still working on the previous request".into());
            return;
        }
        self.info = None;
        self.job = Some(worker::Job::spawn(
            self.db_path.clone(),
            change,
            self.ctx.clone(),
        ));
    }

    /// Take the worker's result if it is there.
    pub fn poll(&mut self) {
        let Some(job) = self.job.as_mut() else { return };
        let Some(result) = job.poll() else { return };
        self.job = None;
        match result {
            Ok(p) => self.set_project(p),
            Err(e) => self.error = Some(e),
        }
    }

    fn set_project(&mut self, p: Project) {
        self.error = None;
        // Keep the selection on the same loop (by position) across reloads.
        let keep = self
            .selected_loop
            .and_then(|i| self.project.as_ref()?.loops.get(i))
            .map(|l| (l.file.clone(), l.line))
            .map(|(f, line)| match self.shift_selection.take() {
                Some((sf, at)) if sf == f && line >= at => (f, line + 1),
                _ => (f, line),
            });
        self.shift_selection = None;
        // what each new refinement changed in its loop (before: the project shown until now)
        self.effects = p.effects.clone();
        let n = self.effects.len();
        for k in 0..n {
            let e = &self.effects[k];
            // said once per loop: after the last refinement of the change on it
            let Some(at) = e.at.clone().filter(|_| e.refused.is_none()) else { continue };
            if self.effects[k + 1..].iter().any(|x| x.refused.is_none() && x.at.as_ref() == Some(&at)) {
                continue;
            }
            let find = |q: &Project| {
                q.loops
                    .iter()
                    .find(|l| l.line == at.line && (l.file == at.file || at.matches_file(&l.file)))
                    .cloned()
            };
            if let (Some(old), Some(new)) = (self.project.as_ref().and_then(find), find(&p)) {
                self.effects[k].notes.extend(model::loop_changes(&old, &new));
            }
        }
        self.highlights = p
            .files
            .iter()
            .map(|f| highlight::highlight(&f.text, f.fixed))
            .collect();
        self.selected_loop =
            keep.and_then(|(f, line)| p.loops.iter().position(|l| l.file == f && l.line == line));
        self.selected_dep = None;
        self.file = self.file.min(p.files.len().saturating_sub(1));
        // The what-if values the user set survive a reload (a refinement elsewhere); they
        // follow the stored machine when that changed (recorded as refinements).
        let mut machine = p.machine.clone();
        machine.grid.clear();
        let mut grid = String::new();
        if let (Some(old), Some(w)) = (self.project.as_ref(), self.whatif.as_ref()) {
            let mut stored = old.machine.clone();
            stored.grid.clear();
            let mut new_stored = p.machine.clone();
            new_stored.grid.clear();
            if stored == new_stored && (w.machine != stored || !w.grid.is_empty()) {
                machine = w.machine.clone();
                grid = w.grid.clone();
            }
        }
        self.whatif = Some(WhatIf {
            result: Err(String::new()),
            rejected: vec![],
            machine,
            grid,
            selected: 0,
        });
        let chosen = p.schemes.iter().find(|(_, s)| s.chosen).map(|(_, s)| s.name.clone());
        self.project = Some(p);
        self.reestimate();
        if let Some(w) = self.whatif.as_mut() {
            if let Ok(v) = &w.result {
                w.selected = chosen
                    .and_then(|c| v.iter().position(|x| x.name == c))
                    .unwrap_or(0);
            }
        }
        self.generate_selected();
    }

    /// Re-estimate every scheme for the what-if machine (instant: nothing is stored).
    pub fn reestimate(&mut self) {
        let (Some(p), Some(w)) = (self.project.as_ref(), self.whatif.as_mut()) else {
            return;
        };
        let grid: Result<Vec<u32>, String> = w
            .grid
            .split(['x', 'X', '*', ','])
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| {
                s.parse::<u32>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| format!("`{s}` is not a grid extent"))
            })
            .collect();
        (w.result, w.rejected) = match grid {
            Ok(g) => {
                w.machine.grid = g;
                model::what_if(&p.analysis, &w.machine, p.target)
            }
            Err(e) => (Err(e), vec![]),
        };
        if let Ok(v) = &w.result {
            w.selected = w.selected.min(v.len().saturating_sub(1));
        }
    }

    /// Select loop `i` of the project and show it in the source view.
    pub fn show_loop(&mut self, i: usize) {
        self.selected_loop = Some(i);
        self.selected_dep = None;
        if let Some(p) = self.project.as_ref() {
            let l = &p.loops[i];
            self.file = p.files.iter().position(|f| f.name == l.file).unwrap_or(self.file);
            self.scroll_to = Some(l.line);
        }
        self.tab = Tab::Source;
    }

    /// The loop whose DO statement is at `line` of `file` (a project-relative name, or a path
    /// as the analysis gives it).
    pub fn loop_at(&self, file: &str, line: u32) -> Option<usize> {
        let p = self.project.as_ref()?;
        let abs = crate::commands::absolute(std::path::Path::new(file));
        p.loops.iter().position(|l| {
            l.line == line
                && (l.file == file
                    || p.files.iter().any(|f| f.name == l.file && crate::commands::absolute(&f.path) == abs))
        })
    }

    /// Generate the program of the scheme selected on the Schemes page.
    pub fn generate_selected(&mut self) {
        let (Some(p), Some(w)) = (self.project.as_ref(), self.whatif.as_ref()) else {
            return;
        };
        let Ok(schemes) = &w.result else { return };
        let Some(s) = schemes.get(w.selected) else {
            return;
        };
        let id = p
            .schemes
            .iter()
            .find(|(_, r)| r.name == s.name && r.expert == s.expert)
            .map(|(id, _)| *id);
        match model::generate(&p.analysis, s) {
            Ok(files) => {
                if let Some(f) = files.first() {
                    let out = f.path.with_extension("fdv");
                    self.save_path = crate::commands::near(&out).display().to_string();
                    if self.run_file.is_empty() {
                        self.run_file = self.save_path.clone();
                    }
                }
                self.generated = Some(Generated {
                    scheme_id: id,
                    scheme_name: s.name.clone(),
                    files,
                });
            }
            Err(e) => {
                self.generated = None;
                self.error = Some(format!("cannot generate the program of {}: {e}", s.name));
            }
        }
    }

    /// Save the generated program (one file: to `save_path`; several: into its directory) and
    /// record it in the database.
    pub fn save_generated(&mut self) {
        let Some(g) = &self.generated else {
            self.error = Some("no generated program to save".into());
            return;
        };
        let target = PathBuf::from(self.save_path.trim());
        if self.save_path.trim().is_empty() {
            self.error = Some("give the file to save the program to".into());
            return;
        }
        let mut saved_files = vec![];
        let result = (|| -> Result<Vec<(PathBuf, Option<i64>)>> {
            let mut written = vec![];
            for f in &g.files {
                let dest = if g.files.len() == 1 {
                    target.clone()
                } else {
                    let dir = if target.is_dir() {
                        target.clone()
                    } else {
                        target.parent().map(PathBuf::from).unwrap_or_default()
                    };
                    dir.join(f.path.with_extension("fdv").file_name().unwrap_or_default())
                };
                if crate::commands::absolute(&dest) == crate::commands::absolute(&f.path) {
                    anyhow::bail!(
                        "{} is the original program: choose another file",
                        dest.display()
                    );
                }
                crate::commands::write_atomically(&dest, f.text.as_bytes())?;
                let source = self
                    .project
                    .as_ref()
                    .and_then(|p| {
                        p.files.iter().find(|s| {
                            crate::commands::absolute(&s.path) == crate::commands::absolute(&f.path)
                        })
                    });
                saved_files.push(SavedFile {
                    path: crate::commands::absolute(&dest),
                    source: source.map_or_else(|| f.path.display().to_string(), |s| s.name.clone()),
                    lines: model::line_map(source.map_or("", |s| s.text.as_str()), f),
                });
                let mut artifact = None;
                if let Some(id) = g.scheme_id {
                    let mut db = crate::commands::open_db(&self.db_path)?;
                    artifact = Some(crate::auto::store_program(&mut db, id, &dest, &f.text)?);
                }
                written.push((dest, artifact));
            }
            Ok(written)
        })();
        match result {
            Ok(w) => {
                self.error = None;
                // the program to run: every file saved, and the project's C sources
                let mut files: Vec<PathBuf> = w.iter().map(|p| p.0.clone()).collect();
                files.extend(self.project.as_ref().map(|p| p.c_files()).unwrap_or_default());
                self.run_file = runner::join_files(&files);
                self.saved_files = saved_files;
                self.saved = w.first().and_then(|(p, a)| a.map(|a| (p.clone(), a)));
                self.info = Some(format!(
                    "saved {}",
                    w.iter()
                        .map(|p| p.0.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            Err(e) => self.error = Some(format!("cannot save the program: {e:#}")),
        }
    }

    /// Start the Run action: `sapfor run` on the program's files, with the project's INCLUDE
    /// directories, in the directory of the first file.
    pub fn start_run(&mut self) {
        let files = runner::split_files(&self.run_file);
        if files.is_empty() {
            self.error = Some("the program does not exist: save the generated program first (Program page)".into());
            return;
        }
        if let Some(f) = files.iter().find(|f| !f.is_file()) {
            self.error = Some(format!(
                "{} does not exist: save the generated program first (Program page)",
                f.display()
            ));
            return;
        }
        self.error = None;
        let files: Vec<PathBuf> = files.iter().map(|f| crate::commands::absolute(f)).collect();
        let include: Vec<PathBuf> = self
            .project
            .as_ref()
            .map(|p| p.include_dirs.iter().map(|d| crate::commands::absolute(d)).collect())
            .unwrap_or_default();
        let args = runner::run_args(
            &files,
            &include,
            self.np,
            self.threads,
            self.profile,
            &self.devices,
            self.compare,
        );
        self.run_handled = false;
        self.run = Some(runner::RunJob::start(
            &self.sapfor_exe,
            &args,
            files[0].parent(),
            self.ctx.clone(),
        ));
    }

    /// When a run with a profile of the last saved program has finished, record it in the
    /// database (measured times next to the estimates).
    fn finish_run(&mut self) {
        let Some(run) = &self.run else { return };
        if self.run_handled || run.end().is_none() {
            return;
        }
        self.run_handled = true;
        if !run.end().is_some_and(|e| e.success()) {
            return;
        }
        let lines: Vec<String> = run.lines().into_iter().map(|(_, l)| l).collect();
        let Some(prof) = profile::parse(&lines) else {
            return;
        };
        let Some((path, artifact)) = &self.saved else {
            return;
        };
        let ran = runner::split_files(&self.run_file);
        if !ran.iter().any(|f| crate::commands::absolute(f) == crate::commands::absolute(path)) {
            return;
        }
        // recorded by the user's source lines, so that stored runs match the loops
        let mut prof = prof;
        for l in &mut prof.loops {
            (l.0, l.1) = self.source_place(&l.0, l.1);
        }
        let rec = profile::run_record(&prof, &run.command, self.np, self.threads);
        let stored = crate::commands::open_db(&self.db_path).and_then(|mut db| {
            db.store_run(*artifact, &rec)
                .map_err(|e| anyhow::anyhow!("{e}"))
        });
        match stored {
            Ok(id) => self.info = Some(format!("run #{id} recorded in the database")),
            Err(e) => self.error = Some(format!("cannot record the run: {e:#}")),
        }
    }

    /// Draw the whole window into `ui` (one frame).
    pub fn show(&mut self, ui: &mut egui::Ui) {
        self.poll();
        self.finish_run();
        views::window(self, ui);
    }
}

impl eframe::App for App {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
        if self.busy() || self.run.as_ref().is_some_and(|r| r.end().is_none()) {
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(100));
        }
    }
}

/// `sapfor gui`: open the window and return when it is closed.
pub fn run_window(db: PathBuf, files: Vec<PathBuf>) -> Result<ExitCode> {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_inner_size([1280.0, 800.0])
            .with_title(format!("sapfor — {}", db.display())),
        ..Default::default()
    };
    eframe::run_native(
        "sapfor",
        options,
        Box::new(move |cc| Ok(Box::new(App::new(db, files, Some(cc.egui_ctx.clone()))))),
    )
    .map_err(|e| anyhow::anyhow!("cannot open the window: {e}"))?;
    Ok(ExitCode::SUCCESS)
}
