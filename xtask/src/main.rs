fn main() {
    let v = acp_schema_source::load(&Default::default()).unwrap();
    print!("{}", v.to_pretty_json());
    eprintln!("{:?}", v.gates.skipped);
}
