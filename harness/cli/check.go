package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/check"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/matrix"
)

type checkOpts struct {
	file, target string
	connections  int
	start, every time.Duration
	noPull       bool
}

func (o *checkOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.file, "f", "matrix.yaml", "matrix `FILE` whose entry for the folder says what the target declares")
	fs.StringVar(&o.target, "target", "", "the target `NAME` to check where several are built from the folder")
	fs.IntVar(&o.connections, "connections", 0, "connections the concurrency and backlog rules open at once (`N`; default: the matrix's largest)")
	fs.DurationVar(&o.start, "start-timeout", time.Minute, "how long the target may take to accept connections (`D`)")
	fs.DurationVar(&o.every, "timeout", 10*time.Second, "how long each check waits for its answers (`D`)")
	fs.BoolVar(&o.noPull, "no-pull", false, "do not try a registry for base images")
}

// checkCmd checks the target built from a folder against the contract:
// a line per finding, exit 1 on any breach.
func checkCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o checkOpts
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	o.register(fs)
	pos, err := parseFlags(fs, args, 1, 1, stdout, stderr)
	if err != nil {
		return err
	}
	if o.connections < 0 || o.start <= 0 || o.every <= 0 {
		return usageErr("check: --connections must be positive, and --start-timeout and --timeout longer than 0")
	}
	m, err := matrix.Open(o.file)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	t, err := targetBuiltFrom(m, pos[0], o.target)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	eng, err := engine.Connect(ctx)
	if err != nil {
		return err
	}
	defer eng.Close()
	fmt.Fprintf(stdout, "checking target %s (%s) against the contract (docs/targets.md)\n", t.Name, pos[0])
	findings, err := check.Target(ctx, eng, m, t, check.Options{Connections: o.connections, Start: o.start, Timeout: o.every,
		NoPull: o.noPull, Log: stdout})
	for _, f := range findings {
		fmt.Fprintln(stdout, f)
	}
	if err != nil {
		return err
	}
	if n := len(check.Breaches(findings)); n > 0 {
		return withCode(ExitFailed, fmt.Errorf("check: %s breaks %d rule(s) of the contract", t.Name, n))
	}
	fmt.Fprintf(stdout, "%s keeps every rule check verifies\n", t.Name)
	return nil
}

// targetBuiltFrom is the target of m one of whose services is built from
// dir (check takes a target of one service)
// dir; only, when set, picks one of several built from it.
func targetBuiltFrom(m *matrix.Matrix, dir, only string) (matrix.Target, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return matrix.Target{}, err
	}
	var names []string
	for _, t := range m.Targets {
		for _, svc := range t.Services {
			if filepath.Clean(svc.Build) != abs {
				continue
			}
			if len(t.Services) > 1 {
				return matrix.Target{}, fmt.Errorf("%s: target %s has %d services; check takes a target of one service", m.File, t.Name, len(t.Services))
			}
			if only == "" || only == t.Name {
				names = append(names, t.Name)
			}
		}
	}
	switch len(names) {
	case 0:
		if only != "" {
			return matrix.Target{}, fmt.Errorf("%s: no target %s is built from %s", m.File, only, dir)
		}
		return matrix.Target{}, fmt.Errorf("%s: no target is built from %s: add its entry under targets: (harness new prints one)", m.File, dir)
	case 1:
		i := slices.IndexFunc(m.Targets, func(t matrix.Target) bool { return t.Name == names[0] })
		return m.Targets[i], nil
	}
	return matrix.Target{}, fmt.Errorf("%s: targets %s are all built from %s: name one with --target", m.File, strings.Join(names, ", "), dir)
}
