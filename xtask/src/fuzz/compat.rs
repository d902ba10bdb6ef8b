//! Jazzer.js's prebuilt libFuzzer addon on an older C library. The addon
//! `@jazzer.js/fuzzer` ships, inside its npm package, a Linux build that
//! asks for glibc 2.38 (`__isoc23_strtol`, `__isoc23_strtoul`) and GCC 13's
//! libstdc++ (`std::ios_base_library_init`), newer than Debian 12's; the
//! package holds no sources to build it again. When Node cannot load it
//! for that reason, [`prepare`] marks those symbol versions weak in the
//! addon (the ELF flag `VER_FLG_WEAK` of their `.gnu.version_r` entries: a
//! missing weak version does not stop the load) and builds
//! `tests/typescript/fuzz/glibc-compat.c`, which defines the three symbols
//! on the older libraries, into a library to preload. The addon is not
//! touched when it loads as it is.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};

use crate::support::tools::run_checked;

/// The versions the addon may ask for that an older system lacks.
const NEWER: [&str; 2] = ["GLIBC_2.38", "GLIBCXX_3.4.32"];

/// `VER_FLG_WEAK`: a version whose absence does not stop the load.
const WEAK: u16 = 0x2;

/// Makes the addon at `addon` loadable: nothing when it asks for none of
/// the newer versions, or when Node loads it as it is; else marks them weak
/// (once: an addon marked before stays so) and gives the library to
/// preload, built into `folder` from `source`.
pub fn prepare(addon: &Path, source: &Path, folder: &Path) -> Result<Option<PathBuf>> {
    let mut bytes = std::fs::read(addon).with_context(|| format!("reading {}", addon.display()))?;
    let mut asked = Vec::new();
    versions(&mut bytes, |name, flags| {
        if NEWER.contains(&name) {
            asked.push(*flags & WEAK != 0);
        }
    })
    .with_context(|| format!("reading the versions {} asks for", addon.display()))?;
    if asked.is_empty() {
        return Ok(None);
    }
    if asked.iter().all(|weak| !weak) {
        let Some(error) = load(addon, None)? else {
            return Ok(None);
        };
        if !NEWER.iter().any(|version| error.contains(version)) {
            bail!("node cannot load {}: {error}", addon.display());
        }
        versions(&mut bytes, |name, flags| {
            if NEWER.contains(&name) {
                *flags |= WEAK;
            }
        })?;
        std::fs::write(addon, &bytes).with_context(|| format!("writing {}", addon.display()))?;
    }
    let library = folder.join("glibc-compat.so");
    run_checked(
        Command::new("cc")
            .args(["-shared", "-fPIC", "-O2", "-o"])
            .arg(&library)
            .arg(source),
        &format!("cc {}", source.display()),
    )?;
    if let Some(error) = load(addon, Some(&library))? {
        bail!(
            "node cannot load {} even with {}: {error}",
            addon.display(),
            library.display()
        );
    }
    eprintln!(
        "fuzz: {} asks for a newer C library than this one: its {} are marked weak, and {} is preloaded",
        addon.display(),
        NEWER.join(" and "),
        library.display()
    );
    Ok(Some(library))
}

/// Node's error loading the addon (with `preload` preloaded), none when it
/// loads: a version it asks for and the system lacks stops the load.
fn load(addon: &Path, preload: Option<&Path>) -> Result<Option<String>> {
    let script = format!("require({})", serde_json::Value::from(addon.display().to_string()));
    let mut command = Command::new("node");
    command.arg("-e").arg(script);
    if let Some(library) = preload {
        command.env("LD_PRELOAD", library);
    }
    let output = command.output().context("starting node")?;
    Ok((!output.status.success()).then(|| String::from_utf8_lossy(&output.stderr).into_owned()))
}

/// Calls `visit` with the name and the flags (to change in place) of every
/// version the ELF64 (little-endian) image `bytes` requires.
fn versions(bytes: &mut [u8], mut visit: impl FnMut(&str, &mut u16)) -> Result<()> {
    ensure!(
        bytes.get(..6) == Some(b"\x7fELF\x02\x01".as_slice()),
        "not a little-endian ELF64 file"
    );
    let section_table = read_u64(bytes, 0x28)? as usize;
    let entry_size = read_u16(bytes, 0x3a)? as usize;
    let count = read_u16(bytes, 0x3c)? as usize;
    // SHT_GNU_verneed, and the string table it names (`sh_link`).
    let section = (0..count)
        .map(|index| section_table + index * entry_size)
        .find(|at| read_u32(bytes, at + 4).is_ok_and(|kind| kind == 0x6fff_fffe))
        .context("no .gnu.version_r section")?;
    let (offset, needs) = (
        read_u64(bytes, section + 0x18)? as usize,
        read_u32(bytes, section + 0x2c)?,
    );
    let strings = section_table + read_u32(bytes, section + 0x28)? as usize * entry_size;
    let strings = read_u64(bytes, strings + 0x18)? as usize;
    let mut need = offset;
    for _ in 0..needs {
        let auxiliaries = read_u16(bytes, need + 2)?;
        let mut auxiliary = need + read_u32(bytes, need + 8)? as usize;
        for _ in 0..auxiliaries {
            let name = strings + read_u32(bytes, auxiliary + 8)? as usize;
            let end = bytes
                .get(name..)
                .and_then(|rest| rest.iter().position(|byte| *byte == 0))
                .context("an unended name")?;
            let text = String::from_utf8_lossy(&bytes[name..name + end]).into_owned();
            let mut flags = read_u16(bytes, auxiliary + 4)?;
            visit(&text, &mut flags);
            bytes[auxiliary + 4..auxiliary + 6].copy_from_slice(&flags.to_le_bytes());
            auxiliary += read_u32(bytes, auxiliary + 12)? as usize;
        }
        need += read_u32(bytes, need + 12)? as usize;
    }
    Ok(())
}

fn field<const N: usize>(bytes: &[u8], at: usize) -> Result<[u8; N]> {
    bytes
        .get(at..at + N)
        .and_then(|field| field.try_into().ok())
        .with_context(|| format!("the file ends before byte {}", at + N))
}

fn read_u16(bytes: &[u8], at: usize) -> Result<u16> {
    Ok(u16::from_le_bytes(field(bytes, at)?))
}

fn read_u32(bytes: &[u8], at: usize) -> Result<u32> {
    Ok(u32::from_le_bytes(field(bytes, at)?))
}

fn read_u64(bytes: &[u8], at: usize) -> Result<u64> {
    Ok(u64::from_le_bytes(field(bytes, at)?))
}
