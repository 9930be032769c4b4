package study

import (
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/results"
)

// Input that would let a claim confirm whatever was measured is refused
// at its line and field: a setup that states nothing, an about wider than
// any claim means, a cell over itself.
func TestRefusedInput(t *testing.T) {
	cases := []struct{ name, from, to, want string }{
		{"empty setup", good[strings.Index(good, "setup:"):strings.Index(good, "runs: [runs/a]")], "setup: {}\n",
			"study.yaml:5:8: setup.cores: missing: state the study's cores, or name it under setup.unstated"},
		{"unstated and stated", "  runs: 3\n", "  runs: 3\n  unstated: [cores]\n", "setup.unstated[0]: cores is named unstated, but the setup states it"},
		{"huge tolerance", "tolerance: 0.25", "tolerance: 1e300", "study.yaml:22:61: claims[0].test.tolerance: 1e+300 is wider than ±50%"},
		{"a over itself", "{a: A, b: B}", "{a: A, b: A}", "claims[0].test.pairs[0].b: the same cell as a"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("study.yaml", []byte(strings.Replace(good, c.from, c.to, 1)))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want it to contain %q", err, c.want)
			}
		})
	}
}

// An item the study names unstated is not shown to match: the claim is
// not testable as stated, naming it, however far beyond the floor its
// ratio lies.
func TestUnstatedMatchesNothing(t *testing.T) {
	f := claimOn("about", 4, 0.25, c1024, c512)
	f.Setup.Pinning, f.Setup.Unstated = "", []string{"pinning"}
	j := Judge(f, []*Run{withFloor(400, 410, 390)})[0]
	if j.Verdict != NotAsStated || !strings.Contains(j.Why, "does not state its pinning") {
		t.Errorf("got %s (%s), want not testable as stated: the study does not state its pinning", j.Verdict, j.Why)
	}
}

// Data that cannot carry a reading reads "cannot tell": a twin control
// that agrees with its cell exactly (floor ±0.0%), a floor of two pairs,
// a run measured by a dirty build.
func TestCannotTell(t *testing.T) {
	forged := run("runs/a", cell("node-http", 1024, false, 100, 100, 100),
		cell("node-http", 512, false, 100, 100, 100), cell("node-http", 512, true, 100, 100, 100))
	two := run("runs/a", cell("node-http", 1024, false, 400, 410),
		cell("node-http", 512, false, 100, 100), cell("node-http", 512, true, 100, 105))
	dirty := withFloor(400, 410, 390)
	dirty.Environment.HarnessVersion = "abc1234-dirty"
	for _, c := range []struct {
		name string
		f    *File
		r    *Run
		want string
	}{
		{"forged twin", claimOn("about", 1, 0.01, c1024, c512), forged, "floor is ±0.0%"},
		{"two pairs", claimOn("about", 4, 0.25, c1024, c512), two, "rests on 2 pair(s)"},
		{"dirty build", claimOn("about", 4, 0.25, c1024, c512), dirty, "built from a dirty tree"},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := Judge(c.f, []*Run{c.r})[0]
			if j.Verdict != CannotTell || !strings.Contains(j.Why, c.want) {
				t.Errorf("got %s (%s), want cannot tell: %s", j.Verdict, j.Why, c.want)
			}
		})
	}
}

// "About" holds the ratio's interval, not its median alone: a median of
// exactly 1 whose pairs spread 0.8…1.25 is not "about 1 ±10%".
func TestAboutHoldsTheInterval(t *testing.T) {
	j := Judge(claimOn("about", 1, 0.1, c1024, c512), []*Run{withFloor(100, 125, 80)})[0]
	if j.Verdict != WithinNoise {
		t.Errorf("got %s (%s), want within noise", j.Verdict, j.Why)
	}
}

// The floor is the wider of A's and B's own controls, whichever the run
// lists first.
func TestFloorWiderOfOwn(t *testing.T) {
	r := run("runs/a",
		cell("node-http", 1024, false, 100, 100, 100), cell("node-http", 1024, true, 100, 102, 99),
		cell("node-http", 512, false, 100, 100, 100), cell("node-http", 512, true, 100, 120, 90))
	f, ok := floorFor(r, "rps", "median", c1024, c512)
	if !ok || f.Cell != c512 {
		t.Errorf("floor %+v, want the wider: %s's own", f, c512)
	}
}

// A best-of-N ratio is read against the widest ratio a best-over-best of
// the A/A twins could give (their paired min…max), not against the
// median's interval: here the twins' median ratio is 1 but one trial pair
// reads 1.3, so a best-over-best of 1.2 is within noise.
func TestBestFloor(t *testing.T) {
	ten := func(x float64, last float64) []float64 {
		xs := []float64{x, x, x, x, x, x, x, x, x, last}
		return xs
	}
	r := run("runs/a", cell("node-http", 1024, false, ten(120, 120)...),
		cell("node-http", 512, false, ten(100, 130)...), cell("node-http", 512, true, ten(100, 100)...))
	r.Matrix.Load.Aggregate, r.Matrix.Load.Trials = results.AggregateBest, 10
	f := claimOn("greater", 0, 0, c1024, c512)
	f.Setup.Statistic, f.Setup.Runs = "best", 10
	j := Judge(f, []*Run{r})[0]
	if j.Verdict != WithinNoise || len(j.Measures) != 1 || j.Measures[0].Floor.Factor < 1.3-1e-9 {
		t.Errorf("got %s (%s), want within noise against a floor of ±30%%", j.Verdict, j.Why)
	}
}

// A claim reads one machine's runs: a pair held only by a run of another
// machine is not measured beside pairs of the first.
func TestOneMachinePerClaim(t *testing.T) {
	a := withFloor(400, 410, 390)
	b := withFloor(400, 410, 390)
	b.Name, b.Environment.CPUModel = "runs/b", "Intel Xeon"
	b.Cells = append(b.Cells, cell("go-nethttp", 1024, false, 100, 100, 100), cell("go-nethttp", 512, false, 100, 100, 100))
	f := claimOn("about", 4, 0.25, c1024, c512)
	f.Claims[0].Test.Pairs = append(f.Claims[0].Test.Pairs, Pair{A: "go-nethttp/plaintext/1cpu/c1024/together", B: "go-nethttp/plaintext/1cpu/c512/together"})
	a.Environment.StartedAt = a.Environment.StartedAt.AddDate(0, 0, 1)
	j := Judge(f, []*Run{a, b})[0]
	for _, m := range j.Measures {
		if machine(m.Run) != machine(j.Measures[0].Run) {
			t.Errorf("measures from %s and %s", machine(m.Run), machine(j.Measures[0].Run))
		}
	}
	if len(j.Measures) != 2 || j.Measures[0].Run.Name != "runs/b" {
		t.Errorf("%d measures, want both pairs from runs/b, the machine that holds both", len(j.Measures))
	}
}

// An operating system no run's machine ran makes the claim not testable
// here, named; a comparison across machines too.
func TestUnmeetableHere(t *testing.T) {
	f := claimOn("about", 4, 0.25, c1024, c512)
	f.Claims[0].Setup = &Setup{OS: "windows"}
	j := Judge(f, []*Run{withFloor(400, 410, 390)})[0]
	if j.Verdict != NotHere || !strings.Contains(j.Why, "os: the study ran windows") {
		t.Errorf("windows: got %s (%s)", j.Verdict, j.Why)
	}
	f.Claims[0].Setup = &Setup{Across: "machines"}
	j = Judge(f, []*Run{withFloor(400, 410, 390)})[0]
	if j.Verdict != NotHere || !strings.Contains(j.Why, "compares machines") {
		t.Errorf("across machines: got %s (%s)", j.Verdict, j.Why)
	}
	f.Claims[0].Setup = &Setup{Cores: 4}
	j = Judge(f, []*Run{withFloor(400, 410, 390)})[0]
	if j.Verdict != NotHere || !strings.Contains(j.Why, "at most 2 CPUs") {
		t.Errorf("4 cores: got %s (%s)", j.Verdict, j.Why)
	}
}
