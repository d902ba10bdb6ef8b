// Command modzip lays out a Go module folder the way a Go module proxy
// serves it, with golang.org/x/mod: `build` writes, under the proxy folder
// `-out`, the module path's escaped folder with `@v/` holding the module
// zip (`<version>.zip`, every entry under `<module>@<version>/`, with the
// zip format's limits checked), its go.mod (`<version>.mod`), its
// `<version>.info` (the time is SOURCE_DATE_EPOCH's) and the `list` of
// versions, and prints the files it wrote relative to `-out`, one a line.
// It fails when the zip would leave out a file of the folder, and when the
// zip's hash differs from the folder's. `sum` prints the two go.sum lines
// of a module zip and its go.mod.
//
//	modzip build -dir MODULE -version vX.Y.Z -out PROXY
//	modzip sum -zip FILE -mod FILE -module PATH -version vX.Y.Z
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	"golang.org/x/mod/zip"
)

func main() {
	if len(os.Args) < 2 {
		fail(errors.New("usage: modzip build|sum [flags]"))
	}
	var err error
	switch os.Args[1] {
	case "build":
		err = build(os.Args[2:])
	case "sum":
		err = sum(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q: build or sum", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "modzip:", err)
	os.Exit(1)
}

func build(arguments []string) error {
	flags := flag.NewFlagSet("build", flag.ContinueOnError)
	dir := flags.String("dir", "", "the module folder (holding go.mod)")
	version := flags.String("version", "", "the module version (vX.Y.Z)")
	out := flags.String("out", "", "the proxy folder")
	if err := flags.Parse(arguments); err != nil {
		return err
	}
	if *dir == "" || *version == "" || *out == "" {
		return errors.New("build: give -dir, -version and -out")
	}
	released, err := sourceDateEpoch()
	if err != nil {
		return err
	}
	goMod, err := os.ReadFile(filepath.Join(*dir, "go.mod"))
	if err != nil {
		return err
	}
	path := modfile.ModulePath(goMod)
	if path == "" {
		return fmt.Errorf("%s: no module line", filepath.Join(*dir, "go.mod"))
	}
	if err := module.Check(path, *version); err != nil {
		return err
	}
	checked, err := zip.CheckDir(*dir)
	if err != nil {
		return err
	}
	if len(checked.Omitted) > 0 {
		var names []string
		for _, omitted := range checked.Omitted {
			names = append(names, fmt.Sprintf("%s (%v)", omitted.Path, omitted.Err))
		}
		return fmt.Errorf("the module zip would leave out %s", strings.Join(names, ", "))
	}
	escaped, err := module.EscapePath(path)
	if err != nil {
		return err
	}
	escapedVersion, err := module.EscapeVersion(*version)
	if err != nil {
		return err
	}
	folder := filepath.Join(escaped, "@v")
	if err := os.MkdirAll(filepath.Join(*out, folder), 0o755); err != nil {
		return err
	}
	m := module.Version{Path: path, Version: *version}
	zipFile := filepath.Join(folder, escapedVersion+".zip")
	if err := writeZip(filepath.Join(*out, zipFile), m, *dir); err != nil {
		return err
	}
	if err := sameHash(filepath.Join(*out, zipFile), m, *dir); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    string
	}{*version, released.UTC().Format(time.RFC3339)})
	if err != nil {
		return err
	}
	files := []struct {
		name     string
		contents []byte
	}{
		{filepath.Join(folder, escapedVersion+".mod"), goMod},
		{filepath.Join(folder, escapedVersion+".info"), append(info, '\n')},
		{filepath.Join(folder, "list"), []byte(*version + "\n")},
	}
	for _, file := range files {
		if err := os.WriteFile(filepath.Join(*out, file.name), file.contents, 0o644); err != nil {
			return err
		}
	}
	fmt.Println(filepath.ToSlash(zipFile))
	for _, file := range files {
		fmt.Println(filepath.ToSlash(file.name))
	}
	return nil
}

// sourceDateEpoch is the time SOURCE_DATE_EPOCH gives, in seconds.
func sourceDateEpoch() (time.Time, error) {
	text := os.Getenv("SOURCE_DATE_EPOCH")
	seconds, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: not a number of seconds", text)
	}
	return time.Unix(seconds, 0), nil
}

// writeZip writes the module zip of dir, then checks it as the go command
// checks a zip it downloads.
func writeZip(file string, m module.Version, dir string) error {
	w, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := zip.CreateFromDir(w, m, dir); err != nil {
		w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	_, err = zip.CheckZip(m, file)
	return err
}

// sameHash fails unless the zip's go.sum hash is the folder's: the zip
// holds every file of the folder, byte for byte.
func sameHash(file string, m module.Version, dir string) error {
	zipped, err := dirhash.HashZip(file, dirhash.Hash1)
	if err != nil {
		return err
	}
	folder, err := dirhash.HashDir(dir, m.String(), dirhash.Hash1)
	if err != nil {
		return err
	}
	if zipped != folder {
		return fmt.Errorf("the zip hashes to %s, the folder %s to %s", zipped, dir, folder)
	}
	return nil
}

func sum(arguments []string) error {
	flags := flag.NewFlagSet("sum", flag.ContinueOnError)
	zipFile := flags.String("zip", "", "the module zip")
	modFile := flags.String("mod", "", "the module's go.mod")
	path := flags.String("module", "", "the module path")
	version := flags.String("version", "", "the module version")
	if err := flags.Parse(arguments); err != nil {
		return err
	}
	if *zipFile == "" || *modFile == "" || *path == "" || *version == "" {
		return errors.New("sum: give -zip, -mod, -module and -version")
	}
	zipped, err := dirhash.HashZip(*zipFile, dirhash.Hash1)
	if err != nil {
		return err
	}
	goMod, err := os.ReadFile(*modFile)
	if err != nil {
		return err
	}
	modHash, err := dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(goMod)), nil
	})
	if err != nil {
		return err
	}
	fmt.Printf("%s %s %s\n%s %s/go.mod %s\n", *path, *version, zipped, *path, *version, modHash)
	return nil
}
