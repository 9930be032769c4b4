// Command figures produces the figures the project quotes about the harness
// itself: fidelity (harness RPS over the same server run bare on the host)
// overhead (wall time per cell beyond warm-up and trials) and steadiness
// (the A/A floor of a fixed CPU-bound workload on one core, with no
// network, container or load generator in the way).
//
//	figures fidelity [-f matrix.yaml] [-duration 4s] [-rounds 8] [-connections 64] [-modes shared,bridge,host]
//	figures overhead DIR
//	figures steadiness [-core 0] [-window 15s] [-pairs 12] [-records 100] [-reuse]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/loadgen"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/runner"
	"github.com/webbench/webbench/harness/stats"
)

func main() {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "figures:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: figures fidelity|overhead|steadiness …")
	}
	switch args[0] {
	case "fidelity":
		return fidelity(ctx, args[1:], stdout, stderr)
	case "overhead":
		if len(args) != 2 {
			return fmt.Errorf("usage: figures overhead DIR")
		}
		return overhead(args[1], stdout)
	case "steadiness":
		return steadiness(ctx, args[1:], stdout, stderr)
	case "spin":
		return spin(args[1:], stdout)
	}
	return fmt.Errorf("unknown figure %q", args[0])
}

// fidelity measures go-nethttp/plaintext on core 0 through the harness
// (containers, bombardier in a container on core 1) in each network mode,
// and bare on the host (taskset -c 0 server, taskset -c 1 bombardier on
// loopback), in paired rounds: per round and mode one bare and one harness
// trial, their order alternating from round to round so that drift falls
// on both sides alike. It prints, per mode, the median of the paired
// ratios with its 95% interval: single ratios mean nothing on a machine
// that swings ±25% between back-to-back runs.
func fidelity(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fidelity", flag.ContinueOnError)
	file := fs.String("f", "matrix.yaml", "matrix file holding the go-nethttp target")
	duration := fs.Duration("duration", 4*time.Second, "per trial")
	rounds := fs.Int("rounds", 8, "paired rounds per mode")
	conns := fs.Int("connections", 64, "connections")
	modes := fs.String("modes", "shared,bridge,host", "network modes of the harness side")
	if err := fs.Parse(args); err != nil {
		return err
	}
	m, err := matrix.Open(*file)
	if err != nil {
		return err
	}
	m.Load.Duration, m.Load.Requests, m.Load.Trials, m.Load.Warmup = *duration, 0, 1, time.Second
	m.CPUs, m.Connections = []int{1}, []int{*conns}
	var target matrix.Target
	for _, t := range m.Targets {
		if t.Name == "go-nethttp" {
			target = t
		}
	}
	if target.Name == "" {
		return fmt.Errorf("%s has no go-nethttp target", *file)
	}

	eng, err := engine.Connect(ctx)
	if err != nil {
		return err
	}
	defer eng.Close()
	tmp, err := os.MkdirTemp("", "webbench-fidelity-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	f := &fidelityRun{ctx: ctx, eng: eng, m: m, tmp: tmp, duration: *duration}
	srv, err := f.startBare(target, *conns)
	if err != nil {
		return err
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	if err := f.awaitBare(); err != nil {
		return err
	}
	var order []matrix.Network
	for _, name := range strings.Split(*modes, ",") {
		mode := matrix.Network(strings.TrimSpace(name))
		if !slices.Contains(matrix.Networks, mode) {
			return fmt.Errorf("-modes: unknown network mode %q", mode)
		}
		order = append(order, mode)
	}
	sides, err := f.rounds(order, *rounds, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "fidelity of go-nethttp/plaintext, 1 core, c%d: harness ÷ bare (taskset, loopback), %d paired rounds of %s, order alternating\n",
		*conns, *rounds, *duration)
	for _, mode := range order {
		printFidelity(stdout, mode, sides[mode])
	}
	return nil
}

// fidelityRun is one fidelity measurement: the matrix its harness trials
// run, and the bare server and bombardier built into tmp.
type fidelityRun struct {
	ctx      context.Context
	eng      *engine.Engine
	m        *matrix.Matrix
	tmp      string
	duration time.Duration // per trial
	bomb     string        // the bombardier binary
	spec     loadgen.Spec  // the bare side's load
}

// fidelitySide holds, per round, the RPS of the harness trial and of the
// bare trial of one network mode.
type fidelitySide struct{ harness, bare []float64 }

// startBare builds target's server and bombardier on the host and starts
// the server on core 0, for the bare side's load of conns connections.
func (f *fidelityRun) startBare(target matrix.Target, conns int) (*exec.Cmd, error) {
	server := filepath.Join(f.tmp, "server")
	f.bomb = filepath.Join(f.tmp, "bombardier")
	build := exec.CommandContext(f.ctx, "go", "build", "-o", server, ".")
	build.Dir, build.Env = target.Services[0].Build, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build server: %v\n%s", err, out)
	}
	if out, err := exec.CommandContext(f.ctx, "go", "build", "-o", f.bomb, "github.com/codesenberg/bombardier").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build bombardier: %v\n%s", err, out)
	}
	const port = "18080"
	srv := exec.CommandContext(f.ctx, "taskset", "-c", "0", server)
	srv.Env = append(os.Environ(), "PORT="+port)
	if err := srv.Start(); err != nil {
		return nil, fmt.Errorf("start server under taskset: %w", err)
	}
	f.spec = loadgen.Spec{URL: "http://127.0.0.1:" + port + "/plaintext", Connections: conns, Timeout: f.m.Load.Timeout, Expect: 200}
	return srv, nil
}

// bare runs bombardier on core 1 against the bare server for d or n
// requests, and returns its RPS.
func (f *fidelityRun) bare(d time.Duration, n int64) (float64, error) {
	s := f.spec
	s.Duration, s.Requests = d, n
	argv := loadgen.Bombardier{}.Command(s)
	argv[0] = f.bomb // the binary built on the host, not the image's
	out, err := exec.CommandContext(f.ctx, "taskset", append([]string{"-c", "1"}, argv...)...).Output()
	if err != nil {
		return 0, fmt.Errorf("bombardier: %w", err)
	}
	r, err := loadgen.Bombardier{}.Parse(out, s)
	return r.RPS, err
}

// awaitBare waits up to 10 seconds for the bare server to answer.
func (f *fidelityRun) awaitBare() error {
	for deadline := time.Now().Add(10 * time.Second); ; {
		if _, err := f.bare(0, 10); err == nil {
			return nil
		} else if time.Now().After(deadline) {
			return fmt.Errorf("bare server never answered: %w", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// bareTrial is one warmed-up bare trial.
func (f *fidelityRun) bareTrial() (float64, error) {
	if _, err := f.bare(f.m.Load.Warmup, 0); err != nil {
		return 0, err
	}
	return f.bare(f.duration, 0)
}

// harnessTrial runs the go-nethttp/plaintext cell through the harness in
// network mode and returns its median RPS.
func (f *fidelityRun) harnessTrial(mode matrix.Network) (float64, error) {
	res, err := runner.Run(f.ctx, runner.Split(f.eng), runner.Options{Matrix: f.m, Only: "go-nethttp/plaintext", OutDir: filepath.Join(f.tmp, "run"),
		Label: "fidelity", HarnessVersion: "figures", Log: io.Discard, Network: mode, NoCeiling: true})
	if err != nil {
		return 0, err
	}
	if len(res.Cells) != 1 || res.Cells[0].Status != results.OK {
		return 0, fmt.Errorf("harness cell did not succeed: %s", res.Cells[0].Reason)
	}
	return res.Cells[0].Summary.RPSMedian, nil
}

// rounds runs the paired rounds: per round and mode one harness and one
// bare trial, harness first in even rounds and bare first in odd ones.
func (f *fidelityRun) rounds(order []matrix.Network, rounds int, stderr io.Writer) (map[matrix.Network]*fidelitySide, error) {
	sides := map[matrix.Network]*fidelitySide{}
	for _, mode := range order {
		sides[mode] = &fidelitySide{}
	}
	for round := range rounds {
		for _, mode := range order {
			fmt.Fprintf(stderr, "round %d/%d, %s: harness and bare\n", round+1, rounds, mode)
			var h, b float64
			var err error
			if round%2 == 0 {
				if h, err = f.harnessTrial(mode); err == nil {
					b, err = f.bareTrial()
				}
			} else if b, err = f.bareTrial(); err == nil {
				h, err = f.harnessTrial(mode)
			}
			if err != nil {
				return nil, err
			}
			sides[mode].harness, sides[mode].bare = append(sides[mode].harness, h), append(sides[mode].bare, b)
		}
	}
	return sides, nil
}

// printFidelity prints the line of one network mode: the median of its
// paired ratios with their 95% interval, and the medians of both sides.
func printFidelity(stdout io.Writer, mode matrix.Network, sd *fidelitySide) {
	var ratios []float64
	for i := range sd.harness {
		ratios = append(ratios, sd.harness[i]/sd.bare[i])
	}
	r := stats.Describe(ratios)
	interval := fmt.Sprintf("95%% CI %.3f…%.3f", r.Lo, r.Hi)
	if !r.HasCI {
		interval = fmt.Sprintf("min…max %.3f…%.3f (too few rounds for an interval)", r.Min, r.Max)
	}
	fmt.Fprintf(stdout, "%-7s %.3f (%s); harness median %.0f rps, bare median %.0f rps; ratios %v\n",
		mode+":", r.Median, interval, stats.Describe(sd.harness).Median, stats.Describe(sd.bare).Median, rounded(ratios, 3))
}

// overhead prints, per cell, the wall time spent beyond warm-ups and trials
// (container start, readiness, verification, sampling, removal); with
// interleaved trials a cell has one visit, and one warm-up, per trial.
func overhead(dir string, stdout io.Writer) error {
	run, err := results.Read(dir)
	if err != nil {
		return err
	}
	warm := time.Duration(run.Matrix.Load.Warmup)
	var total, measured float64
	n := 0
	for _, c := range run.Cells {
		if c.Status != results.OK {
			continue
		}
		visits := 1.0
		if run.Matrix.Order == "interleaved" || run.Matrix.Order == "duet" {
			visits = float64(len(c.Trials)) // each trial is its own visit with its own warm-up
		}
		m := visits * warm.Seconds()
		for _, t := range c.Trials {
			m += t.Seconds
		}
		fmt.Fprintf(stdout, "%-40s %6.2fs wall, %6.2fs warm-up+trials, overhead %5.2fs\n", c.ID(), c.Seconds, m, c.Seconds-m)
		total += c.Seconds
		measured += m
		n++
	}
	if n == 0 {
		return fmt.Errorf("%s: no ok cells", dir)
	}
	fmt.Fprintf(stdout, "mean overhead per cell: %.2fs over %d cells\n", (total-measured)/float64(n), n)
	if run.FinishedAt != nil {
		wall := run.FinishedAt.Sub(run.Environment.StartedAt).Seconds()
		fmt.Fprintf(stdout, "whole run: %.0fs wall, %.0fs in cells, %.0fs before/after cells (image checks, builds, load generator)\n", wall, total, wall-total)
	}
	return nil
}

// rounded rounds each value to the given decimals, for printing.
func rounded(xs []float64, decimals int) []float64 {
	p := math.Pow(10, float64(decimals))
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Round(x*p) / p
	}
	return out
}
