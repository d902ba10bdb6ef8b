/*
 * What Jazzer.js's prebuilt libFuzzer addon (`@jazzer.js/fuzzer`) takes
 * from a C library and C++ runtime newer than Debian 12's (glibc 2.36,
 * libstdc++ of GCC 12): the C23 `strtol`/`strtoul` of glibc 2.38, which
 * read numbers as the older ones do but for a `0b` prefix, and GCC 13's
 * `std::ios_base_library_init()`, which only makes sure the standard
 * streams are set up (GCC 12's library sets them up when it loads).
 * `cargo xtask fuzz` builds this into a library it preloads, once it has
 * marked those two versions weak in the addon (xtask/src/fuzz/compat.rs);
 * on a system that has them it does neither.
 */
#include <stdlib.h>

long __isoc23_strtol(const char *text, char **end, int base) { return strtol(text, end, base); }

unsigned long __isoc23_strtoul(const char *text, char **end, int base) { return strtoul(text, end, base); }

void _ZSt21ios_base_library_initv(void) {}
