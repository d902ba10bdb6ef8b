//! Our clients and agents on one protocol version, one pair per language:
//! its schema's bindings generated under `target/interop/` (`bindings/`,
//! `bindings-v2/`), then every registered language's pair
//! ([`crate::registry::LANGUAGES`]) built on them by the builder its
//! registration names ([`super::our_programs`]).

use std::path::Path;

use anyhow::Result;

use acp_generate::emit::PackageNames;

use super::our_programs::Inputs;
use super::program::{Program, Protocol, Setup};
use crate::registry::LANGUAGES;

/// Our clients, agents and full-surface agents on one protocol version,
/// one of each per language, in [`crate::registry::LANGUAGES`] order.
pub struct Ours {
    pub clients: Vec<Program>,
    pub agents: Vec<Program>,
    pub full_agents: Vec<Program>,
}

/// Generates the bindings of `protocol`, builds our programs on them and
/// returns them, `python` running the Python ones.
pub fn build(setup: &Setup, protocol: &Protocol, python: &Path) -> Result<Ours> {
    let bindings = setup.folder.join(protocol.named("bindings", '-'));
    let languages: Vec<String> = LANGUAGES.iter().map(|language| language.id().to_owned()).collect();
    crate::commands::generate::generate(
        &protocol.source(),
        &PackageNames::default(),
        &languages,
        false,
        false,
        &bindings,
    )?;
    let inputs = Inputs {
        setup,
        protocol,
        bindings,
        python,
    };
    let mut ours = Ours {
        clients: Vec::new(),
        agents: Vec::new(),
        full_agents: Vec::new(),
    };
    for language in LANGUAGES {
        let Some(interop) = language.interop else {
            language.skipping("interop programs", "the interop run");
            continue;
        };
        let programs = interop(&inputs)?;
        ours.clients.push(programs.client);
        ours.agents.push(programs.agent);
        ours.full_agents.push(programs.full_agent);
    }
    Ok(ours)
}
