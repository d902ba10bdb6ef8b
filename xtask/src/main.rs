fn main() {
    let path = std::env::args().nth(1);
    let options = acp_schema_source::SourceOptions {
        schema_file: path.filter(|p| p != "-").map(Into::into),
        rfds: if std::env::args().nth(2).is_some() { acp_schema_source::RfdSelection::Nothing } else { Default::default() },
    };
    let schema = acp_schema_source::load(&options).unwrap_or_else(|e| panic!("{e}"));
    let ir = acp_codegen::lower::lower(&schema, acp_codegen::lower::Unsupported::Fail).unwrap_or_else(|e| panic!("{e}"));
    let vectors = acp_codegen::vectors::generate(&ir);
    let report = acp_codegen::validate::check(&schema.document, &ir, &vectors);
    println!("types {} checked {} findings {}", report.types, report.checked, report.findings.len());
    for f in report.findings.iter().take(40) { println!("{} {} {}", f.type_name, f.vector, &f.message[..f.message.len().min(300)]); }
}
