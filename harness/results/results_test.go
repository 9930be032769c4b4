package results

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	tr := func(rps, p99 float64, errs int64, mem float64, bound bool) Trial {
		return Trial{Result: Result{RPS: rps, Errors: errs, LatencyMS: Latency{P50: p99 / 2, P99: p99}},
			TargetCPUCores: 1, TargetMemPeakMiB: mem, GeneratorBound: bound}
	}
	trials := []Trial{tr(300, 9, 1, 10, false), tr(100, 3, 0, 30, true), tr(200, 6, 2, 20, false)}
	s := Summarize(trials, "median")
	if s.RPS != 200 || s.RPSMedian != 200 || s.RPSMin != 100 || s.RPSMax != 300 || s.LatencyP99Median != 6 || s.Errors != 3 ||
		s.TargetMemPeakMiB != 30 || s.GeneratorBound != 1 {
		t.Errorf("summary = %+v", s)
	}
	if b := Summarize(trials, "best"); b.RPS != 300 || b.Aggregate != "best" || b.RPSMedian != 200 {
		t.Errorf("best-of summary = %+v", b)
	}
	if Summarize(nil, "median") != nil {
		t.Error("summary of no trials")
	}
	if even := Summarize(trials[:2], "median"); even.RPSMedian != 200 {
		t.Errorf("median of two trials = %v, want their mean 200", even.RPSMedian)
	}
}

func TestWriteRead(t *testing.T) {
	dir := t.TempDir()
	run := &Run{Schema: Schema, Cells: []*Cell{{Target: "a", Scenario: "s", CPUs: 1, Connections: 2, Status: OK, Trials: []Trial{{}}}}}
	if err := Write(dir, run); err != nil {
		t.Fatal(err)
	}
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Cells) != 1 || got.Cells[0].ID() != "a/s/1cpu/c2" {
		t.Errorf("read back %+v", got.Cells)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	os.WriteFile(filepath.Join(dir, "results.json"), []byte(`{"schema": 9}`), 0o644)
	if _, err := Read(dir); err == nil {
		t.Error("schema 9 accepted")
	}
}

// The noise floor pairs trial k of a cell with trial k of its control and
// reaches as far from 1 as the ratios' interval does.
func TestNoiseFloor(t *testing.T) {
	cell := func(control bool, rps ...float64) *Cell {
		c := &Cell{Target: "go", Scenario: "plaintext", CPUs: 1, Connections: 64, Status: OK, Control: control}
		for _, x := range rps {
			c.Trials = append(c.Trials, Trial{Result: Result{RPS: x}})
		}
		return c
	}
	run := &Run{Cells: []*Cell{
		cell(false, 100, 110, 90, 100, 105, 95),
		cell(true, 100, 100, 100, 100, 100, 100),
		{Target: "other", Scenario: "plaintext", Status: OK},
	}}
	nfs := NoiseFloors(run)
	if len(nfs) != 1 {
		t.Fatalf("noise floors %+v", nfs)
	}
	nf := nfs[0]
	if nf.Cell != "go/plaintext/1cpu/c64" || nf.N != 6 || nf.Ratio != 1 || !nf.HasCI || nf.Lo != 0.9 || nf.Hi != 1.1 {
		t.Errorf("noise floor %+v", nf)
	}
	if f := Noise(run); f < 0.0999 || f > 0.1001 {
		t.Errorf("Noise = %v, want 0.1", f)
	}
	if Noise(&Run{Cells: run.Cells[:1]}) != 0 {
		t.Error("a run without a control has a noise floor")
	}
	if id := run.Cells[1].ID(); id != "go/plaintext/1cpu/c64 (control)" {
		t.Errorf("control id %q", id)
	}
	if nf.Apart != 0 {
		t.Errorf("apart %v without start times, want 0", nf.Apart)
	}
	// Apart: the median of the seconds between a pair's two starts,
	// whichever ran first; a pair with a start missing is left out.
	at := func(s int) *time.Time { t := time.Date(2026, 12, 4, 20, 0, s, 0, time.UTC); return &t }
	for i, gap := range []struct{ a, b *time.Time }{{at(0), at(20)}, {at(50), at(20)}, {at(0), at(40)}, {at(0), nil}} {
		run.Cells[0].Trials[i].StartedAt, run.Cells[1].Trials[i].StartedAt = gap.a, gap.b
	}
	if nf := NoiseFloors(run)[0]; nf.Apart != 30 {
		t.Errorf("apart %v s, want the median of 20, 30 and 40 s: 30", nf.Apart)
	}
}

func TestShortCause(t *testing.T) {
	for err, want := range map[string]string{
		`cannot pull it (pull mcr.microsoft.com/dotnet/sdk:10.0: Error response from daemon: Get "https://mcr.microsoft.com/v2/": dial tcp: lookup mcr.microsoft.com on 10.255.255.53:53: no such host) and no local stand-in (no stand-in recipe docker/standins/dotnet_sdk/Dockerfile)`: "no registry reachable: cannot pull; no local stand-in",
		`cannot pull it (pull disabled) and no local stand-in (debootstrap is not installed (apt-get install debootstrap, or ` + "`make tools`" + `))`:                                                                                                                                    "not pulled (--no-pull); no stand-in: debootstrap is not installed",
		"something new": "something new",
	} {
		if got := ShortCause(err); got != want {
			t.Errorf("ShortCause(%q) = %q, want %q", err, got, want)
		}
	}
}

// A cell whose status is none of ok, failed and skipped would be listed in
// no table: Decode refuses it, naming the cell.
func TestDecodeRefusesUnknownStatus(t *testing.T) {
	for _, status := range []string{``, `"running"`} {
		field := ""
		if status != "" {
			field = `,"status":` + status
		}
		_, err := Decode([]byte(`{"schema":1,"cells":[{"target":"a","scenario":"s","status":"ok","trials":[{"rps":1}]},{"target":"b","scenario":"02"` + field + `}]}`))
		if err == nil || !strings.Contains(err.Error(), "cell 2 (b/02") {
			t.Errorf("status %s: %v, want an error naming cell 2", status, err)
		}
	}
	if _, err := Decode([]byte(`{"schema":1,"cells":[{"target":"a","scenario":"s","status":"ok"}]}`)); err == nil || !strings.Contains(err.Error(), "no trial") {
		t.Errorf("an ok cell without trials: %v, want refused", err)
	}
	if _, err := Decode([]byte(`{"schema":1,"cells":[{"target":"a","scenario":"s","status":"skipped"}]}`)); err != nil {
		t.Errorf("a skipped cell: %v", err)
	}
}

// results.json's types are results' own (schema.go); every committed run
// reads and writes back with every field it had, at the same place with
// the same value, so the schema did not move when they stopped being the
// matrix's and the load generator's. (Runs written before a field existed
// gain it, zero, on the way back, and environment values that early runs
// recorded are dropped, as before: that is all that may differ.)
func TestCommittedRunsRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("../../results/*/results.json")
	if len(files) == 0 {
		t.Fatal("no committed results.json found")
	}
	for _, p := range files {
		run, err := Read(filepath.Dir(p))
		if err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		if err := Write(out, run); err != nil {
			t.Fatal(err)
		}
		var was, is any
		data, _ := os.ReadFile(p)
		if err := json.Unmarshal(data, &was); err != nil {
			t.Fatal(err)
		}
		data, _ = os.ReadFile(filepath.Join(out, "results.json"))
		if err := json.Unmarshal(data, &is); err != nil {
			t.Fatal(err)
		}
		var gone []string
		lost(was, is, "", &gone)
		for _, where := range gone {
			if !dropped.MatchString(where) {
				t.Errorf("%s: written back without %s", p, where)
			}
		}
	}
}

// dropped are what early runs wrote and no harness keeps since: the values
// of environment variables (they may be secrets; their keys are kept).
var dropped = regexp.MustCompile(`^\.matrix\.targets\[\d+\]\.(variants\[\d+\]\.|services\[\d+\]\.)?env$`)

// lost adds to out where was has something that is not in is.
func lost(was, is any, at string, out *[]string) {
	switch w := was.(type) {
	case map[string]any:
		m, ok := is.(map[string]any)
		if !ok {
			*out = append(*out, at)
			return
		}
		for k, v := range w {
			lost(v, m[k], at+"."+k, out)
		}
		return
	case []any:
		l, ok := is.([]any)
		if !ok || len(l) != len(w) {
			*out = append(*out, at)
			return
		}
		for i := range w {
			lost(w[i], l[i], fmt.Sprintf("%s[%d]", at, i), out)
		}
		return
	}
	if !reflect.DeepEqual(was, is) {
		*out = append(*out, fmt.Sprintf("%s (%v, now %v)", at, was, is))
	}
}

// PerTrial names how long each trial ran: a duration, the load's count,
// or the requests axis's counts.
func TestPerTrial(t *testing.T) {
	for _, tc := range []struct {
		s    Settings
		want string
	}{
		{Settings{Load: LoadSettings{Duration: Duration(10 * time.Second)}}, "duration 10s"},
		{Settings{Load: LoadSettings{Requests: 20000}}, "20000 requests"},
		{Settings{Load: LoadSettings{Duration: Duration(10 * time.Second)}, Requests: []int64{1000000, 10000000}}, "1000000 or 10000000 requests"},
	} {
		if got := tc.s.PerTrial(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.s, got, tc.want)
		}
	}
}
