//! Headless tests of the desktop dialog (`sapfor gui`): egui_kittest drives the same
//! `App::show` the window draws, clicking by label and reading texts, on real SQLite project
//! databases built from the samples. Run with `cargo test -p shell-gui --features gui`.
#![cfg(feature = "gui")]

mod common;

use common::{
    click, dep_label, fake_sapfor, jacobi, loop_index, open, open_jacobi, settle, verdict, Project,
};
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use shell_gui::gui::{App, Tab};
use std::path::PathBuf;

// --- 1. Source view --------------------------------------------------------------------------

#[test]
fn source_view_marks_every_loop_with_its_verdict() {
    let (_p, h) = open_jacobi();
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    // Margin marks: P parallel, S sequential, next to the line number of each DO.
    for line in [5, 6, 18, 19, 24, 25] {
        h.get_by_label(&format!("P {line:>4}"));
    }
    h.get_by_label("S   16");
    assert!(h.query_by_label("P   16").is_none());
    // The text itself with its line numbers.
    h.get_by_label("      PROGRAM JAC");
    h.get_by_label("     1");
}

#[test]
fn selecting_a_loop_shows_reductions_private_blockers_and_dependences() {
    let (_p, mut h) = open_jacobi();
    click(&mut h, "P   18");
    h.get_by_label("Loop J at jac.f:18");
    h.get_by_label("Reductions: max(EPS)");
    h.get_by_label("Private: none");
    h.get_by_label("Blockers (0)");

    click(&mut h, "S   16");
    h.get_by_label("Loop IT at jac.f:16");
    h.get_by_label("Private: EPS");
    h.get_by_label("io: PRINT statement at line 30");
    h.get_by_label("exit: GOTO 3 at line 32 jumps out of the loop");
    // A dependence: selecting it highlights both accesses in the text.
    let label = dep_label(&h, 16, 0);
    click(&mut h, &label);
    assert_eq!(h.state().selected_dep, Some(0));
    // A statement's continuation lines belong to it (line 26 continues on 27).
    let text = std::fs::read_to_string(jacobi().src).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        shell_gui::gui::views::statement_lines(&lines, true, 26),
        vec![26, 27]
    );
    assert_eq!(
        shell_gui::gui::views::statement_lines(&lines, true, 21),
        vec![21]
    );
    // Picking a variable of the loop fills the refinement form.
    click(&mut h, "EPS");
    assert_eq!(h.state().form.var, "eps");
    let job = shell_gui::gui::views::line_marks("         A(I, J) = B(I, J)", "a");
    assert_eq!(job, vec![(9, 10)]);
}

#[test]
fn fortran_text_is_coloured_from_the_tree_sitter_query() {
    let text = std::fs::read_to_string(jacobi().src).unwrap();
    let runs = shell_gui::gui::highlight::highlight(&text, true);
    let line = text.lines().next().unwrap(); // "      PROGRAM JAC"
    let kw = runs[0]
        .iter()
        .find(|r| line[r.start..r.end].trim() == "PROGRAM");
    assert_eq!(
        kw.map(|r| r.class),
        Some(shell_gui::gui::highlight::Class::Keyword)
    );
}

// --- 2. Loop table ---------------------------------------------------------------------------

#[test]
fn loop_table_filters_sorts_and_selects() {
    let (_p, mut h) = open_jacobi();
    click(&mut h, "Loops");
    h.get_by_label("7 of 7 loops");
    h.state_mut().filter.verdict = "sequential".into();
    h.step();
    h.get_by_label("1 of 7 loops");
    h.get_by_label("jac.f:16 IT");
    h.state_mut().filter.verdict.clear();
    h.state_mut().filter.blocker = "io".into();
    h.step();
    h.get_by_label("1 of 7 loops");
    h.state_mut().filter.blocker.clear();
    h.state_mut().filter.depth = Some(3);
    h.step();
    h.get_by_label("2 of 7 loops");
    h.state_mut().filter.depth = None;
    h.state_mut().filter.min_share = 5.0;
    h.step();
    // The initialization nest (lines 5-6) takes about 2% of the estimated time.
    let shown = {
        let app = h.state();
        shell_gui::gui::views::visible_loops(app, app.project.as_ref().unwrap())
    };
    assert_eq!(shown.len(), 5, "{shown:?}");
    h.get_by_label("5 of 7 loops");
    // Shares: a nest's inner loops share its figure, an outer loop sums its nests.
    let share = |line| {
        let i = loop_index(&h, line);
        h.state().project.as_ref().unwrap().loops[i].share.unwrap()
    };
    assert_eq!(share(19), share(18));
    assert!((share(16) - share(18) - share(24)).abs() < 1e-12);
    assert!(share(16) > 0.9 && share(16) <= 1.0, "{}", share(16));
    h.state_mut().filter.min_share = 0.0;
    // Sort by depth by clicking the header, twice for descending.
    click(&mut h, "Depth");
    let order = |h: &Harness<'static, App>| {
        let app = h.state();
        let p = app.project.as_ref().unwrap();
        shell_gui::gui::views::visible_loops(app, p)
            .iter()
            .map(|&i| p.loops[i].depth)
            .collect::<Vec<_>>()
    };
    assert_eq!(order(&h), vec![1, 1, 2, 2, 2, 3, 3]);
    click(&mut h, "Depth ^");
    assert_eq!(order(&h), vec![3, 3, 2, 2, 2, 1, 1]);
    // Clicking a row opens the loop in the source view.
    click(&mut h, "jac.f:24 J");
    assert_eq!(h.state().tab, Tab::Source);
    h.step();
    h.get_by_label("Loop J at jac.f:24");
}

// --- 3. Refinement ---------------------------------------------------------------------------

#[test]
fn refinement_is_stored_reanalysed_in_the_background_and_removable() {
    let (p, mut h) = open_jacobi();
    assert_eq!(verdict(&h, 18), "parallel");
    let first = h.state().project.as_ref().unwrap().analysis_id;
    click(&mut h, "P   18");
    click(&mut h, "Assert sequential");
    // The work runs in a worker thread: the window keeps drawing meanwhile.
    assert!(h.state().busy());
    h.step();
    settle(&mut h);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    assert_eq!(verdict(&h, 18), "sequential");
    h.get_by_label("S   18");
    // Stored in the project database.
    let db = database::Db::open(&p.db).unwrap();
    let o = db.overrides().unwrap();
    assert_eq!(o.len(), 1);
    assert_eq!(o[0].1.kind(), "sequential");
    drop(db);
    // Listed on the Refinements page, and removable there.
    click(&mut h, "Refinements");
    let id = o[0].0;
    h.get_by_label_contains(&format!("#{id}: loop at"));
    click(&mut h, &format!("Remove #{id}"));
    settle(&mut h);
    assert_eq!(verdict(&h, 18), "parallel");
    h.get_by_label("No refinements recorded.");
    // Back to the inputs of the first analysis: that one is current again, with its schemes.
    let back = h.state().project.as_ref().unwrap();
    assert_eq!(back.analysis_id, first);
    assert_eq!(back.schemes.len(), 4);
    assert!(database::Db::open(&p.db)
        .unwrap()
        .overrides()
        .unwrap()
        .is_empty());
}

#[test]
fn private_and_reduction_refinements_and_bad_input() {
    let (p, mut h) = open_jacobi();
    click(&mut h, "P   24");
    // No variable typed: an error in the window, nothing stored.
    click(&mut h, "Private");
    assert!(h
        .state()
        .error
        .as_deref()
        .unwrap()
        .contains("not a Fortran name"));
    h.step();
    h.get_by_label_contains("Error: `` is not a Fortran name");
    assert!(!h.state().busy());
    h.state_mut().form.var = "eps".into();
    h.state_mut().form.op = "max".into();
    click(&mut h, "S   16");
    click(&mut h, "Reduction");
    settle(&mut h);
    let o = database::Db::open(&p.db).unwrap().overrides().unwrap();
    assert_eq!(o.len(), 1);
    assert_eq!(
        o[0].1.to_string(),
        format!(
            "EPS is a max reduction in the loop at {}:16",
            o[0].1.loop_ref().unwrap().file
        )
    );
    let i = loop_index(&h, 16);
    let l = &h.state().project.as_ref().unwrap().loops[i];
    assert_eq!(
        l.reductions,
        vec![("max".to_string(), "eps".to_string())],
        "{l:?}"
    );
    assert!(!l.overridden_by.is_empty(), "{l:?}");
    h.get_by_label("Reductions: max(EPS)");
}

#[test]
fn array_refinements_reach_the_experts() {
    let (p, mut h) = open_jacobi();
    h.state_mut().form.array = "a".into();
    click(&mut h, "Do not distribute");
    settle(&mut h);
    let o = database::Db::open(&p.db).unwrap().overrides().unwrap();
    assert_eq!(o[0].1.to_string(), "array A must not be distributed");
    // A distribution with the wrong rank is refused before anything is stored.
    h.state_mut().form.array = "b".into();
    h.state_mut().form.formats = "(BLOCK)".into();
    click(&mut h, "Distribute");
    assert!(h
        .state()
        .error
        .as_deref()
        .unwrap()
        .contains("B has 2 dimensions"));
    h.state_mut().form.formats = "(BLOCK,*)".into();
    click(&mut h, "Distribute");
    settle(&mut h);
    let o = database::Db::open(&p.db).unwrap().overrides().unwrap();
    assert_eq!(o.len(), 2);
    assert_eq!(o[1].1.to_string(), "distribute B as (BLOCK,*)");
}

#[test]
fn refinement_written_into_the_source_as_a_hint() {
    let (p, mut h) = open_jacobi();
    click(&mut h, "P   18");
    h.state_mut().form.as_hint = true;
    click(&mut h, "Assert sequential");
    settle(&mut h);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    let text = std::fs::read_to_string(&p.src).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[17], "C$SPF SEQUENTIAL");
    assert_eq!(lines[18].trim(), "DO J = 2, L-1");
    // The DO moved to line 19 and the hint made it sequential; nothing went into the database.
    assert_eq!(verdict(&h, 19), "sequential");
    assert!(database::Db::open(&p.db)
        .unwrap()
        .overrides()
        .unwrap()
        .is_empty());
    // An array assertion goes before the selected loop too, and reaches the experts.
    click(&mut h, "S   19");
    h.state_mut().form.array = "b".into();
    click(&mut h, "Do not distribute");
    settle(&mut h);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    let text = std::fs::read_to_string(&p.src).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[17], "C$SPF SEQUENTIAL");
    assert_eq!(lines[18], "C$SPF NODISTRIBUTE(B)");
    assert_eq!(verdict(&h, 20), "sequential");
    let hints = &h.state().project.as_ref().unwrap().analysis.hints;
    assert!(
        hints.contains(&analyzer::overrides::Override::NoDistribute { array: "b".into() }),
        "{hints:?}"
    );
    // What has no hint form is refused with a message.
    h.state_mut().form.var = "eps".into();
    h.state_mut().form.op = "maxloc".into();
    click(&mut h, "Reduction");
    settle(&mut h);
    assert!(
        h.state()
            .error
            .as_deref()
            .unwrap_or("")
            .contains("location array"),
        "{:?}",
        h.state().error
    );
}

// --- 4. Schemes ------------------------------------------------------------------------------

#[test]
fn rejected_variants_explain_themselves_and_lead_to_their_loops() {
    // Two in-place 9-point sweeps: every distributed variant is rejected, for both loops.
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("sor9.f");
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/rejected/sor9.f"),
        &src,
    )
    .unwrap();
    let p = Project {
        db: dir.path().join("sapfor.db"),
        src: src.clone(),
        dir,
    };
    let mut h = open(&p, vec![src]);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    click(&mut h, "Schemes");
    // in the variant list: a rejected row with its first reason
    h.get_by_label("(BLOCK,BLOCK) (rejected)");
    h.get_by_label("(*,BLOCK) (rejected)");
    let first = "sor9.f:12 (unit SOR9): the loop at line 12 cannot be aligned with the distribution (no reference indexes every distributed dimension by a loop variable)";
    assert_eq!(h.get_all_by_label(&format!("{first} (and 1 more below)")).count(), 2);
    // below: every reason of each, as links to the loops
    h.get_by_label("dvm (BLOCK,BLOCK): 2 reasons");
    let second = "sor9.f:18 (unit SOR9): the loop at line 18 cannot be aligned with the distribution (no reference indexes every distributed dimension by a loop variable)";
    assert_eq!(h.get_all_by_label(second).count(), 2);
    h.get_all_by_label(second).next().unwrap().click();
    h.step();
    h.step();
    let st = h.state();
    assert_eq!(st.tab, Tab::Source);
    let l = &st.project.as_ref().unwrap().loops[st.selected_loop.expect("a loop selected")];
    assert_eq!((l.file.as_str(), l.line), ("sor9.f", 18));
    h.get_by_label("Loop I at sor9.f:18");
}

#[test]
fn schemes_chart_what_if_and_choice() {
    let (p, mut h) = open_jacobi();
    click(&mut h, "Schemes");
    h.get_by_label("Candidate schemes");
    h.get_by_label_contains("(chosen)");
    h.get_by_label_contains("replicated");
    h.get_by_label("computation");
    h.get_by_label("communication");
    h.get_by_label("transfers");
    let totals = |h: &Harness<'static, App>| {
        let w = h.state().whatif.as_ref().unwrap();
        w.result
            .as_ref()
            .unwrap()
            .iter()
            .map(|s| s.estimate.total)
            .collect::<Vec<_>>()
    };
    let before = totals(&h);
    // What if: more processes -> cheaper distributed schemes, instantly.
    h.state_mut().whatif.as_mut().unwrap().machine.processes = 16;
    h.state_mut().reestimate();
    h.step();
    let after = totals(&h);
    assert!(after[0] < before[0], "{before:?} -> {after:?}");
    // A grid: estimates for exactly that grid; a wrong one is shown as an error.
    h.state_mut().whatif.as_mut().unwrap().grid = "2x8".into();
    h.state_mut().reestimate();
    h.step();
    let grids: Vec<Vec<u32>> = {
        let w = h.state().whatif.as_ref().unwrap();
        w.result
            .as_ref()
            .unwrap()
            .iter()
            .map(|s| s.estimate.grid.clone())
            .collect()
    };
    assert!(grids.contains(&vec![2, 8]), "{grids:?}");
    assert!(!grids.contains(&vec![4, 4]), "{grids:?}");
    h.state_mut().whatif.as_mut().unwrap().grid = "3x3".into();
    h.state_mut().reestimate();
    h.step();
    h.get_by_label("Cannot estimate: grid 3x3 has 9 processes, not 16");
    click(&mut h, "Reset to the stored machine");
    h.step();
    assert_eq!(totals(&h), before);
    // The what-if machine recorded as refinements: stored, and the schemes re-estimated.
    h.state_mut().whatif.as_mut().unwrap().machine.processes = 16;
    h.state_mut().whatif.as_mut().unwrap().machine.tstart_us = 3.5;
    h.state_mut().reestimate();
    click(&mut h, "Record as refinements");
    settle(&mut h);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    let o: Vec<String> = database::Db::open(&p.db)
        .unwrap()
        .overrides()
        .unwrap()
        .iter()
        .map(|(_, o)| o.to_string())
        .collect();
    assert_eq!(
        o,
        vec![
            "machine parameter processes = 16".to_string(),
            "machine parameter tstart_us = 3.5".to_string()
        ]
    );
    let grids: Vec<u32> = h
        .state()
        .project
        .as_ref()
        .unwrap()
        .schemes
        .iter()
        .filter_map(|(_, s)| {
            s.machine["grid"]
                .as_array()
                .map(|g| g.iter().map(|x| x.as_u64().unwrap() as u32).product())
        })
        .collect();
    assert!(grids.contains(&16), "{grids:?}");
    // The what-if panel starts from the refined machine, and still changes it.
    assert_eq!(h.state().whatif.as_ref().unwrap().machine.processes, 16);
    let stored: Vec<f64> = {
        let p = h.state().project.as_ref().unwrap();
        p.schemes.iter().map(|(_, s)| s.total).collect()
    };
    assert_eq!(totals(&h), stored);
    h.state_mut().whatif.as_mut().unwrap().machine.processes = 4;
    h.state_mut().reestimate();
    assert_ne!(totals(&h), stored);
    // The window said what the refinements did (the schemes they made); dismissed, it goes.
    h.get_by_label("applied: machine parameter processes = 16");
    h.get_by_label_contains("the schemes are now");
    click(&mut h, "Dismiss effects");
    // Choose another scheme and generate its program.
    h.get_by_label_contains("replicated").click();
    h.step();
    click(&mut h, "Generate the program of this scheme");
    assert_eq!(h.state().tab, Tab::Program);
    h.step();
    h.get_by_label("Program of scheme replicated");
}

// --- 5. Program and Run ----------------------------------------------------------------------

#[test]
fn program_side_by_side_and_saved_to_a_chosen_file() {
    let (p, mut h) = open_jacobi();
    click(&mut h, "Program");
    let g = h.state().generated.as_ref().unwrap();
    assert!(!g.files[0].inserted.is_empty());
    let first = g.files[0].inserted[0] as usize;
    let directive = g.files[0].text.lines().nth(first - 1).unwrap().to_string();
    h.get_by_label_contains("directive lines inserted");
    h.get_by_label(&directive);
    let out = p.dir.path().join("out").join("mine.fdv");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    h.state_mut().save_path = out.display().to_string();
    click(&mut h, "Save");
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    let saved = std::fs::read_to_string(&out).unwrap();
    assert!(saved.contains(&directive));
    h.step();
    h.get_by_label(&format!("saved {}", out.display()));
    // Recorded as an artifact of the scheme.
    let db = database::Db::open(&p.db).unwrap();
    let sid = h.state().generated.as_ref().unwrap().scheme_id.unwrap();
    let arts = db.artifacts(sid).unwrap();
    assert!(arts.iter().any(|(_, a)| a.text == saved));
    // Saving over the original program is refused.
    h.state_mut().save_path = p.src.display().to_string();
    click(&mut h, "Save");
    assert!(h
        .state()
        .error
        .as_deref()
        .unwrap()
        .contains("original program"));
}

#[test]
fn run_failure_of_sapfor_run_is_shown_as_an_error() {
    let (p, mut h) = open_jacobi();
    h.state_mut().sapfor_exe = PathBuf::from(env!("CARGO_BIN_EXE_sapfor"));
    // Not saved yet: said in the window, nothing started.
    let missing = p.dir.path().join("nothing.fdv");
    h.state_mut().run_file = missing.display().to_string();
    click(&mut h, "Run");
    click(&mut h, "Run program");
    assert!(h.state().run.is_none());
    h.get_by_label_contains("does not exist: save the generated program first");
    // A program that is not Fortran: today `sapfor run` does not exist yet (another branch)
    // and fails as an unknown subcommand; once it exists the program fails to build. Either
    // way the failure must show in the window.
    let bad = p.dir.path().join("bad.fdv");
    std::fs::write(&bad, "this is not Fortran\n").unwrap();
    h.state_mut().run_file = bad.display().to_string();
    click(&mut h, "Run program");
    settle(&mut h);
    let run = h.state().run.as_ref().unwrap();
    let (ok, msg) = run.outcome().unwrap();
    assert!(!ok, "{msg}");
    assert!(msg.starts_with("run failed"), "{msg}");
    h.get_by_label_contains("run failed");
    // The summary quotes the error line, not the usage hint after it.
    assert!(msg.contains(": error"), "{msg}");
    h.get_by_label_contains("--np 2 --threads 1");
}

#[test]
fn run_streams_output_and_charts_the_profile() {
    let (p, mut h) = open_jacobi();
    h.state_mut().sapfor_exe = fake_sapfor(&p, "#!/bin/sh\necho \"args: $*\"\necho ' IT =    1   EPS =  0.5'\necho 'warning on stderr' >&2\n\
         echo 'SAPFOR-PROFILE {\"wall_seconds\": 2.5, \"loops\": [{\"file\": \"jac.f\", \"line\": 18, \"seconds\": 1.5}], \"communication\": [{\"kind\": \"shadow\", \"seconds\": 0.25}]}'\n");
    let fdv = p.dir.path().join("x.fdv");
    std::fs::write(&fdv, "      END\n").unwrap();
    h.state_mut().run_file = fdv.display().to_string();
    h.state_mut().np = 4;
    h.state_mut().threads = 2;
    h.state_mut().profile = true;
    click(&mut h, "Run");
    click(&mut h, "Run program");
    settle(&mut h);
    h.get_by_label(&format!(
        "args: run {} --np 4 --threads 2 --profile",
        fdv.display()
    ));
    h.get_by_label(" IT =    1   EPS =  0.5");
    h.get_by_label("warning on stderr");
    h.get_by_label("the program finished (exit status 0)");
    h.get_by_label("Profile: 2.500 s wall");
    h.get_by_label("jac.f:18");
    h.get_by_label("shadow");
    h.get_by_label("1.500000");
    // regions on the emulated accelerator, compared with the host
    h.state_mut().devices = "emu".into();
    h.state_mut().compare = true;
    h.state_mut().profile = false;
    click(&mut h, "Run program");
    settle(&mut h);
    h.get_by_label(&format!("args: run {} --np 4 --threads 2 --devices emu --compare", fdv.display()));
}

#[test]
fn a_profiled_run_of_the_saved_program_is_recorded() {
    let (p, mut h) = open_jacobi();
    h.state_mut().sapfor_exe = fake_sapfor(&p, "#!/bin/sh\necho 'SAPFOR-PROFILE {\"wall_seconds\": 2.5, \"loops\": [{\"file\": \"jac.f\", \"line\": 18, \"seconds\": 1.5}], \"communication\": []}'\n");
    let out = p.dir.path().join("jac.fdv");
    h.state_mut().save_path = out.display().to_string();
    click(&mut h, "Program");
    click(&mut h, "Save");
    assert_eq!(h.state().run_file, out.display().to_string());
    let artifact = h.state().saved.as_ref().unwrap().1;
    h.state_mut().profile = true;
    click(&mut h, "Run");
    click(&mut h, "Run program");
    settle(&mut h);
    h.get_by_label_contains("recorded in the database");
    let runs = database::Db::open(&p.db).unwrap().runs(artifact).unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].1.wall_seconds, 2.5);
    assert_eq!(runs[0].1.processes, 2);
    assert_eq!(runs[0].1.loops[0]["line"], 18);
}

#[test]
fn run_output_arrives_while_the_program_runs() {
    let (p, mut h) = open_jacobi();
    h.state_mut().sapfor_exe = fake_sapfor(
        &p,
        "#!/bin/sh\necho first line\nsleep 3\necho second line\n",
    );
    h.state_mut().run_file = p.src.display().to_string();
    click(&mut h, "Run");
    click(&mut h, "Run program");
    let t = std::time::Instant::now();
    while h.query_by_label("first line").is_none() {
        assert!(t.elapsed() < std::time::Duration::from_secs(20));
        std::thread::sleep(std::time::Duration::from_millis(20));
        h.step();
    }
    // Still running: the first line was shown before the program ended.
    assert!(h.state().run.as_ref().unwrap().end().is_none());
    h.get_by_label("Running…");
    assert!(h.query_by_label("second line").is_none());
    settle(&mut h);
    h.get_by_label("second line");
    h.get_by_label("the program finished (exit status 0)");
}

#[test]
fn run_of_a_missing_program_is_an_error_not_a_crash() {
    let (p, mut h) = open_jacobi();
    h.state_mut().sapfor_exe = PathBuf::from("/nonexistent/sapfor");
    h.state_mut().run_file = p.src.display().to_string();
    click(&mut h, "Run");
    click(&mut h, "Run program");
    settle(&mut h);
    h.get_by_label_contains("run failed: cannot start /nonexistent/sapfor");
}

// --- 6. Errors -------------------------------------------------------------------------------

#[test]
fn a_file_that_is_not_a_database_is_shown_as_an_error() {
    let p = jacobi();
    std::fs::write(&p.db, "this is not SQLite").unwrap();
    let h = open(&p, vec![]);
    assert!(h.state().project.is_none());
    h.get_by_label_contains("is not a SQLite database");
    h.get_by_label("No project loaded (see the error below).");
}

#[test]
fn a_database_in_a_missing_directory_is_an_error_in_the_window() {
    let p = jacobi();
    let missing = Project {
        db: p.dir.path().join("no/such/dir/sapfor.db"),
        ..p
    };
    let h = open(&missing, vec![]);
    assert!(h.state().project.is_none());
    h.get_by_label_contains("does not exist");
}

#[test]
fn an_empty_database_says_how_to_fill_it() {
    let p = jacobi();
    let h = open(&p, vec![]);
    h.get_by_label_contains("holds no analysis");
}

#[test]
fn analysis_diagnostics_are_shown_in_the_window() {
    let p = jacobi();
    let bad = p.dir.path().join("bad.f90");
    std::fs::write(
        &bad,
        "program p\n  do i = 1, 10\n    x = (\n  end do\nend program\n",
    )
    .unwrap();
    let h = open(&p, vec![bad]);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    h.get_by_label_contains("errors in the program");
    h.get_by_label_contains("error[E0002]");
}

#[test]
fn the_schemes_keep_the_target_of_sapfor_auto() {
    // Default (like `sapfor --auto`): DVMH schemes, whose programs have regions.
    let (_p, h) = open_jacobi();
    let app = h.state();
    let p = app.project.as_ref().unwrap();
    assert_eq!(p.target, shell_gui::auto::Target::Dvmh);
    assert!(p.schemes.iter().all(|(_, s)| s.expert == "dvmh"));
    let text = &app.generated.as_ref().unwrap().files[0].text;
    assert!(text.contains("REGION"), "{text}");
    // The what-if panel has the accelerator's parameters: without a GPU every region stays
    // on the host.
    let mut h = h;
    click(&mut h, "Schemes");
    h.get_by_label("GPUs per node");
    assert!(!h
        .get_all_by_label_contains("on the accelerator")
        .collect::<Vec<_>>()
        .is_empty());
    h.state_mut().whatif.as_mut().unwrap().machine.gpus_per_node = 0;
    h.state_mut().reestimate();
    let w = h.state().whatif.as_ref().unwrap().result.as_ref().unwrap();
    assert!(
        w.iter()
            .all(|s| s.regions.iter().all(|r| !r.estimate.on_device)),
        "{:?}",
        w[0].regions
    );
    // `sapfor --auto --target dvm`: the window and its what-if stay with DVM schemes.
    let p = jacobi();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sapfor"))
        .args(["--auto", "--target", "dvm", "--db"])
        .arg(&p.db)
        .arg("--out-dir")
        .arg(p.dir.path().join("out"))
        .arg(&p.src)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let h = open(&p, vec![]);
    let app = h.state();
    assert_eq!(
        app.project.as_ref().unwrap().target,
        shell_gui::auto::Target::Dvm
    );
    let w = app.whatif.as_ref().unwrap().result.as_ref().unwrap();
    assert!(w.iter().all(|s| s.expert == "dvm"));
    let text = &app.generated.as_ref().unwrap().files[0].text;
    assert!(!text.contains("REGION"), "{text}");
    // ... and its what-if panel has no accelerator parameters.
    let mut h = h;
    click(&mut h, "Schemes");
    h.get_by_label("Tstart, us");
    assert!(h.query_by_label("GPUs per node").is_none());
    assert!(h.query_by_label("Accelerator speed-up").is_none());
}

#[test]
fn what_if_values_survive_a_refinement_elsewhere() {
    let (_p, mut h) = open_jacobi();
    click(&mut h, "Schemes");
    h.state_mut().whatif.as_mut().unwrap().machine.processes = 7;
    h.state_mut().whatif.as_mut().unwrap().grid = "7".into();
    h.state_mut().reestimate();
    click(&mut h, "Source");
    click(&mut h, "P   18");
    click(&mut h, "Assert sequential");
    settle(&mut h);
    assert_eq!(verdict(&h, 18), "sequential");
    let w = h.state().whatif.as_ref().unwrap();
    assert_eq!(w.machine.processes, 7);
    assert_eq!(w.grid, "7");
    // estimated for them, not for the stored machine
    assert!(w.result.as_ref().unwrap().iter().any(|s| s.estimate.grid == vec![7]), "{:?}", w.result);
    // Reset goes back to the stored machine.
    click(&mut h, "Schemes");
    click(&mut h, "Reset to the stored machine");
    assert_ne!(h.state().whatif.as_ref().unwrap().machine.processes, 7);
}

#[test]
fn search_on_the_source_loops_and_program_pages() {
    let (p, files) = common::big_project(3);
    let mut h = open(&p, files);
    // Loops: a file filter and a text search (a variable the loop uses, its file or unit).
    click(&mut h, "Loops");
    let total = h.state().project.as_ref().unwrap().loops.len();
    h.state_mut().filter.file = "sub02.f".into();
    h.step();
    let shown = |h: &Harness<'static, App>| {
        let app = h.state();
        shell_gui::gui::views::visible_loops(app, app.project.as_ref().unwrap())
    };
    let n = shown(&h).len();
    assert!(n > 5 && n < total, "{n} of {total}");
    h.get_by_label(&format!("{n} of {total} loops"));
    assert!(shown(&h).iter().all(|&i| h.state().project.as_ref().unwrap().loops[i].file == "sub02.f"));
    h.state_mut().filter.file.clear();
    // T: the loops that assign it (label 60 of both subroutines, label 90 of SUB01)
    h.state_mut().filter.text = "t".into();
    h.step();
    let lines: Vec<(String, u32)> = shown(&h)
        .iter()
        .map(|&i| {
            let l = &h.state().project.as_ref().unwrap().loops[i];
            (l.file.clone(), l.line)
        })
        .collect();
    assert_eq!(
        lines,
        [
            ("sub01.f".to_string(), common::line_of(&p, "sub01.f", "DO 60 I")),
            ("sub01.f".to_string(), common::line_of(&p, "sub01.f", "DO 90 I")),
            ("sub02.f".to_string(), common::line_of(&p, "sub02.f", "DO 60 I")),
        ]
    );
    h.state_mut().filter.text = "SUB02".into();
    h.step();
    assert_eq!(shown(&h).len(), n);
    h.state_mut().filter.text.clear();
    // Source: find goes to the file and line, Next to the following line, round the end.
    click(&mut h, "Source");
    h.get_by_label("Find:").click();
    h.get_by_label("Find:").type_text("do 80");
    h.step();
    h.step();
    let sub01 = h.state().project.as_ref().unwrap().files.iter().position(|f| f.name == "sub01.f").unwrap();
    assert_eq!(h.state().file, sub01);
    assert_eq!(h.state().find.at(), Some((sub01, common::line_of(&p, "sub01.f", "DO 80 J"))));
    h.get_by_label("1 of 2 lines");
    click(&mut h, "Next");
    assert_eq!(h.state().find.at(), Some((sub01, common::line_of(&p, "sub01.f", "DO 80 I"))));
    h.get_by_label("2 of 2 lines");
    click(&mut h, "Next");
    h.get_by_label("1 of 2 lines");
    // Program: one generated file at a time, picked in a list; find over all of them.
    click(&mut h, "Program");
    assert_eq!(h.get_all_by_label_contains(".f (+").count(), 3);
    let sub02 = format!(
        "sub02.f (+{})",
        h.state().generated.as_ref().unwrap().files[2].inserted.len()
    );
    click(&mut h, &sub02);
    assert_eq!(h.state().program_file, 2);
    h.get_by_label("sub02.f  |  generated");
    assert!(h.query_by_label("sub01.f  |  generated").is_none());
    h.state_mut().find_program.text = "SUBROUTINE SUB01".into();
    h.step();
    h.step();
    assert_eq!(h.state().program_file, 1);
    h.get_by_label("sub01.f  |  generated");
}

#[test]
fn reopening_a_database_shows_the_stored_analysis() {
    let p = jacobi();
    let first = open(&p, vec![p.src.clone()]);
    let id = first.state().project.as_ref().unwrap().analysis_id;
    drop(first);
    // No files: the stored analysis and schemes of the database, not a copy.
    let h = open(&p, vec![]);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    assert_eq!(h.state().project.as_ref().unwrap().analysis_id, id);
    h.get_by_label("S   16");
    assert_eq!(h.state().project.as_ref().unwrap().schemes.len(), 4);
}

// --- A real-sized project (issue 19) ----------------------------------------------------------

#[test]
fn a_big_loop_groups_its_dependences_and_keeps_the_form_in_reach() {
    let (p, files) = common::big_project(21);
    let mut h = open(&p, files);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    let (nfiles, nloops) = {
        let pr = h.state().project.as_ref().unwrap();
        (pr.files.len(), pr.loops.len())
    };
    assert!(nfiles >= 21 && nloops >= 200, "{nfiles} files, {nloops} loops");
    let big = h
        .state()
        .loop_at("sub01.f", common::line_of(&p, "sub01.f", "DO 80 J"))
        .expect("the big loop of sub01.f");
    h.state_mut().show_loop(big);
    h.step();
    h.step();
    let deps = h.state().project.as_ref().unwrap().loops[big].deps.clone();
    assert!(deps.len() > 40, "{} dependences", deps.len());
    h.get_by_label(&format!("Dependences ({})", deps.len()));
    // One closed group per array and kind, with its count: no row is drawn until one opens.
    let groups = shell_gui::gui::model::dep_groups(&deps);
    assert!(groups.len() < deps.len() / 4, "{groups:?}");
    assert_eq!(groups.iter().map(|g| g.members.len()).sum::<usize>(), deps.len());
    let first = &groups[0];
    let title = first.title();
    let row = deps[first.members[0]].label();
    assert!(h.query_by_label(&row).is_none());
    // The refinement form sits above the dependences, whatever their number.
    let form = h.get_by_label("Private").rect().top();
    let list = h.get_by_label(&format!("Dependences ({})", deps.len())).rect().top();
    assert!(form < list, "form at {form}, dependences at {list}");
    click(&mut h, &title);
    click(&mut h, &row);
    assert_eq!(h.state().selected_dep, Some(first.members[0]));
    assert_eq!(h.get_by_label("Private").rect().top(), form);
}

#[test]
fn several_private_variables_in_one_refinement_and_its_effect() {
    let (p, files) = common::big_project(3);
    let mut h = open(&p, files);
    let i = h
        .state()
        .loop_at("sub01.f", common::line_of(&p, "sub01.f", "DO 90 I"))
        .expect("the loop of T and U");
    assert_eq!(h.state().project.as_ref().unwrap().loops[i].verdict, "sequential");
    h.state_mut().show_loop(i);
    h.step();
    h.state_mut().form.var = "T, u".into();
    click(&mut h, "Private");
    settle(&mut h);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    // Both recorded by one change, one re-run: the loop is parallel now, and the window says so.
    let o = database::Db::open(&p.db).unwrap().overrides().unwrap();
    assert_eq!(o.len(), 2, "{o:?}");
    let l = &h.state().project.as_ref().unwrap().loops[i];
    assert_eq!(l.verdict, "parallel", "{l:?}");
    let effects = h.state().effects.clone();
    assert_eq!(effects.len(), 2, "{effects:?}");
    assert!(effects.iter().all(|e| e.refused.is_none()), "{effects:?}");
    h.get_by_label_contains("applied: T is private in the loop at");
    h.get_by_label_contains("applied: U is private in the loop at");
    h.get_by_label_contains("verdict: sequential -> parallel");
}

#[test]
fn every_refinement_says_whether_it_took_effect() {
    let (p, mut h) = open_jacobi();
    // A variable the loop does not assign: not applied, with the reason, and not kept.
    click(&mut h, "P   18");
    h.state_mut().form.var = "zz".into();
    click(&mut h, "Private");
    settle(&mut h);
    h.get_by_label_contains("NOT applied, not kept: ZZ is private in the loop at");
    h.get_by_label_contains("ZZ is not assigned in the loop");
    assert!(database::Db::open(&p.db).unwrap().overrides().unwrap().is_empty());
    // An assertion that changes the loop: applied, and what changed.
    click(&mut h, "Assert sequential");
    settle(&mut h);
    h.get_by_label_contains("applied: loop at jac.f:18 is sequential");
    h.get_by_label_contains("verdict: parallel -> sequential");
    assert_eq!(database::Db::open(&p.db).unwrap().overrides().unwrap().len(), 1);
    // One that changes nothing says so.
    click(&mut h, "S   16");
    h.state_mut().form.var = "eps".into();
    click(&mut h, "Private");
    settle(&mut h);
    h.get_by_label_contains("changed nothing (the analysis had found this already)");
    // A distribution the experts cannot honour (B is not the template): the reason.
    h.state_mut().form.array = "b".into();
    h.state_mut().form.formats = "(BLOCK,*)".into();
    click(&mut h, "Distribute");
    settle(&mut h);
    h.get_by_label_contains("NOT applied, not kept: distribute B as (BLOCK,*)");
    let o = database::Db::open(&p.db).unwrap().overrides().unwrap();
    assert!(o.iter().all(|(_, o)| o.kind() != "distribute"), "{o:?}");
    // Dismissed, the effects go.
    click(&mut h, "Dismiss effects");
    assert!(h.state().effects.is_empty());
}

#[test]
fn the_project_program_runs_with_its_c_files_and_its_profile_reads_by_source_lines() {
    let (p, mut files) = common::big_project(3);
    let c = p.dir.path().join("tick.c");
    std::fs::write(&c, "double tick(void) { return 0.0; }\n").unwrap();
    std::fs::create_dir(p.dir.path().join("inc")).unwrap();
    files.push(c.clone());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sapfor"))
        .current_dir(p.dir.path())
        .args(["analyze", "-I", "inc"])
        .args(&files)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut h = open(&p, vec![]);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    // Save the program of the chosen scheme: one file per Fortran file, into a directory.
    let par = p.dir.path().join("par");
    std::fs::create_dir(&par).unwrap();
    h.state_mut().save_path = par.display().to_string();
    click(&mut h, "Program");
    click(&mut h, "Save");
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    let program = shell_gui::gui::runner::split_files(&h.state().run_file);
    let names: Vec<String> = program
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["big.fdv", "sub01.fdv", "sub02.fdv", "tick.c"], "{program:?}");
    // The runtime names loops by lines of the program it ran: the window by source lines.
    let fdv = std::fs::read_to_string(par.join("sub01.fdv")).unwrap();
    let run_line = fdv.lines().position(|l| l.contains("DO 50 J")).unwrap() + 1;
    let src_line = common::line_of(&p, "sub01.f", "DO 50 J");
    assert_ne!(run_line as u32, src_line, "directives were inserted above the loop");
    h.state_mut().sapfor_exe = fake_sapfor(
        &p,
        &format!(
            "#!/bin/sh\necho \"args: $*\"\necho \"cwd: $(pwd)\"\necho 'SAPFOR-PROFILE {{\"wall_seconds\": 2.5, \"loops\": [{{\"file\": \"sub01.fdv\", \"line\": {run_line}, \"seconds\": 1.5}}], \"communication\": []}}'\n"
        ),
    );
    h.state_mut().profile = true;
    click(&mut h, "Run");
    click(&mut h, "Run program");
    settle(&mut h);
    let args = format!(
        "args: run {} -I {} --np 2 --threads 1 --profile",
        program.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(" "),
        p.dir.path().join("inc").display()
    );
    h.get_by_label(&args);
    h.get_by_label(&format!("cwd: {}", par.display()));
    assert!(h.query_by_label_contains("SAPFOR-PROFILE").is_none());
    h.get_by_label(&format!("sub01.f:{src_line}"));
    // next to the estimate of that nest in the scheme picked on the Schemes page
    let est = {
        let app = h.state();
        let w = app.whatif.as_ref().unwrap();
        let s = &w.result.as_ref().unwrap()[w.selected];
        let pr = app.project.as_ref().unwrap();
        let t = shell_gui::gui::model::nest_times(s, &|f| pr.file_name(f));
        shell_gui::gui::model::nest_time(&t, "sub01.f", src_line).expect("an estimate of the nest")
    };
    h.get_by_label(&format!("{est:.6}"));
    h.get_by_label("Total");
    // Recorded by source lines: stored runs match the loops.
    h.get_by_label_contains("recorded in the database");
    let artifact = h.state().saved.as_ref().unwrap().1;
    let runs = database::Db::open(&p.db).unwrap().runs(artifact).unwrap();
    assert_eq!(runs[0].1.loops[0]["file"], "sub01.f");
    assert_eq!(runs[0].1.loops[0]["line"], src_line);
}

#[test]
fn a_replicated_scheme_still_gives_each_nest_its_share() {
    let (_p, h) = open_jacobi();
    let app = h.state();
    let w = app.whatif.as_ref().unwrap();
    let s = w
        .result
        .as_ref()
        .unwrap()
        .iter()
        .find(|s| s.name == "replicated")
        .unwrap();
    let pr = app.project.as_ref().unwrap();
    let t = shell_gui::gui::model::nest_times(s, &|f| pr.file_name(f));
    // the three nests of jac.f (5, 18, 24), by file and line, summing to the computation
    let keys: Vec<(String, u32)> = t.keys().cloned().collect();
    assert_eq!(
        keys,
        [("jac.f".to_string(), 5), ("jac.f".to_string(), 18), ("jac.f".to_string(), 24)]
    );
    assert!(t.values().all(|v| *v > 0.0), "{t:?}");
    // on the host (the DVM expert's scheme) the nests make up the whole computation
    let dvm = experts::dvm::run(&pr.analysis, &w.machine);
    let r = dvm.schemes.iter().find(|s| s.name == "replicated").unwrap();
    let t = shell_gui::gui::model::nest_times(r, &|f| pr.file_name(f));
    let sum: f64 = t.values().sum();
    assert!(
        (sum - r.estimate.computation).abs() < 1e-9 * sum.max(1.0),
        "{sum} vs {}",
        r.estimate.computation
    );
}

/// A loop parallel only under run-time tests shows them next to its blockers.
#[test]
fn a_loop_parallel_under_run_time_tests_shows_the_tests() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("versioned_grid.f");
    std::fs::copy(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../analyzer/test_data/versioned_grid.f"), &src).unwrap();
    let p = common::Project { db: dir.path().join("sapfor.db"), src: src.clone(), dir };
    let mut h = open(&p, vec![src]);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    click(&mut h, "S   35");
    h.get_by_label("Loop J at versioned_grid.f:35");
    h.get_by_label("Parallel when: N .GE. 3 (private T) (tested where the loop starts)");
}

/// A loop parallel once a recurrence is computed ahead says so next to its blockers.
#[test]
fn a_loop_parallel_once_its_recurrence_is_computed_ahead_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("versioned_recurrence.f");
    std::fs::copy(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../analyzer/test_data/versioned_recurrence.f"), &src).unwrap();
    let p = common::Project { db: dir.path().join("sapfor.db"), src: src.clone(), dir };
    let mut h = open(&p, vec![src]);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    click(&mut h, "S   19");
    h.get_by_label("Loop J at versioned_recurrence.f:19");
    h.get_by_label("Parallel once X0 is computed ahead (private X1,X0)");
}
