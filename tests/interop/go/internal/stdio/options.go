// Package stdio is what our Go interop programs share, whatever the
// protocol version: the clients' command line, the trace they record, the
// permission answer, and the stdio plumbing of both ends (a client runs its
// agent as a child process; an agent serves its own stdio), as
// `tests/interop/typescript/stdio.mjs` is for the TypeScript ones. The
// protocol's own turn lives in each program. It names only what the
// bindings of both protocol versions have, so that it builds on either.
package stdio

import (
	"fmt"
	"os"
	"path/filepath"
)

// Options are a client's command line.
type Options struct {
	Cwd          string
	Trace        string
	Authenticate string
	Prompts      []string
	// Agent is the agent's command, then its arguments.
	Agent []string
}

// ClientOptions reads `--cwd DIR [--trace FILE] [--authenticate METHOD]
// [--prompt TEXT]... -- AGENT [ARGS]...` from the command line
// (`--authenticate` where `authenticate` is set); exits 2 with `usage` on a
// bad line. Without a `--prompt`, the one prompt is the matrix's.
func ClientOptions(usage string, authenticate bool) Options {
	args := os.Args[1:]
	var options Options
	for index := 0; index < len(args); index++ {
		argument := args[index]
		if argument == "--" {
			options.Agent = args[index+1:]
			break
		}
		index++
		if index == len(args) {
			exitUsage(fmt.Sprintf("%s needs a value", argument), usage)
		}
		value := args[index]
		switch {
		case argument == "--cwd":
			options.Cwd = value
		case argument == "--trace":
			options.Trace = value
		case argument == "--authenticate" && authenticate:
			options.Authenticate = value
		case argument == "--prompt":
			options.Prompts = append(options.Prompts, value)
		default:
			exitUsage("unknown argument "+argument, usage)
		}
	}
	if len(options.Agent) == 0 || !filepath.IsAbs(options.Cwd) {
		exitUsage("", usage)
	}
	if len(options.Prompts) == 0 {
		options.Prompts = []string{"Read notes.txt, then update it."}
	}
	return options
}

func exitUsage(problem, usage string) {
	if problem != "" {
		fmt.Fprintln(os.Stderr, problem)
	}
	fmt.Fprintln(os.Stderr, "usage: "+usage)
	os.Exit(2)
}
