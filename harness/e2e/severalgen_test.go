package e2e

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/merge"
	"github.com/webbench/webbench/harness/results"
)

// answerCounter reads what the counter target (testdata/counter) reports:
// one connection per container it starts, one byte per answer written.
type answerCounter struct {
	ln     net.Listener
	mu     sync.Mutex
	counts []int64 // per connection, in the order they came
	done   sync.WaitGroup
}

func countAnswers(t *testing.T) *answerCounter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := &answerCounter{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			a.mu.Lock()
			i := len(a.counts)
			a.counts = append(a.counts, 0)
			a.mu.Unlock()
			a.done.Go(func() {
				defer c.Close()
				n, _ := io.Copy(io.Discard, c)
				a.mu.Lock()
				a.counts[i] = n
				a.mu.Unlock()
			})
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return a
}

// visits are the answers of each container, once all are gone; it fails
// the test if one is still connected after a minute.
func (a *answerCounter) visits(t *testing.T) []int64 {
	t.Helper()
	closed := make(chan struct{})
	go func() { a.done.Wait(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(time.Minute):
		t.Fatal("a counter target's report connection is still open after its run ended")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]int64(nil), a.counts...)
}

// probesPerVisit are the answers the harness asks a target for before its
// load, in each visit: one to readiness and one to verification.
const probesPerVisit = 2

// A cell's load from two generator engines, for real: the target on this
// machine's engine, a generator on it and one on the second engine (in its
// network namespace), started together at the instant the harness hands
// out, their trials merged. The merged good count is what the target
// itself wrote: exactly for openloop, which waits for every answer, and to
// the requests in flight at the end for bombardier. openloop's latency is
// merged from both histograms; bombardier exports none, so its trials show
// no percentiles. Both generator machines, the split and each trial's
// spread are recorded, and the ceiling is measured by both generators.
func TestSeveralGenerators(t *testing.T) {
	eng := connect(t)
	second := startSecondEngine(t)
	ctx := context.Background()
	eng2, err := engine.Dial(ctx, "second", second.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer eng2.Close()
	counter := countAnswers(t)
	file := writeMatrixTrials(t, "host", "0", "4s", "counter")
	text := strings.Replace(readFile(t, file), "cpus: [1]", "cpus: [1]\nrate: [400]\ngenerator: [openloop, bombardier]", 1)
	text = strings.Replace(text, "    port: 8080", "    port: 8080\n    env: {COUNT_TO: \""+counter.ln.Addr().String()+"\"}", 1)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	hostEnd := strings.TrimSuffix(second.Addr, ".2") + ".1" // this machine's end of the veth pair
	out := t.TempDir()
	run := runOnEngines(ctx, t, eng, eng2, out, "run", "-f", file, "--sequential", "--loadgen-engine", "default,"+second.Host,
		"--target-address", hostEnd, "--link", "veth pair between two network namespaces of one machine")
	checkGeneratorMachines(t, run, second.Host)
	for _, ce := range run.Ceilings {
		if ce.Error != "" || ce.RPS <= 0 || len(ce.Split) != 2 {
			t.Errorf("ceiling %s c%d: %+v, want one measured by both generators", ce.GeneratorName(), ce.Connections, ce)
		}
	}
	visits := counter.visits(t)
	cells := cellsByID(run)
	ids := []string{"counter/plaintext/1cpu/c16/r400/openloop", "counter/plaintext/1cpu/c16/r400"} // the order they ran in
	if len(visits) != len(ids) {
		t.Fatalf("the target reported %d visits (%v), want %d", len(visits), visits, len(ids))
	}
	for i, id := range ids {
		c := cells[id]
		if c == nil || c.Status != results.OK || len(c.Trials) != 2 {
			t.Fatalf("%s: %+v", id, c)
		}
		checkSplit(t, c)
		var good, bad int64
		for k, tr := range c.Trials {
			checkSpread(t, id, k+1, tr)
			good, bad = good+tr.Requests, bad+tr.Errors
		}
		// The answers the target wrote beyond the good ones the generators
		// counted: none for openloop, at most one per connection for
		// bombardier (in flight when its time ran out).
		beyond, inFlight := visits[i]-probesPerVisit-good, int64(0)
		if c.GeneratorName() == "bombardier" {
			inFlight = int64(c.Connections)
		}
		t.Logf("%s: the target wrote %d answers (%d to the harness's probes), the generators counted %d good and %d failed", id, visits[i], probesPerVisit, good, bad)
		if bad != 0 || beyond < 0 || beyond > inFlight {
			t.Errorf("%s: the target wrote %d answers, %d of them to probes; the merged trials counted %d good, %d failed: want the same count, to %d in flight",
				id, visits[i], probesPerVisit, good, bad, inFlight)
		}
	}
	// openloop schedules exactly its rate × the duration: each generator
	// its share of the rate, and the trial their sum.
	ol := cells[ids[0]]
	for k, tr := range ol.Trials {
		if tr.LatencyMS.P50 <= 0 || tr.LatencyMS.P99 < tr.LatencyMS.P50 || tr.OpenLoop == nil || tr.OpenLoop.Histogram == "" {
			t.Fatalf("openloop: latency %+v, schedule %+v: want percentiles merged from both histograms", tr.LatencyMS, tr.OpenLoop)
		}
		if tr.OpenLoop.Scheduled != int64(ol.Rate*4) {
			t.Errorf("openloop trial %d: %d sends scheduled, want %d/s × 4 s", k+1, tr.OpenLoop.Scheduled, ol.Rate)
		}
		for i, g := range tr.Spread.Generators {
			if want := int64(ol.Split[i].Rate * 4); g.Requests != want {
				t.Errorf("openloop trial %d: engine %s answered %d, want its share %d/s × 4 s", k+1, g.Engine, g.Requests, ol.Split[i].Rate)
			}
		}
	}
	bomb := cells[ids[1]]
	if tr := bomb.Trials[0]; tr.LatencyMS.P50 != 0 || tr.LatencyMS.P99 != 0 || len(tr.Spread.NoLatency) != 2 || !hasWarning(bomb, "no latency percentiles") {
		t.Errorf("bombardier: latency %+v, warnings %q: want no percentiles, and why", tr.LatencyMS, bomb.Warnings)
	}
	readme, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil || !strings.Contains(string(readme), "loadgen2") {
		t.Errorf("README does not show the second generator machine (%v)", err)
	}
}

// checkGeneratorMachines checks that the run recorded the targets' machine
// and both generator machines.
func checkGeneratorMachines(t *testing.T, run *results.Run, secondHost string) {
	t.Helper()
	ms := run.Environment.Machines
	if len(ms) != 3 || ms[0].Role != results.RoleTarget || ms[0].Engine != "default" ||
		ms[1].Role != results.RoleLoadgen || ms[1].Engine != "default" || ms[2].Role != results.RoleLoadgen || ms[2].Engine != "loadgen2" || ms[2].Host != secondHost {
		t.Fatalf("machines %+v: want the targets' and two generators'", ms)
	}
	for _, m := range ms {
		if m.CPUModel == "" || m.CPUModel == "unknown" || m.OnlineCPUs < 1 || m.DockerVersion == "" {
			t.Errorf("machine %+v not recorded whole", m)
		}
	}
}

// checkSplit checks c's load was divided in two, the remainder first.
func checkSplit(t *testing.T, c *results.Cell) {
	t.Helper()
	s := c.Split
	if len(s) != 2 || s[0].Engine != "default" || s[1].Engine != "loadgen2" || s[0].Connections+s[1].Connections != c.Connections ||
		s[0].Connections < s[1].Connections || s[0].Rate+s[1].Rate != c.Rate || s[0].CPUSet == "" {
		t.Errorf("%s: split %+v of %d connections at %d/s", c.ID(), s, c.Connections, c.Rate)
	}
}

// checkSpread checks trial k's record of its two generators.
func checkSpread(t *testing.T, id string, k int, tr results.Trial) {
	t.Helper()
	sp := tr.Spread
	if sp == nil || len(sp.Generators) != 2 || sp.Overlap < merge.MinOverlap || sp.SkewMS < 0 || sp.StartAt.IsZero() {
		t.Errorf("%s trial %d: spread %+v", id, k, sp)
		return
	}
	for _, g := range sp.Generators {
		if g.Requests <= 0 || g.StartedAt.Before(sp.StartAt.Add(-time.Second)) || !g.StoppedAt.After(g.StartedAt) {
			t.Errorf("%s trial %d: generator %+v (start instant %s)", id, k, g, sp.StartAt)
		}
	}
	t.Logf("%s trial %d: skew %.3f ms, overlap %.4f, %.0f rps merged", id, k, sp.SkewMS, sp.Overlap, tr.RPS)
}

func hasWarning(c *results.Cell, part string) bool {
	for _, w := range c.Warnings {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}
