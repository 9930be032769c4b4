// Package cli wires the harness's commands (plan, run, report, clean) to the
// packages that do the work, and maps outcomes to exit codes. It owns
// nothing else.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/compare"
	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/progress"
	"github.com/webbench/webbench/harness/report"
	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/runner"
)

// Exit codes.
const (
	ExitOK          = 0   // every cell ok or skipped
	ExitFailed      = 1   // some cell failed, or the run could not start
	ExitUsage       = 2   // invalid input: flags, matrix file
	ExitInterrupted = 130 // SIGINT/SIGTERM
)

// Version is the harness version, set by the build (git describe).
var Version = "dev"

const usage = `usage: harness <command> [flags]

commands:
  plan    [-f FILE] [--profile P] [--only SEL] [--sequential]   validate and list the cells, no Docker
  run     [-f FILE] [--profile P] [--only SEL] [--out DIR] [--label NAME] [--network bridge|host] [--no-pull]
          [--sequential] [--seed N]
  report  DIR [--format md|csv|json]                  re-render DIR/README.md (or results.csv, report.json) from DIR/results.json
  compare A B [C…] [--out FILE] [--format md|csv]     compare result folders cell by cell
  index   [DIR]                                       rewrite the table of result sets in DIR/README.md (default results)
  clean                                               remove every container and network the harness made, and dangling images
  version
`

// Main runs one command. Cancelling ctx (the command's first signal)
// stops a run, which then cleans up and exits 130; the caller handles a
// second signal.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return ExitUsage
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "plan":
		return plan(args, stdout, stderr)
	case "run":
		return run(ctx, args, stdout, stderr)
	case "report":
		return reportCmd(args, stdout, stderr)
	case "compare":
		return compareCmd(args, stdout, stderr)
	case "index":
		dir := "results"
		if len(args) == 1 {
			dir = args[0]
		} else if len(args) > 1 {
			fmt.Fprintln(stderr, "usage: harness index [DIR]")
			return ExitUsage
		}
		if err := report.Index(dir); err != nil {
			fmt.Fprintln(stderr, "harness:", err)
			return ExitFailed
		}
		fmt.Fprintln(stdout, filepath.Join(dir, "README.md"))
		return ExitOK
	case "clean":
		return clean(ctx, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, Version)
		return ExitOK
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return ExitOK
	}
	fmt.Fprintf(stderr, "harness: unknown command %q\n%s", cmd, usage)
	return ExitUsage
}

type matrixFlags struct {
	file, profile, only string
}

func (m *matrixFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.file, "f", "matrix.yaml", "matrix file")
	fs.StringVar(&m.profile, "profile", "", "profile of the matrix file to apply")
	fs.StringVar(&m.only, "only", "", "cells to run: comma-separated NAME or TARGET/SCENARIO globs")
}

// load reads the matrix and applies the profile and selector; errors are
// printed and turned into ExitUsage.
func (m *matrixFlags) load(stderr io.Writer, online cpuset.Set) (*matrix.Matrix, []matrix.Cell, int) {
	mx, err := matrix.Open(m.file)
	if err == nil {
		mx, err = mx.WithProfile(m.profile)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, nil, ExitUsage
	}
	sel, err := matrix.ParseSelector(m.only)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, nil, ExitUsage
	}
	cells := matrix.Expand(mx, sel, online)
	if len(cells) == 0 {
		fmt.Fprintf(stderr, "%s: --only %q selects no cell\n", m.file, m.only)
		return nil, nil, ExitUsage
	}
	return mx, cells, ExitOK
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parse accepts flags before and after positional arguments.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func plan(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("plan", stderr)
	var mf matrixFlags
	mf.register(fs)
	sequential := fs.Bool("sequential", false, "estimate for trials run cell by cell")
	if _, err := parse(fs, args); err != nil {
		return ExitUsage
	}
	online := cpuset.Range(0, runtime.NumCPU())
	m, cells, code := mf.load(stderr, online)
	if code != ExitOK {
		return code
	}
	runnable := 0
	for _, c := range cells {
		if c.Skip != "" {
			fmt.Fprintf(stdout, "%-40s skip: %s\n", c.ID(), c.Skip)
			continue
		}
		runnable++
		fmt.Fprintf(stdout, "%-40s target cpus %s, load generator cpus %s\n", c.ID(), c.CPUSet, c.LoadgenSet)
	}
	how := m.Load.Duration.String()
	if m.Load.Requests > 0 {
		how = fmt.Sprintf("%d requests (timed at a guessed 20k rps)", m.Load.Requests)
	}
	est := matrix.Estimate(m, cells, 1500*time.Millisecond, 20000, !*sequential)
	fmt.Fprintf(stdout, "%d cells (%d to run, %d skipped on %d CPUs); %d trial(s) of %s after %s warm-up; estimated %s plus image builds\n",
		len(cells), runnable, len(cells)-runnable, len(online), m.Load.Trials, how, m.Load.Warmup, est.Round(time.Second))
	return ExitOK
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("run", stderr)
	var mf matrixFlags
	mf.register(fs)
	out := fs.String("out", "", "output folder (default results/<label>)")
	label := fs.String("label", "", "name of this run's machine (default <cores>c-<cpu model>)")
	network := fs.String("network", "", "network mode: bridge (default) or host (Linux only); overrides the matrix")
	noPull := fs.Bool("no-pull", false, "never try a registry for base images; use local images or build stand-ins")
	sequential := fs.Bool("sequential", false, "run all trials of a cell before the next (default: interleave trials across cells)")
	seed := fs.Uint64("seed", 0, "seed of the interleaved order (default: random, recorded in results.json)")
	if pos, err := parse(fs, args); err != nil || len(pos) > 0 {
		if err == nil {
			fmt.Fprintf(stderr, "run: unexpected argument %q\n", pos[0])
		}
		return ExitUsage
	}
	if *network != "" && *network != matrix.NetworkBridge && *network != matrix.NetworkHost {
		fmt.Fprintf(stderr, "run: --network must be bridge or host, got %q\n", *network)
		return ExitUsage
	}
	// Validate before touching Docker.
	m, _, code := mf.load(stderr, cpuset.Range(0, runtime.NumCPU()))
	if code != ExitOK {
		return code
	}
	eng, err := engine.Connect(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "harness:", err)
		return ExitFailed
	}
	defer eng.Close()
	if *label == "" {
		info, err := eng.Info(ctx)
		if err != nil {
			fmt.Fprintln(stderr, "harness:", err)
			return ExitFailed
		}
		*label = DefaultLabel(info.NCPU, runner.CPUModel())
	}
	if *out == "" {
		*out = filepath.Join("results", *label)
	}
	fmt.Fprintf(stderr, "run %s → %s\n", *label, *out)
	res, err := runner.Run(ctx, eng, runner.Options{
		Matrix: m, Only: mf.only, OutDir: *out, Label: *label, Network: *network, NoPull: *noPull,
		HarnessVersion: Version, Progress: progress.For(stderr), Log: stderr, Sequential: *sequential, Seed: *seed,
	})
	if res != nil {
		counts := map[string]int{}
		for _, c := range res.Cells {
			counts[c.Status]++
		}
		fmt.Fprintf(stdout, "%d ok, %d failed, %d skipped; results in %s\n",
			counts[results.OK], counts[results.Failed], counts[results.Skipped], filepath.Join(*out, "README.md"))
		if err == nil && counts[results.Failed] > 0 {
			return ExitFailed
		}
	}
	switch {
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "interrupted: containers removed, measured cells saved")
		return ExitInterrupted
	case err != nil:
		fmt.Fprintln(stderr, "harness:", err)
		return ExitFailed
	}
	return ExitOK
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// DefaultLabel names a machine by its core count and CPU model, e.g.
// "2c-amd-epyc" or "8c-intel-core-i7-10510u-cpu-1-80ghz".
func DefaultLabel(ncpu int, model string) string {
	slug := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(model), "-"), "-")
	for _, noise := range []string{"-r-", "-tm-", "-processor"} {
		slug = strings.ReplaceAll(slug, noise, "-")
	}
	if len(slug) > 40 {
		slug = strings.TrimRight(slug[:40], "-")
	}
	if slug == "" {
		slug, _ = os.Hostname()
	}
	return fmt.Sprintf("%dc-%s", ncpu, slug)
}

func reportCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("report", stderr)
	format := fs.String("format", "md", "md (DIR/README.md), csv (DIR/results.csv) or json (DIR/report.json)")
	pos, err := parse(fs, args)
	if err != nil {
		return ExitUsage
	}
	files := map[string]string{"md": "README.md", "csv": "results.csv", "json": "report.json"}
	if len(pos) != 1 || files[*format] == "" {
		fmt.Fprintln(stderr, "usage: harness report DIR [--format md|csv|json]")
		return ExitUsage
	}
	dir := pos[0]
	run, err := results.Read(dir)
	if err != nil {
		fmt.Fprintln(stderr, "harness:", err)
		return ExitUsage
	}
	if *format == "md" {
		if err := report.WriteDir(dir, run); err != nil {
			fmt.Fprintln(stderr, "harness:", err)
			return ExitFailed
		}
		fmt.Fprintln(stdout, filepath.Join(dir, "README.md"))
		return ExitOK
	}
	var b strings.Builder
	switch *format {
	case "csv":
		err = report.CSV(&b, run)
	case "json":
		err = report.JSON(&b, run)
	}
	if err != nil {
		fmt.Fprintln(stderr, "harness:", err)
		return ExitFailed
	}
	path := filepath.Join(dir, files[*format])
	if err := results.WriteFileAtomic(path, []byte(b.String())); err != nil {
		fmt.Fprintln(stderr, "harness:", err)
		return ExitFailed
	}
	fmt.Fprintln(stdout, path)
	return ExitOK
}

func compareCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("compare", stderr)
	out := fs.String("out", "", "write to this file instead of stdout")
	format := fs.String("format", "md", "md or csv")
	pos, err := parse(fs, args)
	if err != nil {
		return ExitUsage
	}
	if len(pos) < 2 || (*format != "md" && *format != "csv") {
		fmt.Fprintln(stderr, "usage: harness compare A B [C…] [--out FILE] [--format md|csv]")
		return ExitUsage
	}
	var runs []*results.Run
	for _, dir := range pos {
		run, err := results.Read(dir)
		if err != nil {
			fmt.Fprintln(stderr, "harness:", err)
			return ExitUsage
		}
		runs = append(runs, run)
	}
	names := make([]string, len(pos))
	for i, p := range pos {
		names[i] = filepath.Base(filepath.Clean(p))
	}
	c := compare.Build(names, runs)
	var b strings.Builder
	if *format == "csv" {
		err = compare.CSV(&b, c)
	} else {
		err = compare.Markdown(&b, c)
	}
	if err != nil {
		fmt.Fprintln(stderr, "harness:", err)
		return ExitFailed
	}
	if *out == "" {
		io.WriteString(stdout, b.String())
		return ExitOK
	}
	if err := results.WriteFileAtomic(*out, []byte(b.String())); err != nil {
		fmt.Fprintln(stderr, "harness:", err)
		return ExitFailed
	}
	fmt.Fprintln(stdout, *out)
	return ExitOK
}

func clean(ctx context.Context, stdout, stderr io.Writer) int {
	eng, err := engine.Connect(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "harness:", err)
		return ExitFailed
	}
	defer eng.Close()
	gone, err := eng.Reap(ctx, true)
	for _, g := range gone {
		fmt.Fprintln(stdout, "removed", g)
	}
	if err != nil {
		fmt.Fprintln(stderr, "harness:", err)
		return ExitFailed
	}
	if len(gone) == 0 {
		fmt.Fprintln(stdout, "nothing to clean")
	}
	return ExitOK
}
