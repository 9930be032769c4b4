package study

import (
	"bytes"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/results"
)

// cellTest is the good file's claim turned into a one-cell test of c512.
func cellTest(metric, expect string, value float64) *File {
	f := claimOn("greater", 0, 0, c1024, c512)
	f.Claims[0].Test = &Test{Metric: metric, Expect: expect, Value: value, Cells: []string{c512}}
	return f
}

// A claim that a cell had no failed request ("Failed 0") is read from the
// cell's own trials: none in any trial confirms it, one contradicts it,
// and no A/A floor is asked of a count of zero.
func TestNoErrors(t *testing.T) {
	clean := withFloor(400, 410, 390)
	j := Judge(cellTest("errors", "no_errors", 0), []*Run{clean})[0]
	if j.Verdict != Confirmed || len(j.Measures) != 1 || !strings.Contains(j.Measures[0].Failed, "no failed request in 3 trials") {
		t.Errorf("no errors: got %s (%s) %+v", j.Verdict, j.Why, j.Measures)
	}
	dirty := withFloor(400, 410, 390)
	dirty.cell(c512).Trials[1].Errors = 3
	j = Judge(cellTest("errors", "no_errors", 0), []*Run{dirty})[0]
	if j.Verdict != Contradicted {
		t.Errorf("3 failed requests in a trial: got %s (%s), want contradicted", j.Verdict, j.Why)
	}
}

// splitCell is a cell of c512 (or its control) whose trials record the
// server's and the generator's CPU.
func splitCell(control bool, target, loadgen float64, pinning string) *results.Cell {
	c := cell("node-http", 512, control, 100, 100, 100)
	c.Pinning = pinning
	for i := range c.Trials {
		c.Trials[i].TargetCPUCores, c.Trials[i].LoadgenCPUCores = target+0.01*float64(i), loadgen
	}
	return c
}

// "The CPU went to the server, not to bombardier" is read from the CPU
// split each trial recorded, against the floor the twins give in it: no
// requests/s proxy, no threshold of the file's own.
func TestCPUSplit(t *testing.T) {
	for _, c := range []struct {
		target, loadgen float64
		want            Verdict
	}{{0.6, 0.38, Confirmed}, {0.3, 0.68, Contradicted}} {
		r := run("runs/a", cell("node-http", 1024, false, 100, 100, 100),
			splitCell(false, c.target, c.loadgen, "together"), splitCell(true, c.target+0.02, c.loadgen, "together"))
		j := Judge(cellTest("cpu_split", "greater", 0), []*Run{r})[0]
		if j.Verdict != c.want || len(j.Measures) != 1 {
			t.Errorf("server %.2f, generator %.2f: got %s (%s), want %s", c.target, c.loadgen, j.Verdict, j.Why, c.want)
		}
	}
}

// cpu_busy is the CPU of both sides over the cores they ran on: unpinned,
// the machine's.
func TestCPUBusy(t *testing.T) {
	r := run("runs/a", splitCell(false, 1.4, 0.5, "none"))
	get := metricOf("cpu_busy", r, r.Cells[0])
	if got := get(r.Cells[0].Trials[0]); got < 0.949 || got > 0.951 {
		t.Errorf("1.4 + 0.5 cores on a 2-CPU machine: %v, want 0.95", got)
	}
}

// A study that shows one run's figure (single) is met by a run of several
// trials, each one run; the ratio's interval is where one run's ratio
// could land (min…max of the pairs), not the median's CI, even with six.
func TestSingleStatistic(t *testing.T) {
	r := run("runs/a", cell("node-http", 1024, false, 400, 410, 390, 300, 405, 395),
		cell("node-http", 512, false, 100, 100, 100, 100, 100, 100), cell("node-http", 512, true, 100, 105, 96, 100, 101, 99))
	r.Matrix.Load.Trials = 6
	f := claimOn("about", 4, 0.25, c1024, c512)
	f.Setup.Statistic, f.Setup.Runs = "single", 1
	j := Judge(f, []*Run{r})[0]
	m := j.Measures[0]
	if !allOK(m.Checklist) || m.Ratio.HasCI || m.Ratio.Lo != 3 || m.Ratio.Hi != 4.1 {
		t.Errorf("got %+v, checklist %+v; want every item ok and the interval 3…4.1", m.Ratio, m.Checklist)
	}
	if j.Verdict != WithinNoise {
		t.Errorf("one run of 3× is outside about 4 ±25%%: got %s (%s), want within noise", j.Verdict, j.Why)
	}
}

// A claim about a client service alone is not testable as stated when
// every measured cell ran its upstream on the same cores: the figure is
// theirs together, and the verdict says so.
func TestAlone(t *testing.T) {
	withServices := func(sets map[string]string) *Run {
		r := withFloor(400, 410, 390)
		for _, c := range r.Cells {
			c.CPUSet, c.ServiceCPUSets = "0", sets
			for i := range c.Trials {
				c.Trials[i].Services = map[string]results.ServiceUsage{"client": {CPUCores: 0.7}, "records-api": {CPUCores: 0.3}}
			}
		}
		return r
	}
	f := claimOn("about", 4, 0.25, c1024, c512)
	f.Claims[0].Alone = "client"
	j := Judge(f, []*Run{withServices(nil)})[0]
	if j.Verdict != NotAsStated || !strings.Contains(j.Why, "ran client with records-api on the same cores") {
		t.Errorf("shared core: got %s (%s)", j.Verdict, j.Why)
	}
	j = Judge(f, []*Run{withServices(map[string]string{"client": "0", "records-api": "1"})})[0]
	if j.Verdict != Confirmed {
		t.Errorf("cores of its own: got %s (%s), want confirmed", j.Verdict, j.Why)
	}
}

// A claim whose figures rest on a defect of the seed carries a flag in its
// summary row and says what the defect is; a context cell's figure is
// computed from the run that holds it.
func TestSeedDefectAndContext(t *testing.T) {
	f := claimOn("about", 4, 0.25, c1024, c512)
	f.Claims[0].SeedDefect = "its capture bombards port 5000, the other server's"
	f.Context = []Shown{{Cell: c1024, Metric: "rps", Why: "the front end alone"}}
	r := withFloor(400, 410, 390)
	var b bytes.Buffer
	if err := Render(&b, "studies/x", f, []*Run{r}, Judge(f, []*Run{r})); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"**confirmed** ⚑ seed defect", "⚑ A defect of the seed:** its capture bombards port 5000",
		"## Measured beside the claims", "median of the trials", " 400 | ", "390…410 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("README lacks %q", want)
		}
	}
}

// A one-cell test names cells, and only a one-cell test does.
func TestCellsOrPairs(t *testing.T) {
	for _, c := range []struct{ to, want string }{
		{"{metric: errors, expect: no_errors, pairs: [{a: A, b: B}]}", "claims[0].test.cells: missing: expect no_errors reads one cell"},
		{"{metric: rps, expect: greater, cells: [A]}", "claims[0].test.pairs: missing"},
		{"{metric: rps, expect: no_errors, cells: [A]}", "claims[0].test.metric: no_errors reads the errors metric"},
		{"{metric: cpu_split, expect: greater, cells: [A], pairs: [{a: A, b: B}]}", "give pairs or cells, not both"},
	} {
		in := strings.Replace(good, "{metric: rps, expect: about, value: 4, tolerance: 0.25, pairs: [{a: A, b: B}]}", c.to, 1)
		if _, err := Parse("study.yaml", []byte(in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.to, err, c.want)
		}
	}
	in := strings.Replace(good, "{metric: rps, expect: about, value: 4, tolerance: 0.25, pairs: [{a: A, b: B}]}", "{metric: errors, expect: no_errors, cells: [A]}", 1)
	if _, err := Parse("study.yaml", []byte(in)); err != nil {
		t.Errorf("a one-cell test: %v", err)
	}
}
