//! Random mutants of the samples and the analyzer's fixtures (lines deleted, duplicated,
//! swapped; characters deleted; tokens inserted) through the whole pipeline a user's
//! `--auto` runs: the analysis, the DVM and DVMH experts, the generator with its actuality
//! check. No mutant may panic (issue 15: a rank mismatch found this way killed the expert).
//! A fixed seed in CI; `SAPFOR_MUTANTS=N SAPFOR_MUTANTS_SEED=S` runs more (`make fuzz`).

use std::path::{Path, PathBuf};

#[path = "support/scratch.rs"]
mod scratch;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const TOKENS: &[&str] = &[
    ")", "(", ",", "1", "0", "i", "j", "+", "*", "=", ":", "end do", "end if", "do i = 1, n", "if (i > 1) then",
    "a(i)", "a(i,j)", "call f(a)", "goto 10", "10 continue", "common /c/ k", "!$SPF PARALLEL", "!DVM$ PARALLEL (I)",
];

fn mutate(text: &str, r: &mut Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    for _ in 0..1 + r.below(3) {
        if lines.is_empty() {
            break;
        }
        let k = r.below(lines.len());
        match r.below(6) {
            0 => {
                lines.remove(k);
            }
            1 => {
                let l = lines[k].clone();
                lines.insert(k, l);
            }
            2 => {
                let m = r.below(lines.len());
                lines.swap(k, m);
            }
            3 => {
                let l = &mut lines[k];
                if !l.is_empty() {
                    let mut cs: Vec<char> = l.chars().collect();
                    cs.remove(r.below(cs.len()));
                    *l = cs.into_iter().collect();
                }
            }
            4 => {
                let l = &mut lines[k];
                let cs: Vec<char> = l.chars().collect();
                let at = r.below(cs.len() + 1);
                let tok = TOKENS[r.below(TOKENS.len())];
                *l = cs[..at].iter().collect::<String>() + tok + &cs[at..].iter().collect::<String>();
            }
            _ => {
                // a whole statement from elsewhere in the file
                let m = r.below(lines.len());
                let l = lines[m].clone();
                lines.insert(k, l);
            }
        }
    }
    lines.join("\n") + "\n"
}

fn sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    let mut v = vec![];
    for d in ["samples/jacobi", "samples/heat3d", "samples/legacy", "samples/reductions", "samples/gauss_seidel", "analyzer/test_data"] {
        for e in std::fs::read_dir(root.join(d)).unwrap().flatten() {
            let p = e.path();
            if matches!(p.extension().and_then(|x| x.to_str()), Some("f" | "f90")) {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

/// On a thread with a stack like the one `sapfor` gives its commands (deep nesting is
/// allowed), but smaller, so that unbounded recursion shows quickly.
#[test]
fn mutants_of_the_samples_never_panic_the_pipeline() {
    std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(run_mutants)
        .unwrap()
        .join()
        .unwrap();
}

fn run_mutants() {
    let count: usize = std::env::var("SAPFOR_MUTANTS").ok().and_then(|v| v.parse().ok()).unwrap_or(150);
    let seed: u64 = std::env::var("SAPFOR_MUTANTS_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(7);
    let srcs = sources();
    assert!(srcs.len() > 20, "{} sources", srcs.len());
    let dir = scratch::Scratch::new("mutants", "pipeline");
    let machine = experts::machine::MachineModel::default();
    let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let (mut with_errors, mut generated, mut refused) = (0, 0, 0);
    let mut panics = vec![];
    for k in 0..count {
        let src = &srcs[r.below(srcs.len())];
        let text = mutate(&std::fs::read_to_string(src).unwrap(), &mut r);
        let p = dir.join(format!("m{k}.{}", src.extension().unwrap().to_str().unwrap()));
        std::fs::write(&p, &text).unwrap();
        // the one being processed, should the process die
        std::fs::write(dir.join("current.txt"), format!("{}\n{text}", src.display())).unwrap();
        let opts = analyzer::program::Options {
            include_dirs: vec![src.parent().unwrap().to_path_buf()],
            ..Default::default()
        };
        let outcome = std::panic::catch_unwind(|| {
            let a = analyzer::report::analyze(std::slice::from_ref(&p), &opts);
            if a.program.has_errors() {
                return (true, 0, 0);
            }
            let (mut ok, mut no) = (0, 0);
            for target in [shell_gui::auto::Target::Dvmh, shell_gui::auto::Target::Dvm] {
                let res = shell_gui::auto::schemes_for(&a, &machine, target);
                match shell_gui::auto::generate_checked(&a, &res.schemes[res.chosen]) {
                    Ok(_) => ok += 1,
                    Err(e) => {
                        no += 1;
                        if std::env::var_os("SAPFOR_MUTANTS_SHOW").is_some() {
                            println!("refused: {}", e.to_string().lines().next().unwrap_or(""));
                        }
                    }
                }
            }
            (false, ok, no)
        });
        match outcome {
            Ok((true, _, _)) => with_errors += 1,
            Ok((false, ok, no)) => {
                generated += ok;
                refused += no;
            }
            Err(_) => {
                let keep = dir.join(format!("panic{k}.txt"));
                std::fs::write(&keep, &text).unwrap();
                panics.push(format!("mutant {k} of {} (seed {seed}): {}", src.display(), keep.display()));
            }
        }
    }
    println!("{count} mutants: {with_errors} with errors reported, {generated} programs generated, {refused} refused with a message");
    assert!(panics.is_empty(), "panics:\n{}", panics.join("\n"));
    assert!(generated > 0 && with_errors > 0, "the mutants should include valid and invalid programs");
}
