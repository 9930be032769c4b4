package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/stats"
)

// steadiness asks whether one core, by itself, is steady enough for the
// A/A floors a run needs. It runs a fixed CPU-bound workload (an
// encoding/json round trip of study 002's records, the work its
// reflection endpoint does) pinned with taskset to the core a target gets,
// in windows as long as a trial, each in a fresh process as each trial is
// a fresh container (-reuse: all in one process). Windows go in pairs back
// to back, which of the two counts as "A" alternating from pair to pair,
// and the pairs' ratios give the floor exactly as analysis.NoiseFloors
// gives a run's. No network, container or load generator is involved: a
// floor here as wide as a run's says the run's noise is the machine's.
func steadiness(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("steadiness", flag.ContinueOnError)
	core := fs.Int("core", 0, "core to pin the workload to (targets get core 0 first)")
	window := fs.Duration("window", 15*time.Second, "length of one window (a trial's length)")
	pairs := fs.Int("pairs", 12, "A/A pairs of windows")
	records := fs.Int("records", 100, "records per round trip")
	reuse := fs.Bool("reuse", false, "all windows in one process instead of one process per window")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *pairs < 1 || *window <= 0 || *records < 1 {
		return fmt.Errorf("steadiness: -pairs, -window and -records must be positive")
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	spinFor := func(windows int) ([]float64, error) {
		cmd := exec.CommandContext(ctx, "taskset", "-c", strconv.Itoa(*core), self, "spin",
			"-window", window.String(), "-windows", strconv.Itoa(windows), "-records", strconv.Itoa(*records))
		cmd.Stderr = stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("spin under taskset: %w", err)
		}
		return parseRates(out, windows)
	}
	var rates []float64
	if *reuse {
		fmt.Fprintf(stderr, "%d windows of %s in one process\n", 2**pairs, *window)
		if rates, err = spinFor(2 * *pairs); err != nil {
			return err
		}
	} else {
		for i := range 2 * *pairs {
			fmt.Fprintf(stderr, "window %d/%d\n", i+1, 2**pairs)
			r, err := spinFor(1)
			if err != nil {
				return err
			}
			rates = append(rates, r...)
		}
	}
	pr := aaFloor(rates)
	w := stats.Describe(rates)
	how := "each in a fresh process"
	if *reuse {
		how = "all in one process"
	}
	fmt.Fprintf(stdout, "steadiness of core %d: encoding/json round trip of %d records, %d windows of %s back to back, %s (taskset -c %d)\n",
		*core, *records, len(rates), *window, how, *core)
	fmt.Fprintf(stdout, "windows: median %.0f round trips/s, CV %.1f%%, min…max %.0f…%.0f\n", w.Median, 100*w.CV, w.Min, w.Max)
	interval := fmt.Sprintf("95%% CI %.3f…%.3f", pr.Lo, pr.Hi)
	if !pr.HasCI {
		interval = fmt.Sprintf("min…max %.3f…%.3f, too few pairs for an interval", pr.Lo, pr.Hi)
	}
	fmt.Fprintf(stdout, "A/A floor: ±%.1f%% (%d pairs, ratio %.3f, %s)\n", 100*pr.Floor(), pr.N, pr.Ratio, interval)
	fmt.Fprintf(stdout, "rates: %v\n", rounded(rates, 0))
	return nil
}

// aaFloor pairs windows 2k and 2k+1, the first of them counting as "A" in
// even pairs and as "B" in odd ones (so that a steady trend falls on both
// sides alike), and returns A ÷ B as analysis.Paired computes it (its
// Floor is the one analysis.NoiseFloors reports). An odd last window is
// unpaired; N is 0 without a pair.
func aaFloor(rates []float64) analysis.PairedRatio {
	a, b := &results.Cell{}, &results.Cell{}
	for k := 0; 2*k+1 < len(rates); k++ {
		first, second := rates[2*k], rates[2*k+1]
		if k%2 == 1 {
			first, second = second, first
		}
		a.Trials = append(a.Trials, results.Trial{Result: results.Result{RPS: first}})
		b.Trials = append(b.Trials, results.Trial{Result: results.Result{RPS: second}})
	}
	pr, _ := analysis.Paired(a, b)
	return pr
}

// parseRates reads spin's output: one rate per line, want of them.
func parseRates(out []byte, want int) ([]float64, error) {
	var rates []float64
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		r, err := strconv.ParseFloat(sc.Text(), 64)
		if err != nil || r <= 0 {
			return nil, fmt.Errorf("spin printed %q, not a rate", sc.Text())
		}
		rates = append(rates, r)
	}
	if len(rates) != want {
		return nil, fmt.Errorf("spin printed %d rates, want %d", len(rates), want)
	}
	return rates, nil
}

// record is one element of study 002's upstream answer (as
// targets/serialization/go/records.Record, a module of its own).
type record struct {
	Id   string
	Name string
	Time int64
}

// spin is steadiness's workload, run in its own process: for each of
// -windows windows of -window, it round-trips -records records through
// encoding/json as often as it can and prints the round trips per second.
func spin(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("spin", flag.ContinueOnError)
	window := fs.Duration("window", 15*time.Second, "length of one window")
	windows := fs.Int("windows", 1, "windows")
	n := fs.Int("records", 100, "records per round trip")
	if err := fs.Parse(args); err != nil {
		return err
	}
	recs := make([]record, *n)
	for i := range recs {
		recs[i] = record{Id: strconv.Itoa(i), Name: fmt.Sprintf("record %d", i), Time: 1_700_000_000 + int64(i)}
	}
	for range *windows {
		ops, start := 0, time.Now()
		for time.Since(start) < *window {
			b, err := json.Marshal(recs)
			if err != nil {
				return err
			}
			var back []record
			if err := json.Unmarshal(b, &back); err != nil {
				return err
			}
			if len(back) != len(recs) {
				return fmt.Errorf("round trip gave %d records, want %d", len(back), len(recs))
			}
			ops++
		}
		fmt.Fprintf(stdout, "%.3f\n", float64(ops)/time.Since(start).Seconds())
	}
	return nil
}
