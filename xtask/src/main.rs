fn main() {
    let path = std::env::args().nth(1);
    let options = acp_schema_source::SourceOptions {
        schema_file: path.map(Into::into),
        rfds: if std::env::args().nth(2).is_some() { acp_schema_source::RfdSelection::Nothing } else { Default::default() },
    };
    let schema = acp_schema_source::load(&options).unwrap_or_else(|e| panic!("{e}"));
    let ir = acp_codegen::lower::lower(&schema, acp_codegen::lower::Unsupported::FallBack).unwrap_or_else(|e| panic!("{e}"));
    print!("{}", acp_codegen::inspect::summarize(&ir));
}
