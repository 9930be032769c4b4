package results

import (
	"errors"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// consistent is an ok cell of two trials whose every figure agrees.
func consistent() *Cell {
	tr := func(req, errs int64, p50, p99 float64) Trial {
		return Trial{Result: Result{RPS: float64(req) / 10, Requests: req, Errors: errs, ErrorRate: float64(errs) / float64(req+errs),
			Seconds: 10, LatencyMS: Latency{Mean: p50, P50: p50, P99: p99, Max: 2 * p99}}, TargetMemPeakMiB: 20}
	}
	c := &Cell{Target: "a", Scenario: "s", CPUs: 1, Connections: 8, Status: OK, LoadgenCPUSet: "1",
		Trials: []Trial{tr(10000, 0, 1, 3), tr(12000, 30, 1.2, 4)}}
	c.Summary = &Summary{Aggregate: AggregateMedian, RPS: 1100, RPSMedian: 1100, RPSMin: 1000, RPSMax: 1200, LatencyP50Median: 1.1,
		LatencyP99Median: 3.5, Errors: 30, ErrorRate: 30.0 / 22030, TargetMemPeakMiB: 20}
	return c
}

// Each forged figure a resume once copied verbatim, and its like, is
// named by its field.
func TestCheckRefusesForgedFigures(t *testing.T) {
	if err := consistent().Check(); err != nil {
		t.Fatalf("a consistent cell: %v", err)
	}
	for _, f := range []struct {
		name, field string
		trial       int
		forge       func(c *Cell)
	}{
		{"errors ten times the requests, error rate 0", "error_rate", 1, func(c *Cell) { c.Trials[0].Errors = 100000 }},
		{"summary error rate 0", "error_rate", 0, func(c *Cell) { c.Summary.ErrorRate = 0 }},
		{"summary errors", "errors", 0, func(c *Cell) { c.Summary.Errors = 0 }},
		{"p99 of 0.001 ms", "latency_ms.p99", 2, func(c *Cell) { c.Trials[1].LatencyMS.P99 = 0.001 }},
		{"p99 past the maximum", "latency_ms.p99", 1, func(c *Cell) { c.Trials[0].LatencyMS.P99 = 7 }},
		{"mean past the maximum", "latency_ms.mean", 1, func(c *Cell) { c.Trials[0].LatencyMS.Mean = 7 }},
		{"rps not its requests", "rps", 1, func(c *Cell) { c.Trials[0].RPS = 5000 }},
		{"rps of 1e9", "rps", 1, func(c *Cell) {
			c.Trials[0].Requests, c.Trials[0].RPS, c.Trials[0].ErrorRate = 1e10, 1e9, 0
		}},
		{"no duration", "seconds", 2, func(c *Cell) { c.Trials[1].Seconds = 0 }},
		{"headline beside the median", "rps", 0, func(c *Cell) { c.Summary.RPS = 1200 }},
		{"median outside the trials", "rps_median", 0, func(c *Cell) { c.Summary.RPSMedian, c.Summary.RPS = 5000, 5000 }},
		{"p99 median of 0.001 ms", "latency_ms_p99_median", 0, func(c *Cell) { c.Summary.LatencyP99Median = 0.001 }},
		{"generator-bound trials", "generator_bound_trials", 0, func(c *Cell) { c.Summary.GeneratorBound = 3 }},
	} {
		c := consistent()
		f.forge(c)
		var inc *Inconsistency
		if err := c.Check(); !errors.As(err, &inc) || inc.Field != f.field || inc.Trial != f.trial {
			t.Errorf("%s: %v, want %s of trial %d", f.name, err, f.field, f.trial)
		}
	}
}

func TestCeilingCheck(t *testing.T) {
	ok := Ceiling{CPUs: 1, CPUSet: "1", RPS: 50000, TrialRPS: []float64{48000, 50000, 52000}, LoadgenCPU: 0.5, RPSPerCPU: 100000}
	if err := ok.Check(); err != nil {
		t.Fatalf("a consistent ceiling: %v", err)
	}
	for name, forge := range map[string]func(*Ceiling){
		"1e9":                  func(c *Ceiling) { c.RPS, c.TrialRPS, c.RPSPerCPU = 1e9, []float64{1e9}, 2e9 },
		"outside its trials":   func(c *Ceiling) { c.RPS, c.RPSPerCPU = 90000, 180000 },
		"per CPU not its rate": func(c *Ceiling) { c.RPSPerCPU = 1e6 },
		"NaN":                  func(c *Ceiling) { c.RPS = math.NaN() },
	} {
		c := ok
		forge(&c)
		var inc *Inconsistency
		if err := c.Check(); !errors.As(err, &inc) {
			t.Errorf("%s: %v, want an Inconsistency", name, err)
		}
	}
}

// Every ok cell and every ceiling of every committed run (results/ and
// studies/, the measured ones; testdata is hand-written) is consistent:
// the checks refuse forgeries, not what the harness writes.
func TestCommittedRunsCheck(t *testing.T) {
	out, err := exec.Command("git", "-C", "../..", "ls-files", "results/*results.json", "studies/*results.json").Output()
	if err != nil {
		t.Skip("not a git checkout")
	}
	n := 0
	for _, p := range strings.Fields(string(out)) {
		run, err := Read(filepath.Dir(filepath.Join("../..", p)))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range run.Cells {
			if c.Status != OK {
				continue
			}
			n++
			if err := c.Check(); err != nil {
				t.Errorf("%s: %s: %v", p, c.ID(), err)
			}
		}
		for _, ce := range run.Ceilings {
			if err := ce.Check(); ce.Error == "" && err != nil {
				t.Errorf("%s: ceiling on %d cpus c%d: %v", p, ce.CPUs, ce.Connections, err)
			}
		}
	}
	if n == 0 {
		t.Fatal("no committed ok cell")
	}
}

// A forged ceiling is read as an error, which a resume drops and a report
// shows, never as a figure cells are judged against.
func TestDecodeMarksForgedCeiling(t *testing.T) {
	data := []byte(`{"schema":2,"cells":[],"ceilings":[{"cpus":1,"cpuset":"1","connections":8,"network_mode":"bridge","ceiling_rps":1e9,"trial_rps":[1e9]},` +
		`{"cpus":1,"cpuset":"1","connections":16,"network_mode":"bridge","ceiling_rps":50000,"trial_rps":[50000]}]}`)
	run, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if run.Ceilings[0].Error == "" || run.Ceilings[1].Error != "" {
		t.Errorf("ceiling errors %q and %q, want the first only", run.Ceilings[0].Error, run.Ceilings[1].Error)
	}
}
