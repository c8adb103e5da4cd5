//! Print the CUDA C kernel of every PARALLEL nest of the given Fortran-DVMH files.
//! `cargo run -p runtime --example show_kernels -- prog.fdv ...`
fn main() {
    let paths: Vec<std::path::PathBuf> = std::env::args().skip(1).map(Into::into).collect();
    let p = analyzer::program::load(&paths, &Default::default());
    let mut ks = vec![];
    for (ui, line, nest, vars, clauses) in runtime::kernel::parallel_nests(&p) {
        let spec = runtime::kernel::NestSpec {
            program: &p,
            unit: ui,
            nest,
            vars,
            clauses,
            name: format!("sapfor_k_{}_{line}", p.units[ui].name),
            param_overrides: Default::default(),
        };
        match runtime::kernel::generate(&spec) {
            Ok(k) => ks.push(k),
            Err(e) => eprintln!("{e}"),
        }
    }
    let refs: Vec<&runtime::kernel::Kernel> = ks.iter().collect();
    print!("{}", runtime::kernel::program_source(&refs));
}
