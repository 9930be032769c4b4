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

// A cell measured in part reads as partial with the trials asked: written
// so, or written ok by a harness before the partial status in a run that
// never finished (a killed run's results.json, saved after every trial),
// so that no reader takes its figures for a finished cell's. A cell with
// every trial stays ok, and so does a finished run's short one.
func TestDecodePartial(t *testing.T) {
	for _, tc := range []struct {
		cell   string
		status Status
		asked  int
	}{
		{`"status":"ok","trials":[{"rps":1}]`, Partial, 3},
		{`"status":"partial","trials_asked":5,"trials":[{"rps":1}]`, Partial, 5},
		{`"status":"partial","trials":[{"rps":1},{"rps":1}]`, Partial, 3},
		{`"status":"ok","trials":[{"rps":1},{"rps":1},{"rps":1}]`, OK, 0},
	} {
		run, err := Decode([]byte(`{"schema":2,"matrix":{"load":{"trials":3}},"cells":[{"target":"a","scenario":"s",` + tc.cell + `}]}`)) // never finished
		if err != nil {
			t.Fatalf("%s: %v", tc.cell, err)
		}
		if c := run.Cells[0]; c.Status != tc.status || c.TrialsAsked != tc.asked {
			t.Errorf("%s: read %s of %d asked, want %s of %d", tc.cell, c.Status, c.TrialsAsked, tc.status, tc.asked)
		}
	}
	finished := `{"schema":2,"finished_at":"2026-12-02T12:05:00Z","matrix":{"load":{"trials":3}},"cells":[{"target":"a","scenario":"s","status":"ok","trials":[{"rps":1}]}]}`
	if run, err := Decode([]byte(finished)); err != nil || run.Cells[0].Status != OK {
		t.Errorf("a short ok cell of a finished run: %v, want it read ok, as its harness wrote it", err)
	}
	if _, err := Decode([]byte(`{"schema":2,"cells":[{"target":"a","scenario":"s","status":"partial"}]}`)); err == nil || !strings.Contains(err.Error(), "no trial") {
		t.Errorf("a partial cell without trials: %v, want refused", err)
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

// A cell's values of the declared axes are written as "axes", read back,
// and part of its id and of its label in tables.
func TestCellAxes(t *testing.T) {
	dir := t.TempDir()
	c := &Cell{Target: "a", Scenario: "s", CPUs: 1, Connections: 2, Status: OK, Trials: []Trial{{}}, Axes: []KV{{Name: "flavour", Value: "sour"}}}
	if err := Write(dir, &Run{Schema: Schema, Cells: []*Cell{c}}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "results.json"))
	if !strings.Contains(string(data), `"axes": [`) {
		t.Errorf("results.json holds no axes:\n%s", data)
	}
	back, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Cells[0].ID(); got != "a/s/1cpu/c2/flavour=sour" {
		t.Errorf("id read back = %q", got)
	}
	if got := back.Cells[0].Label(); got != "a (flavour=sour)" {
		t.Errorf("label = %q, want the axis's value named", got)
	}
}
