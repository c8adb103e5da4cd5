pub fn probe(src: &str) -> String {
    let mut p = tree_sitter::Parser::new();
    p.set_language(&tree_sitter_fortran::LANGUAGE.into()).unwrap();
    let t = p.parse(src, None).unwrap();
    t.root_node().to_sexp()
}
