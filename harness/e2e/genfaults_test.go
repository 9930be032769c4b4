package e2e

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/cli"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/results"
)

// Faults of a load from several generator engines, for real, each failing
// only what it must and leaving nothing on any engine:
//   - a generator engine unreachable at start stops the run before any
//     load, naming that engine (every cell needs every generator);
//   - a generator container killed (docker kill, from this test) while its
//     tool runs a trial fails that cell, naming the engine; the harness
//     starts the generator again and the next cell is measured by both.
//
// The measured cell also shows the real clock reading: both engines read
// this machine's clock, and each generator's recorded offset lies within
// what its reading's round trip allows, so no clock is judged apart.
func TestGeneratorFaults(t *testing.T) {
	eng := connect(t)
	ctx := context.Background()
	counter := countAnswers(t)
	file := writeMatrixTrials(t, "host", "0", "3s", "counter")
	text := strings.Replace(readFile(t, file), "cpus: [1]", "cpus: [1]\nrate: [400, 200]\ngenerator: [openloop]", 1)
	text = strings.Replace(text, "trials: 2", "trials: 1", 1)
	text = strings.Replace(text, "    port: 8080", "    port: 8080\n    env: {COUNT_TO: \""+counter.ln.Addr().String()+"\"}", 1)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}

	code, said := runCLI(ctx, t, "run", "-f", file, "--out", t.TempDir(), "--no-ceiling", "--loadgen-engine", "default,tcp://127.0.0.1:1", "--target-address", "127.0.0.1")
	noLeftovers(t, eng)
	if code != cli.ExitFailed || !strings.Contains(said, "engine loadgen2 (tcp://127.0.0.1:1) not reachable") {
		t.Errorf("a generator engine unreachable at start: exit %d; want %d, naming engine loadgen2", code, cli.ExitFailed)
	}

	second := startSecondEngine(t)
	eng2, err := engine.Dial(ctx, "second", second.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer eng2.Close()
	killed := make(chan string, 1)
	kctx, stop := context.WithCancel(ctx)
	go func() { killed <- killUnderTrial(kctx, second.Host, "openloop ") }()
	out := t.TempDir()
	hostEnd := strings.TrimSuffix(second.Addr, ".2") + ".1"
	code, _ = runCLI(ctx, t, "run", "-f", file, "--out", out, "--sequential", "--no-ceiling", "--loadgen-engine", "default,"+second.Host,
		"--target-address", hostEnd, "--link", "veth pair between two network namespaces of one machine")
	stop()
	noLeftovers(t, eng)
	noLeftovers(t, eng2)
	if why := <-killed; why != "" {
		t.Fatalf("the generator on the second engine was not killed under a trial: %s", why)
	}
	run, err := results.Read(out)
	if code != cli.ExitFailed || err != nil || len(run.Cells) != 2 {
		t.Fatalf("exit %d (want %d: one cell failed), %v, %d cells", code, cli.ExitFailed, err, len(run.Cells))
	}
	failed, ok := run.Cells[0], run.Cells[1] // in the order they ran
	if failed.Status != results.Failed || !strings.Contains(failed.Reason, "load generator on engine loadgen2: ") ||
		!strings.Contains(failed.Reason, "vanished or stopped") || !hasWarning(failed, "engine loadgen2 vanished or stopped, and was started again") {
		t.Errorf("%s: %s %q, warnings %q: want failed, naming engine loadgen2, and the generator started again", failed.ID(), failed.Status, failed.Reason, failed.Warnings)
	}
	if ok.Status != results.OK || len(ok.Trials) != 1 || ok.Trials[0].Spread == nil || len(ok.Trials[0].Spread.Generators) != 2 {
		t.Fatalf("%s after the kill: %s %q: want measured by both generators", ok.ID(), ok.Status, ok.Reason)
	}
	for _, g := range ok.Trials[0].Spread.Generators {
		t.Logf("%s: engine %s: clock offset %.3f ms ± %.3f ms, %d answers", ok.ID(), g.Engine, g.ClockOffsetMS, g.ClockWithinMS, g.Requests)
		if g.Requests <= 0 || g.ClockWithinMS <= 0 || math.Abs(g.ClockOffsetMS) > g.ClockWithinMS+0.001 {
			t.Errorf("%s: engine %s: %+v: want answers, and an offset within its reading's round trip (one clock)", ok.ID(), g.Engine, g)
		}
	}
}

// killUnderTrial waits for the run's load generator container on the
// engine at host to run tool (generatorRuns), lets it run a second, and
// kills the container. It returns why it did not, "" when it did.
func killUnderTrial(ctx context.Context, host, tool string) string {
	seen := "no container"
	for ctx.Err() == nil {
		time.Sleep(100 * time.Millisecond)
		id, runs, s := generatorRuns(ctx, host, tool)
		if seen = s; !runs {
			continue
		}
		time.Sleep(time.Second)
		if _, err := dockerCLI(ctx, host, "kill", id); err != nil {
			return "docker kill: " + err.Error()
		}
		return ""
	}
	return "the run ended first; last seen: " + seen
}
