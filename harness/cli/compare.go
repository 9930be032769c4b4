package cli

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/webbench/webbench/harness/compare"
	"github.com/webbench/webbench/harness/results"
)

type compareOpts struct {
	out, format      string
	machineFloor     string
	failOnRegression bool
}

func (o *compareOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.out, "out", "", "write to `FILE` instead of stdout")
	fs.StringVar(&o.format, "format", "md", "`md|csv|json`")
	fs.StringVar(&o.machineFloor, "machine-floor", "", "judge by the drift between two earlier runs of the same cells on this machine, `DIR1,DIR2`, in place of the default allowance")
	fs.BoolVar(&o.failOnRegression, "fail-on-regression", false, "exit 1, naming them, when a later run is worse than the first beyond the floor or no longer holds a fixed rate, or cannot be compared with it (a cell failed, skipped or missing, nothing measured, other generator or cores, a floor too wide); a cell with too few trials to tell is named but does not fail")
}

func compareCmd(args []string, stdout, stderr io.Writer) error {
	var o compareOpts
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	o.register(fs)
	pos, err := parseFlags(fs, args, 2, -1, stdout, stderr)
	if err != nil {
		return err
	}
	if o.format != "md" && o.format != "csv" && o.format != "json" {
		return usageErr("compare: --format must be md, csv or json, got %q", o.format)
	}
	runs, err := readRuns(pos)
	if err != nil {
		return err
	}
	names := runNames(pos)
	var opts []compare.Option
	if o.machineFloor != "" {
		f, err := machineFloor(o.machineFloor, runs)
		if err != nil {
			return err
		}
		opts = append(opts, compare.WithMachineFloor(f))
	}
	c := compare.Build(names, runs, opts...)
	if err := writeComparison(c, o, stdout, stderr); err != nil {
		return err
	}
	if !o.failOnRegression {
		return nil
	}
	// Pass or fail, the gate says what it could not tell.
	untold := compare.CannotTellText(c)
	if len(c.Problems) > 0 {
		var lines []string
		for _, p := range c.Problems {
			lines = append(lines, "  "+string(p.Kind)+": "+p.String())
		}
		if untold != "" {
			lines = append(lines, "and, not counted: "+untold)
		}
		return withCode(ExitFailed, fmt.Errorf("compare: the gate fails on %d problem(s):\n%s", len(c.Problems), strings.Join(lines, "\n")))
	}
	// A pass says what it judged by, and what it left out.
	fmt.Fprintf(stderr, "compare: the gate passes. %s\n", compare.FloorText(c.Floor))
	if untold != "" {
		fmt.Fprintf(stderr, "compare: %s\n", untold)
	}
	if len(c.Unmatched) > 0 {
		fmt.Fprintf(stderr, "compare: %d cell(s) are not in every run and were not judged\n", len(c.Unmatched))
	}
	return nil
}

// runNames names the compared runs by their folders, apart: two folders
// of one name (a/results, b/results) by their paths, one folder given
// twice by its place too, so that no column or sentence names two runs.
func runNames(dirs []string) []string {
	names := make([]string, len(dirs))
	count := map[string]int{}
	for i, d := range dirs {
		names[i] = filepath.Base(filepath.Clean(d))
		count[names[i]]++
	}
	for i, d := range dirs {
		if count[names[i]] > 1 {
			names[i] = filepath.Clean(d)
		}
	}
	seen := map[string]int{}
	for i, n := range names {
		if seen[n]++; seen[n] > 1 {
			names[i] = fmt.Sprintf("%s (#%d)", n, i+1)
		}
	}
	return names
}

func readRuns(dirs []string) ([]*results.Run, error) {
	var runs []*results.Run
	for _, dir := range dirs {
		run, err := compare.Read(dir)
		if err != nil {
			return nil, withCode(ExitUsage, err)
		}
		runs = append(runs, run)
	}
	return runs, nil
}

// machineFloor measures the drift between the two runs of --machine-floor,
// which must have been measured on the compared runs' machine.
func machineFloor(flagValue string, runs []*results.Run) (compare.Floor, error) {
	dirs := strings.Split(flagValue, ",")
	if len(dirs) != 2 {
		return compare.Floor{}, usageErr("compare: --machine-floor takes two result folders, DIR1,DIR2, got %q", flagValue)
	}
	pair, err := readRuns(dirs)
	if err != nil {
		return compare.Floor{}, err
	}
	drift, err := compare.Drift(pair[0], pair[1])
	if err != nil {
		return compare.Floor{}, usageErr("compare: --machine-floor %s: %v", flagValue, err)
	}
	if !compare.SameMachine(pair[0].Environment, runs) {
		return compare.Floor{}, usageErr("compare: --machine-floor %s: measured on %s (%d cpus), not on the machine of every compared run", flagValue, pair[0].Environment.CPUModel, pair[0].Environment.OnlineCPUs)
	}
	return compare.Floor{Width: drift, From: strings.Join(dirs, " and ")}, nil
}

func writeComparison(c *compare.Comparison, o compareOpts, stdout, stderr io.Writer) error {
	var b strings.Builder
	var err error
	switch o.format {
	case "csv":
		err = compare.CSV(&b, c)
	case "json":
		err = writeJSON(&b, struct {
			*compare.Comparison
			Regressions []compare.Regression `json:"regressions"`
		}{c, c.Regressions()})
	default:
		var left []string
		left, err = compare.Markdown(&b, c)
		for _, l := range left {
			fmt.Fprintln(stderr, "compare: capped:", l)
		}
	}
	if err != nil {
		return err
	}
	if o.out == "" {
		_, err := io.WriteString(stdout, b.String())
		return err
	}
	if err := results.WriteFileAtomic(o.out, []byte(b.String())); err != nil {
		return err
	}
	fmt.Fprintln(stdout, o.out)
	return nil
}
