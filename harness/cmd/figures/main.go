// Command figures produces the figures the project quotes about the harness
// itself: fidelity (harness RPS over the same server run bare on the host)
// and overhead (wall time per cell beyond warm-up and trials).
//
//	figures fidelity [-f matrix.yaml] [-duration 10s] [-trials 3] [-connections 64] [-network host]
//	figures overhead DIR
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
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
		return fmt.Errorf("usage: figures fidelity|overhead …")
	}
	switch args[0] {
	case "fidelity":
		return fidelity(ctx, args[1:], stdout, stderr)
	case "overhead":
		if len(args) != 2 {
			return fmt.Errorf("usage: figures overhead DIR")
		}
		return overhead(args[1], stdout)
	}
	return fmt.Errorf("unknown figure %q", args[0])
}

// fidelity measures go-nethttp/plaintext on core 0 twice in one go: through
// the harness (containers, bridge network, bombardier in a container on
// core 1) and bare on the host (taskset -c 0 server, taskset -c 1
// bombardier on loopback), and prints the ratio of the medians.
func fidelity(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fidelity", flag.ContinueOnError)
	file := fs.String("f", "matrix.yaml", "matrix file holding the go-nethttp target")
	duration := fs.Duration("duration", 10*time.Second, "per trial")
	trials := fs.Int("trials", 3, "trials on each side")
	conns := fs.Int("connections", 64, "connections")
	network := fs.String("network", "", "network mode of the harness side: bridge (the matrix's default) or host")
	if err := fs.Parse(args); err != nil {
		return err
	}
	m, err := matrix.Open(*file)
	if err != nil {
		return err
	}
	m.Load.Duration, m.Load.Requests, m.Load.Trials, m.Load.Warmup = *duration, 0, *trials, 3*time.Second
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

	server, bomb := filepath.Join(tmp, "server"), filepath.Join(tmp, "bombardier")
	build := exec.CommandContext(ctx, "go", "build", "-o", server, ".")
	build.Dir, build.Env = target.Services[0].Build, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("build server: %v\n%s", err, out)
	}
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bomb, "github.com/codesenberg/bombardier").CombinedOutput(); err != nil {
		return fmt.Errorf("build bombardier: %v\n%s", err, out)
	}
	const port = "18080"
	srv := exec.CommandContext(ctx, "taskset", "-c", "0", server)
	srv.Env = append(os.Environ(), "PORT="+port)
	if err := srv.Start(); err != nil {
		return fmt.Errorf("start server under taskset: %w", err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	spec := loadgen.Spec{URL: "http://127.0.0.1:" + port + "/plaintext", Connections: *conns, Timeout: m.Load.Timeout}
	bare := func(d time.Duration, n int64) (float64, error) {
		s := spec
		s.Duration, s.Requests = d, n
		out, err := exec.CommandContext(ctx, "taskset", append([]string{"-c", "1", bomb}, loadgen.Args(s)...)...).Output()
		if err != nil {
			return 0, fmt.Errorf("bombardier: %w", err)
		}
		r, err := loadgen.Parse(out, 200)
		return r.RPS, err
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		if _, err := bare(0, 10); err == nil {
			break
		} else if time.Now().After(deadline) {
			return fmt.Errorf("bare server never answered: %w", err)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Alternate the two sides, one trial each per round, so that drift of a
	// noisy machine falls on both alike.
	m.Load.Trials = 1
	var inDockerRPS, onHostRPS []float64
	mode := ""
	for i := range *trials {
		fmt.Fprintf(stderr, "round %d/%d: harness side (go-nethttp/plaintext in Docker, 1 core)\n", i+1, *trials)
		res, err := runner.Run(ctx, eng, runner.Options{Matrix: m, Only: "go-nethttp/plaintext", OutDir: filepath.Join(tmp, "run"),
			Label: "fidelity", HarnessVersion: "figures", Log: io.Discard, Network: matrix.Network(*network)})
		if err != nil {
			return err
		}
		if len(res.Cells) != 1 || res.Cells[0].Status != results.OK {
			return fmt.Errorf("harness cell did not succeed: %s", res.Cells[0].Reason)
		}
		inDockerRPS = append(inDockerRPS, res.Cells[0].Summary.RPSMedian)
		mode = string(res.Environment.NetworkMode)
		fmt.Fprintf(stderr, "round %d/%d: bare side (same server and bombardier under taskset)\n", i+1, *trials)
		if _, err := bare(m.Load.Warmup, 0); err != nil {
			return err
		}
		x, err := bare(*duration, 0)
		if err != nil {
			return err
		}
		onHostRPS = append(onHostRPS, x)
	}
	inDocker, onHost := stats.Describe(inDockerRPS).Median, stats.Describe(onHostRPS).Median
	fmt.Fprintf(stdout, "rounds: harness %v, bare %v\n", rounded(inDockerRPS), rounded(onHostRPS))
	fmt.Fprintf(stdout, "harness (Docker, %s network): %.0f rps median of %d × %s\n", mode, inDocker, *trials, *duration)
	fmt.Fprintf(stdout, "bare (taskset, loopback):      %.0f rps median of %d × %s\n", onHost, *trials, *duration)
	fmt.Fprintf(stdout, "fidelity = %.3f (goal ≥ 0.90)\n", inDocker/onHost)
	return nil
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
		if run.Matrix.Order == "interleaved" {
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

func rounded(xs []float64) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = int(x + 0.5)
	}
	return out
}
