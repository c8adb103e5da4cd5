//! Whatever the scheme holds, `generate` answers with an error or with text that keeps every
//! original line, reads back without directive errors and keeps within the column limits.

use analyzer::directives;
use analyzer::program::{load, Options};
use experts::scheme::*;
use generator::{generate, strip_dvm};
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use std::path::PathBuf;

fn files() -> Vec<PathBuf> {
    let m = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    vec![
        m.join("../samples/jacobi/jac.f"),
        m.join("tests/data/jac2d.f90"),
    ]
}

fn name_s() -> impl Strategy<Value = String> {
    prop_oneof![
        12 => prop::sample::select(vec!["a", "B", "eps", "i", "j", "x_1", "c"]).prop_map(String::from),
        1 => bad_name_s(),
    ]
}

fn bad_name_s() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "1bad",
        "",
        "a b",
        "q(1)",
        "a_rather_long_array_name_that_makes_every_directive_wrap_0123456789",
    ])
    .prop_map(String::from)
}

fn unit_s(unit: &'static str) -> impl Strategy<Value = String> {
    prop_oneof![
        12 => Just(unit.to_string()),
        1 => prop::sample::select(vec!["JAC", "jac", "jac2d", "nope", ""]).prop_map(String::from),
    ]
}

/// Lines of DO statements (mostly) or any line.
fn line_s(do_lines: &'static [u32]) -> impl Strategy<Value = u32> {
    prop_oneof![4 => prop::sample::select(do_lines.to_vec()), 1 => 0u32..50]
}

fn ref_s() -> impl Strategy<Value = ArrayRef> {
    (
        name_s(),
        vec(
            prop_oneof![
                (name_s(), -3i64..4).prop_map(|(var, offset)| RefSub::Var { var, offset }),
                prop_oneof![1 => Just(i64::MIN), 20 => -5i64..5].prop_map(RefSub::Const),
                Just(RefSub::All),
            ],
            0..3,
        ),
    )
        .prop_map(|(array, subs)| ArrayRef { array, subs })
}

fn widths_s() -> impl Strategy<Value = ArrayWidths> {
    (name_s(), vec((0u32..3, 0u32..3), 0..3), any::<bool>()).prop_map(|(array, widths, corner)| {
        ArrayWidths {
            array,
            widths,
            corner,
        }
    })
}

fn red_s() -> impl Strategy<Value = ReductionSpec> {
    let valid = (
        prop::sample::select(vec!["sum", "MAX", "min", "maxloc", "and", "product"]),
        name_s(),
    )
        .prop_map(|(op, var)| ReductionSpec {
            op: op.into(),
            var,
            loc: if op == "maxloc" {
                vec!["k".into(), "2".into()]
            } else {
                vec![]
            },
        });
    let any = (
        prop::sample::select(vec!["sum", "maxloc", "avg"]),
        name_s(),
        vec(prop::sample::select(vec!["k", "2", "-1", "bad name"]), 0..2),
    )
        .prop_map(|(op, var, loc)| ReductionSpec {
            op: op.into(),
            var,
            loc: loc.into_iter().map(String::from).collect(),
        });
    prop_oneof![10 => valid, 1 => any]
}

fn scheme_s(
    file: String,
    unit: &'static str,
    do_lines: &'static [u32],
) -> impl Strategy<Value = Scheme> {
    let f1 = file.clone();
    let at = move || {
        (
            unit_s(unit),
            prop::sample::select(vec![0u8, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
        )
            .prop_map({
                let f = f1.clone();
                move |(unit, bad)| UnitRef {
                    file: if bad == 1 {
                        "other.f".into()
                    } else {
                        f.clone()
                    },
                    unit,
                }
            })
    };
    let dists = vec(
        (
            at(),
            name_s(),
            vec(prop_oneof![Just(Format::Block), Just(Format::Star)], 1..3),
        )
            .prop_map(|(at, array, formats)| Distribution { at, array, formats }),
        0..2,
    );
    let aligns = vec(
        (
            at(),
            name_s(),
            prop_oneof![
                8 => Just(vec!["i", "j"]),
                1 => vec(prop::sample::select(vec!["i", "j", "*", "1x"]), 0..3),
            ],
            name_s(),
            vec(
                prop_oneof![
                    6 => (0usize..2, -3i64..4, -2i64..3).prop_map(|(dummy, coeff, offset)| {
                        AlignSub::Linear {
                            dummy,
                            coeff,
                            offset,
                        }
                    }),
                    1 => (-3i64..4).prop_map(AlignSub::Const),
                    1 => Just(AlignSub::Star),
                    1 => Just(AlignSub::Linear { dummy: 5, coeff: 1, offset: 0 }),
                ],
                1..3,
            ),
        )
            .prop_map(|(at, array, source, target, subs)| Alignment {
                at,
                array,
                source: source.into_iter().map(String::from).collect(),
                target,
                subs,
            }),
        0..2,
    );
    let shadows =
        vec(
            (at(), name_s(), vec((0u32..3, 0u32..3), 0..3))
                .prop_map(|(at, array, widths)| Shadow { at, array, widths }),
            0..2,
        );
    let loops = vec(
        (
            at(),
            line_s(do_lines),
            vec(name_s(), 1..3),
            option::of(ref_s()),
            vec(name_s(), 0..2),
            vec(red_s(), 0..3),
            vec(widths_s(), 0..3),
            vec(widths_s(), 0..2),
            vec(ref_s(), 0..2),
        )
            .prop_map(
                |(at, line, vars, on, private, reductions, shadow_renew, across, remote_access)| {
                    ParallelLoop {
                        at,
                        line,
                        vars,
                        on,
                        private,
                        copy_in: vec![],
                        reductions,
                        shadow_renew,
                        across,
                        remote_access,
                        shadow_compute: None,
                        asserted: vec![],
                        assertions: vec![],
                        when: vec![],
                        split: None,
                        end_line: 0,
                        part: vec![],
                    }
                },
            ),
        0..3,
    );
    let remote =
        vec(
            (at(), line_s(do_lines), vec(ref_s(), 1..3))
                .prop_map(|(at, line, refs)| RemoteAccess { at, line, refs, times: 1, cached: false }),
            0..2,
        );
    let inherits = vec((at(), name_s()).prop_map(|(at, array)| Inherit { at, array }), 0..2);
    // templates with any bounds (a lower above the upper is refused, never a panic)
    let templates = vec((at(), name_s(), vec((-3i64..20, -3i64..20), 0..3)).prop_map(|(at, name, bounds)| Template { at, name, bounds }), 0..2);
    (dists, aligns, shadows, loops, remote, inherits, templates).prop_map(
        |(distributions, alignments, shadows, loops, remote, inherits, templates)| Scheme {
            expert: "fuzz".into(),
            name: "fuzz".into(),
            templates,
            distributions,
            alignments,
            inherits,
            owned: vec![],
            shadows,
            loops,
            remote,
            estimate: Estimate::default(),
            notes: vec![],
            regions: vec![],
            actualizations: vec![],
        },
    )
}

fn check(k: usize, s: &Scheme) -> Result<(), TestCaseError> {
    let path = &files()[k];
    let prog = load(std::slice::from_ref(path), &Options::default());
    let fixed = k == 0;
    let input = std::fs::read_to_string(path).unwrap();
    match generate(&prog, s) {
        Err(e) => {
            // Errors name a file.
            let msg = e.to_string();
            prop_assert!(msg.contains(".f") || msg.contains("other.f"), "{msg}");
        }
        Ok(out) => {
            if std::env::var_os("FUZZ_STATS").is_some() {
                eprintln!("OKCASE {}", out[0].inserted.len());
            }
            prop_assert_eq!(out.len(), 1);
            let g = &out[0];
            prop_assert_eq!(&strip_dvm(&g.text, fixed).0, &input);
            let lines: Vec<&str> = g.text.lines().collect();
            for r in directives::scan(&lines, fixed) {
                prop_assert!(r.is_ok(), "{:?}\n{}", r, g.text);
            }
            let limit = if fixed { 72 } else { 132 };
            for &l in &g.inserted {
                prop_assert!(lines[l as usize - 1].chars().count() <= limit);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn fixed_form_any_scheme(s in scheme_s(files()[0].display().to_string(), "jac", &[5, 6, 16, 18, 19, 24, 25])) {
        check(0, &s)?;
    }

    #[test]
    fn free_form_any_scheme(s in scheme_s(files()[1].display().to_string(), "jac2d", &[10, 11, 21, 26, 27, 32, 33])) {
        check(1, &s)?;
    }
}
