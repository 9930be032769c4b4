package analysis

import (
	"math"
	"testing"

	"github.com/webbench/webbench/harness/results"
)

// The three bounds: the generator (†) first, then the server's cores at
// ≥ 90%, else waiting — a server answering 300 requests/s at 45 ms each
// while using 5% of its core, the generator at 30% of its own — with the
// figures; a server between half and 90% of its core is unclear, said so.
// A fixed-rate cell, and one whose CPU was not sampled, get none.
func TestBoundedBy(t *testing.T) {
	mk := func(cpu, lg float64, bound []string, rate int) *Row {
		c := &results.Cell{Target: "t", Scenario: "s", CPUs: 1, Connections: 16, Rate: rate, Status: results.OK, LoadgenCPUSet: "1"}
		for range 3 {
			c.Trials = append(c.Trials, results.Trial{Result: results.Result{RPS: 300}, TargetCPUCores: cpu, LoadgenCPUCores: lg})
		}
		c.Summary = Summarize(c.Trials, results.AggregateMedian)
		c.Summary.BoundBy = bound
		return RowOf(&results.Run{}, c)
	}
	type figures struct{ server, generator float64 } // shares of their cores; -1: no generator figure
	for _, c := range []struct {
		row   *Row
		bound string
		want  *figures
	}{
		{mk(0.05, 0.3, nil, 0), BoundWaiting, &figures{0.05, 0.3}},
		{mk(0.95, 0.3, nil, 0), BoundServer, &figures{0.95, -1}},
		{mk(0.5, 0.99, []string{"load generator CPU ≥ 90% in 3 trial(s)"}, 0), BoundGenerator, &figures{0.5, -1}},
		{mk(0.72, 0.58, nil, 0), BoundUnclear, &figures{0.72, 0.58}},
		{mk(0.05, 0.3, nil, 1000), "", nil},
		{mk(0, 0, nil, 0), "", nil},
	} {
		got := c.row.BoundWhy
		switch {
		case c.row.Bound != c.bound || (got == nil) != (c.want == nil):
			t.Errorf("bounded by %q (%+v), want %q (%+v)", c.row.Bound, got, c.bound, c.want)
		case got == nil:
		case math.Abs(got.ServerShare-c.want.server) > 1e-9 || got.CPUs != 1 ||
			c.want.generator >= 0 && (math.Abs(got.GeneratorShare-c.want.generator) > 1e-9 || got.GeneratorCores != 1) ||
			c.want.generator < 0 && got.GeneratorCores != 0:
			t.Errorf("%s: figures %+v, want %+v", c.bound, got, c.want)
		}
	}
}

// With the load from two generators, their CPU is summed (1.2 cores) and
// so are their cores (two of one core each): 60% of theirs, not 120% of
// one.
func TestBoundedBySeveralGenerators(t *testing.T) {
	c := &results.Cell{Target: "t", Scenario: "s", CPUs: 1, Connections: 16, Status: results.OK, LoadgenCPUSet: "1",
		Split: []results.Share{{Engine: "a", CPUSet: "1", Connections: 8}, {Engine: "b", CPUSet: "1", Connections: 8}}}
	for range 3 {
		c.Trials = append(c.Trials, results.Trial{Result: results.Result{RPS: 300}, TargetCPUCores: 0.05, LoadgenCPUCores: 1.2})
	}
	c.Summary = Summarize(c.Trials, results.AggregateMedian)
	r := RowOf(&results.Run{}, c)
	if r.Bound != BoundWaiting || r.BoundWhy == nil || r.BoundWhy.GeneratorCores != 2 || math.Abs(r.BoundWhy.GeneratorShare-0.6) > 1e-9 {
		t.Errorf("bounded by %q, figures %+v; want waiting, the generators at 60%% of their 2 cores", r.Bound, r.BoundWhy)
	}
}

// What a target costs: half a core for 10 s over 50,000 good answers is
// 100 µs an answer; startup is the median over visits; the steady memory
// is the last trial's; image sizes are per service, in MiB.
func TestFootprint(t *testing.T) {
	c := &results.Cell{Target: "t", Scenario: "s", CPUs: 1, Connections: 16, Status: results.OK, LoadgenCPUSet: "1",
		Startup: []float64{0.4, 0.9, 0.5}, Image: &results.Image{Sizes: map[string]int64{"nginx": 64 << 20, "backend": 3 << 19}}}
	for _, steady := range []float64{30, 41} {
		c.Trials = append(c.Trials, results.Trial{Result: results.Result{RPS: 5000, Requests: 50_000, Seconds: 10}, TargetCPUCores: 0.5, TargetMemSteadyMiB: steady})
	}
	r := RowOf(&results.Run{}, c)
	if r.CPUPerAnswer != 100 || r.StartupS != 0.5 || r.SteadyMiB != 41 || r.ImageMiB["nginx"] != 64 || r.ImageMiB["backend"] != 1.5 {
		t.Errorf("footprint: %v µs an answer, startup %v s, steady %v MiB, images %v", r.CPUPerAnswer, r.StartupS, r.SteadyMiB, r.ImageMiB)
	}
}

// Bounded by the database: its own core saturated while the server's is
// not, also where the generator shares the server's core (a 2-core
// machine), whose CPU then counts on the server's. The server's cores are
// judged on the server's CPU alone when the database has cores of its
// own; a database on the server's cores, or a generator-bound cell, is
// never called database-bound.
func TestBoundedByDatabase(t *testing.T) {
	mk := func(server, db, lg float64, dbSet, lgSet string, bound []string) *Row {
		c := &results.Cell{Target: "t", Scenario: "fortunes", CPUs: 1, Connections: 16, Status: results.OK, CPUSet: "0", LoadgenCPUSet: lgSet,
			ServiceCPUSets: map[string]string{"db": dbSet, "server": "0"}}
		if lgSet == "0" {
			c.Pinning = "together"
		}
		for range 3 {
			c.Trials = append(c.Trials, results.Trial{Result: results.Result{RPS: 9000}, TargetCPUCores: server + db, LoadgenCPUCores: lg,
				Services: map[string]results.ServiceUsage{"db": {CPUCores: db}, "server": {CPUCores: server}}})
		}
		c.Summary = Summarize(c.Trials, results.AggregateMedian)
		c.Summary.BoundBy = bound
		return RowOf(&results.Run{}, c)
	}
	for _, c := range []struct {
		name          string
		row           *Row
		bound         string
		server, dbCPU float64 // the figures' shares; dbCPU -1: no database figures
	}{
		{"apart", mk(0.4, 0.95, 0.3, "1", "2", nil), BoundDatabase, 0.4, 0.95},
		{"generator on the server's core", mk(0.5, 0.97, 0.3, "1", "0", nil), BoundDatabase, 0.8, 0.97},
		{"server's core full with the generator", mk(0.6, 0.95, 0.35, "1", "0", nil), BoundShared, 0, 0.95},
		{"server saturated too", mk(0.95, 0.95, 0.3, "1", "2", nil), BoundServer, 0.95, 0.95},
		{"database under its core", mk(0.3, 0.6, 0.3, "1", "2", nil), BoundWaiting, 0.3, 0.6},
		{"database on the server's core", mk(0.3, 0.65, 0.3, "0", "1", nil), BoundServer, 0.95, -1},
		{"generator-bound", mk(0.4, 0.95, 0.95, "1", "2", []string{"load generator CPU ≥ 90% in 3 trial(s)"}), BoundGenerator, 0.4, 0.95},
	} {
		got := c.row.BoundWhy
		switch {
		case c.row.Bound != c.bound || got == nil:
			t.Errorf("%s: bounded by %q (%+v), want %q", c.name, c.row.Bound, got, c.bound)
		case math.Abs(got.ServerShare-c.server) > 1e-9:
			t.Errorf("%s: server share %v, want %v", c.name, got.ServerShare, c.server)
		case c.dbCPU < 0 && got.DatabaseCores != 0:
			t.Errorf("%s: database figures %+v, want none (it had no cores of its own)", c.name, got)
		case c.dbCPU >= 0 && (math.Abs(got.DatabaseShare-c.dbCPU) > 1e-9 || got.DatabaseCores != 1 || got.DatabaseCPUSet != "1"):
			t.Errorf("%s: database figures %+v, want %v of core 1", c.name, got, c.dbCPU)
		}
	}
}

// A ceiling a cell beats is wrong, and nothing rests on it: measured at
// 18,000 rps on a busy machine, then go at 263% of it. Every bound the
// ceiling rule alone gave is unknown (c, at 89% of it, its CPU figures
// placing it nowhere) unless the CPU places the cell: py, at 91% of it,
// used 0.978 of its core, so the server's cores bounded it. The run lists
// the beaten ceiling with the cell that beat it. A cell at 91% of a
// ceiling nobody beat, its server saturated, is bounded by its cores too:
// its own CPU says so, and no † rests on the ceiling alone.
func TestBeatenCeiling(t *testing.T) {
	ceiling := results.Ceiling{CPUs: 1, CPUSet: "0", Connections: 64, RPS: 18000}
	mk := func(target string, rps, cpu, lg float64) *results.Cell {
		c := &results.Cell{Target: target, Scenario: "plaintext", CPUs: 1, CPUSet: "0", Connections: 64, Status: results.OK, LoadgenCPUSet: "1"}
		for range 3 {
			c.Trials = append(c.Trials, results.Trial{Result: results.Result{RPS: rps, Requests: int64(rps) * 10, Seconds: 10}, TargetCPUCores: cpu, LoadgenCPUCores: lg})
		}
		c.Summary = Summarize(c.Trials, results.AggregateMedian)
		JudgeBound(c.Summary, ceiling.RPS, false)
		return c
	}
	run := &results.Run{Ceilings: []results.Ceiling{ceiling}, Cells: []*results.Cell{
		mk("go", 47340, 0.70, 0.60),
		mk("py", 16400, 0.978, 0.30),
		mk("c", 16000, 0.70, 0.60),
		mk("slow", 9000, 0.70, 0.60),
	}}
	got := map[string]*Row{}
	for _, r := range Rows(run, "plaintext") {
		got[r.Target] = r
	}
	for target, want := range map[string]string{"go": BoundUnknown, "py": BoundServer, "c": BoundUnknown, "slow": BoundUnclear} {
		if r := got[target]; r == nil || r.Bound != want || len(r.BoundBy) > 0 {
			t.Errorf("%s: bounded by %q, † rules %q; want %q and no †", target, r.Bound, r.BoundBy, want)
		}
	}
	b := BeatenCeilings(run)
	if len(b) != 1 || b[0].Cell != run.Cells[0].ID() || math.Abs(b[0].Share-47340.0/18000) > 1e-9 || len(Build(run).BeatenCeilings) != 1 {
		t.Errorf("beaten ceilings %+v, want the one go beat at 263%%", b)
	}
	// Without go, nothing beat the ceiling: c, at 89% of it with room on
	// both sides, is generator-bound by it; py, saturated, is not.
	run.Cells = run.Cells[1:]
	got = map[string]*Row{}
	for _, r := range Rows(run, "plaintext") {
		got[r.Target] = r
	}
	if len(BeatenCeilings(run)) != 0 || got["c"].Bound != BoundGenerator || len(got["c"].BoundBy) != 1 {
		t.Errorf("c under a ceiling nobody beat: %q (%q), want generator by the ceiling", got["c"].Bound, got["c"].BoundBy)
	}
	if got["py"].Bound != BoundServer || len(got["py"].BoundBy) != 0 {
		t.Errorf("py, its core at 97.8%%: %q (%q), want server cores and no †", got["py"].Bound, got["py"].BoundBy)
	}
}
