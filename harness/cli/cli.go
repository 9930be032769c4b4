// Package cli wires the harness's commands (plan, run, report, compare,
// index, clean) to the packages that do the work: each command is one
// function that returns an error carrying its exit code, and Main is the
// one place that prints an error. After a run it renders README.md and
// charts from what the runner measured. It owns nothing else.
package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/internal/redact"
	"github.com/webbench/webbench/harness/internal/safefile"
	"github.com/webbench/webbench/harness/lock"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/plan"
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
	ExitNothing     = 3   // the run measured no cell: every one was skipped
	ExitInterrupted = 130 // SIGINT/SIGTERM
)

// Version is the harness version, set by the build (git describe).
var Version = "dev"

// ExitError is an error that carries the process's exit code.
type ExitError struct {
	Code int
	Err  error // nil: nothing more to print (the command already said it)
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// usageErr is an invalid invocation or input: exit 2.
func usageErr(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// withCode gives err an exit code.
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &ExitError{Code: code, Err: err}
}

// ExitCode is the exit code of a command's outcome: 0 for nil, 130 for an
// interrupt, the code an ExitError carries, and 1 for any other error.
func ExitCode(err error) int {
	var ee *ExitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ee):
		return ee.Code
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	}
	return ExitFailed
}

// OnSignals is parent cancelled by the first signal on sigs: a command
// then stops, cleans up and exits 130 (Main). A second signal calls exit
// with ExitInterrupted at once. main passes the signals it is notified
// of; a test sends its own.
func OnSignals(parent context.Context, sigs <-chan os.Signal, stderr io.Writer, exit func(code int)) context.Context {
	ctx, cancel := context.WithCancel(parent)
	go func() {
		<-sigs
		fmt.Fprintln(stderr, "\ninterrupt: stopping, removing containers (again to kill at once)")
		cancel()
		<-sigs
		exit(ExitInterrupted)
	}()
	return ctx
}

// Main runs one command and returns its exit code, after printing its error
// (if any) to stderr as "harness: …": the one place errors are printed.
// Cancelling ctx (the first signal) stops a run, which then cleans up and
// exits 130; the caller handles a second signal.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := Run(ctx, args, stdout, stderr)
	var ee *ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Err == nil:
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "harness: interrupted: containers removed, measured cells saved")
	default:
		// Errors from the Docker SDK repeat the host they failed on as it
		// was given, password and all.
		fmt.Fprintln(stderr, "harness:", redact.Text(err.Error()))
	}
	return ExitCode(err)
}

// Run runs the command args[0] with the rest of args.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		writeTopUsage(stderr)
		return &ExitError{Code: ExitUsage}
	}
	name, args := args[0], args[1:]
	switch name {
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, version())
		return nil
	case "help", "-h", "--help", "-help":
		if len(args) == 1 {
			if c := lookup(args[0]); c != nil && c.run != nil {
				printUsage(stdout, c, c.flagSet())
				return nil
			}
		}
		writeTopUsage(stdout)
		return nil
	}
	if c := lookup(name); c != nil && c.run != nil {
		return c.run(ctx, args, stdout, stderr)
	}
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	return usageErr("unknown command %q: the commands are %s (harness -h says more)", name, strings.Join(names, ", "))
}

type matrixFlags struct {
	file, profiles, profile, only, control, generator, crosscheck string
	maxCells                                                      int64
	// onlyGiven is --only on the command line, even empty: --only ""
	// names no cell, where no --only selects every cell.
	onlyGiven bool
	// set are the settings flags (--trials, --set …) in the order given,
	// applied over the profile.
	set []matrix.Setting
}

// setting is the flag --name, which sets the matrix's key to its value:
// a list of the comma-separated values when list (--rate 0,1000 is
// rate: [0,1000]), else the value as YAML.
func (m *matrixFlags) setting(name, key string, list bool) func(string) error {
	return func(v string) error {
		value := v
		if list {
			value = "[" + v + "]"
		}
		m.set = append(m.set, matrix.Setting{Flag: "--" + name + " " + v, Key: key, Value: value})
		return nil
	}
}

// registerSettings declares the flags that set the matrix's settings over
// the profile. Each becomes a matrix.Setting, checked as the matrix file
// is (matrix.WithSettings).
func (m *matrixFlags) registerSettings(fs *flag.FlagSet) {
	fs.Func("trials", "measured runs `N` of each cell (load.trials, over the profile)", m.setting("trials", "load.trials", false))
	fs.Func("duration", "length `D` of each trial, e.g. 10s (load.duration, over the profile)", m.setting("duration", "load.duration", false))
	fs.Func("protocol", "the protocol axis `P[,P…]`: http1, https, h2, h2c (over the profile)", m.setting("protocol", "protocol", true))
	fs.Func("rate", "the rate axis `R[,R…]` in requests/s, 0 as fast as the generator can (over the profile)", m.setting("rate", "rate", true))
	fs.Func("connections", "the connections axis `C[,C…]` (over the profile)", m.setting("connections", "connections", true))
	fs.Func("revisions", "the revision axis `REV[,REV…]`: git revisions of the matrix file's repository (WORKTREE: the work tree as it is), each target built from each; the first is the baseline, measured against the others in pairs with an A/A control (over the profile)", m.setting("revisions", "revision", true))
	fs.Func("schedule", "the schedule axis `S[,S…]`: interleaved (a compared cell back to back with its baseline in each round) or duet (at the same time, on cores of their own) (over the profile)", m.setting("schedule", "schedule", true))
	fs.Func("loadgens", "the loadgens axis `K[,K…]`: each cell's load from the first K of the run's generator engines (--loadgen-engine a,b), a cell per K (over the profile)", m.setting("loadgens", "loadgens", true))
	fs.Func("set", "set the matrix key `KEY=VALUE` over the profile, any key a profile takes, VALUE in YAML: load.warmup=2s, connections=[64,256] (repeatable; a later one wins)", func(kv string) error {
		s, err := matrix.ParseSet(kv)
		if err == nil {
			m.set = append(m.set, s)
		}
		return err
	})
}

func (m *matrixFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.file, "f", "matrix.yaml", "matrix `FILE`")
	fs.StringVar(&m.profile, "profile", "", "profile `P` of the matrix file (or of --profiles) to apply")
	fs.StringVar(&m.profiles, "profiles", "", "a profiles `FILE` whose profiles join the matrix's (a study's studies/<id>/profiles.yaml)")
	fs.Func("only", "cells to run (`SEL`): comma-separated NAME or TARGET/SCENARIO globs", func(v string) error {
		m.only, m.onlyGiven = v, true
		return nil
	})
	fs.StringVar(&m.control, "control", "", "TARGET[:VARIANT]/SCENARIO `CELL`s to measure twice, as an A/A control (overrides the matrix)")
	fs.Int64Var(&m.maxCells, "max-cells", matrix.MaxCells, "refuse a matrix that expands to more than `N` cells")
	fs.StringVar(&m.crosscheck, "crosscheck", "", "measure every cell a second time with load generator `GEN`, interleaved, and compare (overrides the matrix)")
	fs.StringVar(&m.generator, "generator", "", "load generators `GENS`, comma-separated, of "+strings.Join(matrix.GeneratorNames, ", ")+" (overrides the matrix's generator axis)")
	m.registerSettings(fs)
}

// load reads the matrix and applies the profile and selector; every
// problem is a usage error.
func (m *matrixFlags) load() (*matrix.Matrix, matrix.Selector, error) {
	mx, err := matrix.OpenWithProfiles(m.file, m.profiles)
	if err == nil {
		mx, err = mx.WithProfile(m.profile)
	}
	if err == nil {
		mx, err = mx.WithSettings(m.set)
	}
	if err != nil {
		return nil, nil, withCode(ExitUsage, err)
	}
	if m.control != "" {
		if mx.Control, err = matrix.ParseControl(m.control); err != nil {
			return nil, nil, withCode(ExitUsage, fmt.Errorf("--control: %w", err))
		}
	}
	if m.generator != "" {
		gens := strings.Split(m.generator, ",")
		for i, g := range gens {
			if !slices.Contains(matrix.GeneratorNames, g) {
				return nil, nil, usageErr("--generator: no load generator %q (have: %s)", g, strings.Join(matrix.GeneratorNames, ", "))
			}
			if slices.Contains(gens[:i], g) {
				return nil, nil, usageErr("--generator: %s named twice", g)
			}
		}
		mx.Generators = gens
	}
	if m.crosscheck != "" {
		if !slices.Contains(matrix.GeneratorNames, m.crosscheck) {
			return nil, nil, usageErr("--crosscheck: no load generator %q (have: %s)", m.crosscheck, strings.Join(matrix.GeneratorNames, ", "))
		}
		mx.Crosscheck = m.crosscheck
	}
	if mx, err = plan.Paired(context.Background(), mx); err != nil {
		return nil, nil, withCode(ExitUsage, fmt.Errorf("%s: %w", m.file, err))
	}
	if m.onlyGiven && m.only == "" {
		return nil, nil, usageErr("--only \"\" names no cell: give NAME or TARGET/SCENARIO globs, comma-separated, or leave --only out to run every cell")
	}
	sel, err := matrix.ParseSelector(m.only)
	if err != nil {
		return nil, nil, withCode(ExitUsage, err)
	}
	if m.only != "" {
		// What the user names replaces the profile's selection: a target
		// of one's own must not vanish because a profile's only: predates it.
		mx.ProfileOnly = nil
	}
	switch n := plan.Count(mx, sel); {
	case n > m.maxCells:
		return nil, nil, usageErr("%s: the matrix expands to %d cells, more than --max-cells %d", m.file, n, m.maxCells)
	case n == 0 && m.only != "":
		return nil, nil, usageErr("%s: --only %q selects no cell", m.file, m.only)
	case n == 0:
		return nil, nil, usageErr("%s: the matrix expands to no cell%s", m.file, m.given())
	}
	return mx, sel, nil
}

// given names the profile and settings flags a matrix was read with, to
// say what made it expand to no cell: " (with --profile p --protocol h2)".
func (m *matrixFlags) given() string {
	var given []string
	if m.profile != "" {
		given = append(given, "--profile "+m.profile)
	}
	for _, s := range m.set {
		given = append(given, s.Flag)
	}
	if len(given) == 0 {
		return ""
	}
	return " (with " + strings.Join(given, " ") + ")"
}

type runOpts struct {
	mf                                matrixFlags
	ef                                engineFlags
	out, label, network, resume       string
	noPull, sequential, force, noWait bool
	noCeiling, unblocked              bool
	failOnRegression                  bool
	seed                              uint64
}

func (o *runOpts) register(fs *flag.FlagSet) {
	o.mf.register(fs)
	o.ef.register(fs)
	fs.StringVar(&o.out, "out", "", "output folder `DIR` (default results/<label>)")
	fs.StringVar(&o.label, "label", "", "`NAME` of this run's machine (default <cores>c-<cpu model>)")
	fs.StringVar(&o.network, "network", "", "network mode `shared|bridge|host` (host: Linux only); overrides the matrix (default shared)")
	fs.BoolVar(&o.noPull, "no-pull", false, "never try a registry for base images; use local images or build stand-ins")
	fs.BoolVar(&o.sequential, "sequential", false, "run all trials of a cell before the next (default: interleave trials across cells)")
	fs.Uint64Var(&o.seed, "seed", 0, "seed `N` of the interleaved order (default: random, recorded in results.json)")
	fs.BoolVar(&o.unblocked, "unblocked", false, "shuffle every cell of a round freely (default: the cells a ratio compares, A/A twins included, run back to back)")
	fs.StringVar(&o.resume, "resume", "", "continue the interrupted or killed run in results folder `DIR`")
	fs.BoolVar(&o.force, "force", false, "overwrite the results folder if it holds a run")
	fs.BoolVar(&o.noWait, "no-wait", false, "refuse to start, rather than wait, when another run uses a core this one needs")
	fs.BoolVar(&o.failOnRegression, "fail-on-regression", false, "exit 1 when a later revision's cell is slower than the first revision's (--revisions) beyond this run's own A/A floor, in requests/s or CPU time per answer")
	fs.BoolVar(&o.noCeiling, "no-ceiling", false, "do not measure the load generator's ceiling (faster; † then rests on the generator's CPU alone, and the results say so)")
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o runOpts
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	o.register(fs)
	mf, ef := &o.mf, &o.ef
	out, label, network := &o.out, &o.label, &o.network
	noPull, sequential, force, noWait, seed := &o.noPull, &o.sequential, &o.force, &o.noWait, &o.seed
	if _, err := parseFlags(fs, args, 0, 0, stdout, stderr); err != nil {
		return err
	}
	prev, err := o.resumed(fs)
	if err != nil {
		return err
	}
	// Validate before touching Docker.
	m, sel, err := o.load() // the runner expands it, with the engine's cores
	if err != nil {
		return err
	}
	place, err := ef.placed(m)
	if err != nil {
		return err
	}
	engines, err := place.connect(ctx)
	if err != nil {
		return err
	}
	defer engines.Close()
	eng, lg := engines.tgt, engines.lg
	if *label == "" {
		if *label, err = defaultRunLabel(ctx, eng, place, mf); err != nil {
			return err
		}
	}
	if *out == "" {
		*out = filepath.Join("results", *label)
	}
	// Claim the folder before looking at it: two runs started together
	// must not both find it empty.
	claim, err := lock.Folder(*out)
	if err != nil {
		return withCode(ExitFailed, err)
	}
	defer claim.Release()
	if _, err := os.Stat(filepath.Join(*out, "results.json")); err == nil && prev == nil && !*force {
		return usageErr("run: %s already holds a run; --force overwrites it, --resume %s continues it, --out DIR writes elsewhere", *out, *out)
	}
	if err := prepareFolder(ctx, eng, *out, m, sel, prev == nil && *force); err != nil {
		return err
	}
	for _, l := range plan.LeftOut(m, sel, cpuset.Range(0, runtime.NumCPU())) {
		fmt.Fprintln(stderr, l)
	}
	fmt.Fprintf(stderr, "run %s → %s\n", *label, *out)
	res, err := runner.Run(ctx, runner.Split(eng), runner.Options{
		Matrix: m, Only: mf.only, OutDir: *out, Label: *label, Network: matrix.Network(*network), NoPull: *noPull,
		HarnessVersion: version(), Progress: progress.For(stderr), Log: stderr,
		Schedule: runner.Schedule{Sequential: *sequential, Seed: *seed, Unblocked: o.unblocked},
		Resume:   prev, NoWait: *noWait, Reserve: place.reserve, NoCeiling: o.noCeiling,
	}.OnMachines(place.machines, runner.Split(lg), copier(eng, lg, stderr), engines.moreEngines(stderr)...))
	if res == nil {
		return err
	}
	if unsaved := (*runner.UnsavedError)(nil); errors.As(err, &unsaved) {
		return summarize(stdout, *out, res, err) // no README drawn from what is not on disk
	}
	err = summarize(stdout, *out, res, errors.Join(err, draw(*out, res, stderr)))
	if o.failOnRegression && err == nil {
		err = gate(stdout, res)
	}
	return err
}

// load checks run's own flags and loads the matrix with the rest, all
// before Docker is touched.
func (o *runOpts) load() (*matrix.Matrix, matrix.Selector, error) {
	if o.label != "" && !validLabel.MatchString(o.label) {
		// The label names a folder under results/ and is printed in
		// READMEs: no path separators, no "..", nothing to escape.
		return nil, nil, usageErr("run: --label %q: use letters, digits, '.', '_' and '-' (not first), at most 100", o.label)
	}
	if o.network != "" && !slices.Contains(matrix.Networks, matrix.Network(o.network)) {
		return nil, nil, usageErr("run: --network must be one of %v, got %q", matrix.Networks, o.network)
	}
	m, sel, err := o.mf.load()
	if err == nil && o.failOnRegression {
		err = checkGate(m)
	}
	return m, sel, err
}

// defaultRunLabel is the label of a run given none: the engine's CPU count
// and model, or the two machines' names, with the profile and selection.
func defaultRunLabel(ctx context.Context, eng *engine.Engine, place placement, mf *matrixFlags) (string, error) {
	info, err := eng.Info(ctx)
	if err != nil {
		return "", err
	}
	label := DefaultLabel(info.NCPU, runner.CPUModel())
	if ms := place.machines; ms != nil {
		from := ms.Loadgen.Name
		for _, g := range ms.More {
			from += "-" + g.Name
		}
		label = fmt.Sprintf("%dc-%s-from-%s", info.NCPU, ms.Target.Name, from)
	}
	return labelFor(label, mf.profile, mf.only, len(mf.set) > 0), nil
}

// summarize prints how many of res's cells ended ok, failed and skipped,
// and returns err, or when nil the outcome those counts make.
func summarize(stdout io.Writer, out string, res *results.Run, err error) error {
	counts := map[results.Status]int{}
	for _, c := range res.Cells {
		counts[c.Status]++
	}
	partial := ""
	if n := counts[results.Partial]; n > 0 {
		partial = fmt.Sprintf(", %d partial (measured in part)", n)
	}
	fmt.Fprintf(stdout, "%d ok, %d failed, %d skipped%s; results in %s\n",
		counts[results.OK], counts[results.Failed], counts[results.Skipped], partial, filepath.Join(out, "README.md"))
	if err == nil {
		err = outcome(counts)
	}
	return err
}

// prepareFolder checks the results folder out before a run writes into
// it, and with force clears what an overwritten run of ours left there.
func prepareFolder(ctx context.Context, eng *engine.Engine, out string, m *matrix.Matrix, sel matrix.Selector, force bool) error {
	// logs/ and charts/ are written and cleared: a link there would have
	// the run truncate or delete files elsewhere.
	if err := safefile.NoLinks(out, "logs", "charts"); err != nil {
		return usageErr("run: %v", err)
	}
	if force {
		info, err := eng.Info(ctx)
		if err != nil {
			return err
		}
		var planned []string
		for _, c := range plan.Cells(m, sel, cpuset.Range(0, info.NCPU)) {
			planned = append(planned, c.ID())
		}
		if err := guardTracked(ctx, out, planned); err != nil {
			return err
		}
	}
	if _, err := results.Read(out); force && err == nil {
		// What the overwritten run left: its build logs are not this run's
		// (its charts are replaced by report.WriteDir). A folder holding
		// no run of ours keeps its files.
		if _, err := safefile.RemoveRegular(filepath.Join(out, "logs"), "*.log"); err != nil {
			return err
		}
	}
	return nil
}

// outcome is the exit of a run that ended: failed when a cell failed,
// nothing measured when every cell was skipped (a run that measured
// nothing must not pass for one that did); the summary line says which.
func outcome(counts map[results.Status]int) error {
	switch {
	case counts[results.Failed] > 0:
		return &ExitError{Code: ExitFailed}
	case counts[results.OK] == 0:
		return &ExitError{Code: ExitNothing}
	}
	return nil
}

// resumed reads the run that --resume names, if any, and takes from it
// what the run was given (matrix, profile, selection, network, seed,
// order, folder and label), unless said again on this command line.
func (o *runOpts) resumed(fs *flag.FlagSet) (*results.Run, error) {
	if o.resume == "" {
		return nil, nil
	}
	mf := &o.mf
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if o.out != "" && filepath.Clean(o.out) != filepath.Clean(o.resume) {
		return nil, usageErr("run: --resume %s writes to its own folder; drop --out", o.resume)
	}
	prev, err := results.Read(o.resume)
	if err != nil {
		return nil, withCode(ExitUsage, fmt.Errorf("--resume: %w", err))
	}
	if prev.FinishedAt != nil {
		return nil, usageErr("run: --resume %s: that run finished at %s; there is nothing to resume", o.resume, prev.FinishedAt.Format(time.RFC3339))
	}
	o.out, o.label = o.resume, prev.Environment.Label
	// What the run was given, unless said again.
	for name, v := range map[string]*string{"f": &mf.file, "profiles": &mf.profiles, "profile": &mf.profile, "only": &mf.only, "control": &mf.control, "generator": &mf.generator, "crosscheck": &mf.crosscheck} {
		if set[name] {
			continue
		}
		switch name {
		case "f":
			if prev.Matrix.Path != "" {
				*v = prev.Matrix.Path
			}
		case "profiles":
			*v = prev.Matrix.Profiles
		case "profile":
			*v = prev.Matrix.Profile
		case "only":
			*v = prev.Matrix.Only
		case "control":
			*v = prev.Matrix.Control
		case "generator":
			*v = strings.Join(prev.Matrix.Generators, ",")
		case "crosscheck":
			*v = prev.Matrix.Crosscheck
		}
	}
	// The settings the run was given, then those given now, which win.
	var recorded []matrix.Setting
	for _, kv := range prev.Matrix.Set {
		s, err := matrix.ParseSet(kv)
		if err != nil {
			return nil, usageErr("--resume: %s records set %q: %v", filepath.Join(o.resume, "results.json"), kv, err)
		}
		s.Flag = filepath.Join(o.resume, "results.json") + ": set " + kv
		recorded = append(recorded, s)
	}
	mf.set = append(recorded, mf.set...)
	if !set["network"] {
		o.network = string(prev.Environment.NetworkMode)
	}
	if o.seed == 0 {
		o.seed = prev.Matrix.Seed
	}
	o.sequential = prev.Matrix.Order == results.Sequential
	o.noCeiling = o.noCeiling || prev.Matrix.NoCeiling
	return prev, nil
}

// draw writes a run's README.md and charts into out, and the index beside
// it when there is one. Measuring is the runner's; drawing is done here,
// from what it measured, also after an interrupt.
func draw(out string, res *results.Run, stderr io.Writer) error {
	if err := safefile.NoLinks(out, "charts"); err != nil {
		return fmt.Errorf("writing README.md and charts: %w", err)
	}
	// After an interrupt too: a second signal, not the first, stops it.
	left, err := report.WriteDir(context.Background(), out, res)
	if err != nil {
		return fmt.Errorf("writing README.md and charts: %w", err)
	}
	warnLeft(stderr, out, left)
	parent := filepath.Dir(filepath.Clean(out))
	if err := safefile.Check(filepath.Join(parent, "README.md"), MaxIndexSize); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("updating the index beside %s: %w", out, err)
	}
	if why := leaveIndex(context.Background(), out); why != "" {
		fmt.Fprintln(stderr, why)
		return nil
	}
	did, err := report.IndexIfPresent(parent)
	if err != nil {
		return fmt.Errorf("updating the index beside %s: %w", out, err)
	}
	if did {
		// The index lists every result set in the folder, so that what a
		// run leaves is consistent with what the tests check (README.md,
		// "What a run leaves").
		fmt.Fprintf(stderr, "index updated: %s\n", filepath.Join(parent, "README.md"))
	}
	return nil
}

// warnLeft warns with what the report's caps left out of dir's README.md
// and charts, which the README also says at its top.
func warnLeft(stderr io.Writer, dir string, left []string) {
	for _, l := range left {
		fmt.Fprintf(stderr, "warning: %s is capped: %s\n", filepath.Join(dir, "README.md"), l)
	}
}

// MaxIndexSize bounds the README.md that index rewrites (the committed
// one is a few KB).
const MaxIndexSize = report.MaxIndexSize

// validLabel is a label that is one file name and needs no escaping.
var validLabel = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// QuickProfile is the profile of make matrix, whose runs keep the
// machine's label as it is; a run with another profile appends its name.
const QuickProfile = "quick"

// labelFor is the default label of a run of profile with the selection
// only, and with settings given on the command line when set: a profile's
// run does not overwrite the machine's quick run, and a try with --only or
// with --trials, --set … does not overwrite the run of every cell with the
// profile's settings, which may be committed.
func labelFor(machine, profile, only string, set bool) string {
	if profile != "" && profile != QuickProfile {
		machine += "-" + profile
	}
	if set {
		machine += "-set"
	}
	if only != "" {
		machine += "-only"
	}
	return machine
}

// DefaultLabel names a machine by its core count and CPU model, e.g.
// "2c-amd-epyc" or "8c-intel-core-i7-10510u-cpu-1-80ghz".
func DefaultLabel(ncpu int, model string) string {
	slug := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(model), "-"), "-")
	for _, noise := range []string{"-r-", "-tm-", "-processor"} {
		slug = strings.ReplaceAll(slug, noise, "-")
	}
	slug = strings.Trim(slug, "-") // "Intel(R) Xeon(R) Processor" ends in a removed word
	if len(slug) > 40 {
		slug = strings.TrimRight(slug[:40], "-")
	}
	if slug == "" {
		slug, _ = os.Hostname()
	}
	return fmt.Sprintf("%dc-%s", ncpu, slug)
}

type reportOpts struct{ format string }

func (o *reportOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.format, "format", "md", "`md|csv|json`: DIR/README.md and charts, DIR/results.csv, or the tables' model as JSON on stdout")
}

// reportCmd re-renders a results folder. The first signal (ctx) stops the
// render before it writes anything; the command then exits 130.
func reportCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o reportOpts
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	o.register(fs)
	format := &o.format
	pos, err := parseFlags(fs, args, 1, 1, stdout, stderr)
	if err != nil {
		return err
	}
	files := map[string]string{"md": "README.md", "csv": "results.csv", "json": "(stdout)"}
	if files[*format] == "" {
		return usageErr("report: --format must be md, csv or json, got %q", *format)
	}
	dir := pos[0]
	run, err := results.Read(dir)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if *format == "md" {
		if err := safefile.NoLinks(dir, "charts"); err != nil {
			return usageErr("report: %v", err)
		}
		left, err := report.WriteDir(ctx, dir, run)
		if err != nil {
			return reportErr(ctx, dir, err)
		}
		warnLeft(stderr, dir, left)
		fmt.Fprintln(stdout, filepath.Join(dir, "README.md"))
		return nil
	}
	if *format == "json" {
		return report.JSON(stdout, run)
	}
	var b strings.Builder
	if err := report.CSV(ctx, &b, run); err != nil {
		return reportErr(ctx, dir, err)
	}
	path := filepath.Join(dir, files[*format])
	if err := results.WriteFileAtomic(path, []byte(b.String())); err != nil {
		return err
	}
	fmt.Fprintln(stdout, path)
	return nil
}

// reportErr is err, or when ctx was cancelled (a signal) an exit 130 that
// says what the interrupted render left as it was.
func reportErr(ctx context.Context, dir string, err error) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("report: interrupted: %s is as it was", dir)}
	}
	return err
}

// writeJSON writes v as indented JSON, the form every --format json takes.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func index(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("index", flag.ContinueOnError)
	pos, err := parseFlags(fs, args, 0, 1, stdout, stderr)
	if err != nil {
		return err
	}
	dir := "results"
	if len(pos) == 1 {
		dir = pos[0]
	}
	// A FIFO there would hang the index, a link to /dev/zero fill memory.
	if err := safefile.Check(filepath.Join(dir, "README.md"), MaxIndexSize); err != nil && !errors.Is(err, os.ErrNotExist) {
		return usageErr("index: %v", err)
	}
	if err := report.Index(dir); err != nil {
		return err
	}
	fmt.Fprintln(stdout, filepath.Join(dir, "README.md"))
	return nil
}

// Stdin is where clean --all reads its confirmation; tests replace it.
var Stdin io.Reader = os.Stdin

type cleanOpts struct {
	all, force bool
	engine     string
}

func (o *cleanOpts) register(fs *flag.FlagSet) {
	fs.BoolVar(&o.all, "all", false, "also remove the containers and networks of runs still going (asks first)")
	fs.BoolVar(&o.force, "force", false, "with --all: do not ask")
	fs.StringVar(&o.engine, "engine", "", "the engine `E` to clean: a URL (unix://, tcp://, ssh://user@host) or a docker context name (default: the environment's)")
}

func clean(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o cleanOpts
	fs := flag.NewFlagSet("clean", flag.ContinueOnError)
	o.register(fs)
	all, force, spec := &o.all, &o.force, &o.engine
	if _, err := parseFlags(fs, args, 0, 0, stdout, stderr); err != nil {
		return err
	}
	if *force && !*all {
		return usageErr("clean: --force goes with --all")
	}
	if *spec != "" {
		if err := matrix.CheckEngine(*spec); err != nil {
			return usageErr("clean: --engine: %v", err)
		}
	}
	eng, err := engine.Dial(ctx, *spec, *spec)
	if err != nil {
		return err
	}
	defer eng.Close()
	if *all && !*force {
		live, err := eng.List(ctx)
		if err != nil {
			return err
		}
		if len(live) > 0 {
			fmt.Fprintf(stdout, "remove %d container(s) and network(s), including those of runs still measuring? [y/N] ", len(live))
			answer, _ := bufio.NewReader(Stdin).ReadString('\n')
			if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
				fmt.Fprintln(stdout, "nothing removed")
				return nil
			}
		}
	}
	gone, err := eng.Reap(ctx, *all)
	for _, g := range gone {
		fmt.Fprintln(stdout, "removed", g)
	}
	if err != nil {
		return err
	}
	if len(gone) == 0 {
		fmt.Fprintln(stdout, "nothing to clean")
	}
	return nil
}
