package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
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
	return countAnswersAt(t, "127.0.0.1")
}

// countAnswersAt is countAnswers listening on host, an address of this
// machine that the target's machine reaches.
func countAnswersAt(t *testing.T, host string) *answerCounter {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
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

// answerDelay is how long the counter target waits before each answer in
// TestSeveralGenerators: no latency a generator measures can be shorter.
const answerDelay = 10 * time.Millisecond

// trialSeconds is the length of TestSeveralGenerators' trials.
const trialSeconds = 2

// latencyMargin bounds how much longer than answerDelay a median latency
// may be: a bound that a wrong unit or a lost delay breaks, not a goal.
const latencyMargin = 250 * time.Millisecond

// A cell's load from two generator engines, for real, on three engines:
// the target on the second engine (in its network namespace), a generator
// on this machine's engine and one on a third engine in a namespace of its
// own, linked to the second's as machines on one LAN are. Both generators
// start together at the instant the harness hands out, and their trials
// are merged. The merged good count is what the target itself wrote:
// exactly for openloop, which waits for every answer, and to the requests
// in flight at the end for bombardier. The target waits answerDelay before
// each answer, and openloop's latency, merged from both histograms, shows
// it; bombardier exports no histogram, so its trials show no percentiles.
// All three machines, the split and each trial's spread are recorded, and
// the ceiling is measured by both generators.
func TestSeveralGenerators(t *testing.T) {
	eng := connect(t)
	second := startSecondEngine(t)
	third := startThirdEngine(t)
	ctx := context.Background()
	eng2, eng3 := dialEngine(ctx, t, "second", second.Host), dialEngine(ctx, t, "third", third.Host)
	counter := countAnswersAt(t, second.hostEnd())
	file := writeMatrixTrials(t, "host", "0", strconv.Itoa(trialSeconds)+"s", "counter")
	text := strings.Replace(readFile(t, file), "cpus: [1]", "cpus: [1]\nrate: [400]\ngenerator: [openloop, bombardier]", 1)
	text = strings.Replace(text, "    port: 8080", fmt.Sprintf("    port: 8080\n    env: {COUNT_TO: %q, ANSWER_DELAY: %q}", counter.ln.Addr(), answerDelay), 1)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	giveBuilt(ctx, t, eng, eng2, "counter")
	out := t.TempDir()
	run := runOnEngines(ctx, t, []*engine.Engine{eng, eng2, eng3}, out, "run", "-f", file, "--sequential",
		"--target-engine", second.Host, "--loadgen-engine", "default,"+third.Host, "--target-address", second.Addr,
		"--link", "veth pairs between three network namespaces of one machine")
	checkGeneratorMachines(t, run, second.Host, third.Host)
	for _, ce := range run.Ceilings {
		if ce.Error != "" || ce.RPS <= 0 || len(ce.Split) != 2 {
			t.Errorf("ceiling %s c%d: %+v, want one measured by both generators", ce.GeneratorName(), ce.Connections, ce)
		}
	}
	cells := cellsByID(run)
	ids := []string{"counter/plaintext/1cpu/c16/r400/openloop", "counter/plaintext/1cpu/c16/r400"} // the order they ran in
	checkCounted(ctx, t, eng2, counter.visits(t), cells, ids)
	checkDelayed(t, cells[ids[0]], cells[ids[1]])
	readme, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil || !strings.Contains(string(readme), "loadgen2") {
		t.Errorf("README does not show the second generator machine (%v)", err)
	}
}

// hostEnd is this machine's end of the veth pair to e's namespace.
func (e *secondEngine) hostEnd() string { return strings.TrimSuffix(e.Addr, ".2") + ".1" }

func dialEngine(ctx context.Context, t *testing.T, name, host string) *engine.Engine {
	t.Helper()
	e, err := engine.Dial(ctx, name, host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// checkCounted checks that the cells ids, built on the targets' engine
// eng and measured by two generators, counted what the target wrote in
// each of its visits, in the order they came.
func checkCounted(ctx context.Context, t *testing.T, eng *engine.Engine, visits []int64, cells map[string]*results.Cell, ids []string) {
	t.Helper()
	if len(visits) != len(ids) {
		t.Fatalf("the target reported %d visits (%v), want %d", len(visits), visits, len(ids))
	}
	for i, id := range ids {
		c := cells[id]
		if c == nil || c.Status != results.OK || len(c.Trials) != 2 {
			t.Fatalf("%s: %+v", id, c)
		}
		if _, _, ok, err := eng.ImageLabels(ctx, c.Image.ID); err != nil || !ok {
			t.Errorf("%s: image %s is not on the targets' engine (%v)", id, c.Image.ID, err)
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
}

// checkDelayed checks the latency of the openloop cell ol and the
// bombardier cell bomb against the target's answerDelay: openloop's
// percentiles, merged from both generators' histograms, lie at or above
// it (its median within latencyMargin of it), and bombardier's trials show
// only their maximum, at or above it too. It checks openloop's schedule:
// exactly its rate × the duration, each generator its share.
func checkDelayed(t *testing.T, ol, bomb *results.Cell) {
	t.Helper()
	least := float64(answerDelay) / float64(time.Millisecond)
	most := float64(answerDelay+latencyMargin) / float64(time.Millisecond)
	for k, tr := range ol.Trials {
		l := tr.LatencyMS
		if tr.OpenLoop == nil || tr.OpenLoop.Histogram == "" || tr.Spread == nil || l.P50 < least || l.P50 >= most || l.P99 < l.P50 || l.Max < l.P99 {
			t.Errorf("openloop trial %d: latency %+v ms, with a histogram: %v, spread: %v: want percentiles merged from both histograms, the median in [%g, %g) ms",
				k+1, l, tr.OpenLoop != nil && tr.OpenLoop.Histogram != "", tr.Spread != nil, least, most)
			continue
		}
		if tr.OpenLoop.Scheduled != int64(ol.Rate*trialSeconds) {
			t.Errorf("openloop trial %d: %d sends scheduled, want %d/s × %d s", k+1, tr.OpenLoop.Scheduled, ol.Rate, trialSeconds)
		}
		for i, g := range tr.Spread.Generators {
			if want := int64(ol.Split[i].Rate * trialSeconds); g.Requests != want {
				t.Errorf("openloop trial %d: engine %s answered %d, want its share %d/s × %d s", k+1, g.Engine, g.Requests, ol.Split[i].Rate, trialSeconds)
			}
		}
	}
	for k, tr := range bomb.Trials {
		if l := tr.LatencyMS; l.P50 != 0 || l.P99 != 0 || l.Max < least || tr.Spread == nil || len(tr.Spread.NoLatency) != 2 {
			t.Errorf("bombardier trial %d: latency %+v ms: want no percentiles and a maximum of at least %g ms", k+1, l, least)
		}
	}
	if !hasWarning(bomb, "no latency percentiles") {
		t.Errorf("bombardier: warnings %q: want why it shows no percentiles", bomb.Warnings)
	}
}

// checkGeneratorMachines checks that the run recorded the targets' machine
// and both generator machines.
func checkGeneratorMachines(t *testing.T, run *results.Run, targetHost, secondGenHost string) {
	t.Helper()
	ms := run.Environment.Machines
	if len(ms) != 3 || ms[0].Role != results.RoleTarget || ms[0].Engine != "target" || ms[0].Host != targetHost ||
		ms[1].Role != results.RoleLoadgen || ms[1].Engine != "default" ||
		ms[2].Role != results.RoleLoadgen || ms[2].Engine != "loadgen2" || ms[2].Host != secondGenHost {
		t.Fatalf("machines %+v: want the targets' and two generators'", ms)
	}
	for _, m := range ms {
		if m.CPUModel == "" || m.CPUModel == "unknown" || m.OnlineCPUs < 1 || m.DockerVersion == "" {
			t.Errorf("machines: %+v not recorded whole", m)
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
