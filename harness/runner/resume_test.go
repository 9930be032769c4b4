package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
)

// What a resume keeps of an earlier results.json, decided from the file
// and the matrix alone: finished and partly measured cells the matrix
// makes, whose figures hold up; every other measured cell is named in a
// warning; skipped and empty cells go without a word.
func TestKeptCells(t *testing.T) {
	m := &matrix.Matrix{Load: matrix.Defaults}
	m.Load.Trials, m.Load.Duration = 3, 10*time.Second
	trial := func(rps float64) results.Trial {
		return results.Trial{Result: results.Result{RPS: rps, Requests: int64(rps * 10), Seconds: 10}}
	}
	cell := func(target string, status results.Status, trials ...results.Trial) *results.Cell {
		return &results.Cell{Target: target, Scenario: "s", CPUs: 1, Connections: 8, Status: status, Trials: trials}
	}
	whole := cell("a", results.OK, trial(100), trial(110), trial(90))
	part := cell("b", results.OK, trial(100))
	cells := []*results.Cell{
		whole, part,
		cell("c", results.Failed, trial(100)),         // failed: measured again
		cell("d", results.Skipped),                    // judged again, silently
		cell("e", results.OK),                         // no trial: silently
		cell("zzz", results.OK, trial(100)),           // not the matrix's
		whole,                                         // a second copy
		cell("f", results.OK, trial(100), trial(1e9)), // figures that do not add up
		cell("g", results.OK, slices.Repeat([]results.Trial{trial(100)}, 4)...), // too many
	}
	made := map[string]bool{}
	for _, c := range cells {
		if c.Target != "zzz" {
			made[c.ID()] = true
		}
	}
	cells[7].Trials[1].Requests = 1000 // 1e9 rps from 1,000 requests in 10 s
	kept, warnings := keptCells(cells, m, made)
	if !slices.Equal(kept, []*results.Cell{whole, part}) {
		t.Errorf("kept %v, want a and b", kept)
	}
	want := []string{"c/s/1cpu/c8 of results.json not kept (it failed)", "zzz/s/1cpu/c8 of results.json not kept (the matrix makes no such cell)",
		"a/s/1cpu/c8 of results.json not kept (a second copy of a cell)", "f/s/1cpu/c8", "g/s/1cpu/c8"}
	if len(warnings) != len(want) {
		t.Fatalf("warnings %q", warnings)
	}
	for i, w := range want {
		if !strings.Contains(warnings[i], w) {
			t.Errorf("warning %d: %q, want it to say %q", i, warnings[i], w)
		}
	}
}

// A run killed at any moment (SIGKILL, or a second Ctrl-C: nothing saves
// then) leaves a results.json that --resume reads and continues from,
// losing only the trial that was running. Here a run of two cells of three
// trials, cell by cell, is killed as a load starts: the file is taken as
// the kill finds it, and the resume runs from that file alone.
func TestKilledRunResumes(t *testing.T) {
	m := testMatrix(t, twoTargets, "", "a", "b")
	all := []string{"load a/plaintext/1cpu/c8", "load a/plaintext/1cpu/c8", "load a/plaintext/1cpu/c8",
		"load b/plaintext/1cpu/c8", "load b/plaintext/1cpu/c8", "load b/plaintext/1cpu/c8"}
	for _, kill := range []int{1, 3} { // before any trial was recorded; in a's third, two recorded
		t.Run(fmt.Sprintf("at load %d", kill), func(t *testing.T) {
			f := newFake()
			f.span = 600 * time.Millisecond // half the matrix's 1s or more: a resume keeps such trials
			ctx, cancel := context.WithCancel(context.Background())
			out, left := t.TempDir(), t.TempDir()
			loads := 0
			f.onRun = func(string, int) {
				if loads++; loads == kill {
					data, err := os.ReadFile(filepath.Join(out, "results.json"))
					if err != nil {
						t.Errorf("no results.json when load %d starts: %v", kill, err)
					}
					os.WriteFile(filepath.Join(left, "results.json"), data, 0o644)
					cancel()
				}
			}
			runCtx(ctx, t, f, m, Options{NoCeiling: true, OutDir: out, Schedule: Schedule{Sequential: true}})
			prev, err := results.Read(left)
			if err != nil {
				t.Fatalf("results.json as the kill left it: %v", err)
			}
			var kept []results.Trial
			for _, c := range prev.Cells {
				kept = append(kept, c.Trials...)
			}
			// As written, not as read (Decode marks an older harness's
			// short ok cells partial): the cell in progress is partial.
			var written struct{ Cells []results.Cell }
			if data, err := os.ReadFile(filepath.Join(left, "results.json")); err != nil || json.Unmarshal(data, &written) != nil {
				t.Fatalf("results.json as the kill left it: %v", err)
			}
			for _, c := range written.Cells {
				if c.Status != results.Partial || c.TrialsAsked != 3 {
					t.Errorf("%s saved %s of %d trials asked, want partial of 3 with its %d trials so far", c.ID(), c.Status, c.TrialsAsked, len(c.Trials))
				}
			}
			if len(kept) != kill-1 || prev.FinishedAt != nil {
				t.Fatalf("%d trials saved before load %d, want %d; finished %v", len(kept), kill, kill-1, prev.FinishedAt)
			}
			f2 := newFake()
			f2.span = f.span
			res, err, p := run(t, f2, m, Options{OutDir: left, Resume: prev, NoCeiling: true})
			if err != nil {
				t.Fatal(err)
			}
			// The cell measured in part is not done: its other trials run,
			// and no trial runs twice.
			if got := f2.loads(); !slices.Equal(got, all[kill-1:]) {
				t.Errorf("the resume ran %q, want %q", got, all[kill-1:])
			}
			if p.units != 2 || p.done != 2 {
				t.Errorf("progress: %d units, %d done; want a visit of each cell", p.units, p.done)
			}
			for _, c := range res.Cells {
				if c.Status != results.OK || len(c.Trials) != 3 {
					t.Errorf("%s: %s with %d trials, want ok with 3", c.ID(), c.Status, len(c.Trials))
				}
			}
			for i, tr := range kept {
				if !res.Cells[0].Trials[i].StartedAt.Equal(*tr.StartedAt) {
					t.Errorf("a's trial %d was measured again", i+1)
				}
			}
		})
	}
}

// A run interrupted before it measured anything (while a target's image
// builds, or while its container starts and is waited for) fails no cell,
// leaves nothing on the engine, and leaves a results.json that --resume
// completes: every cell measured in full. (The e2e TestInterruptPhases
// sends the real signals at those phases, against the real engine.)
func TestInterruptBeforeMeasuring(t *testing.T) {
	m := testMatrix(t, twoTargets, "", "a", "b")
	for _, phase := range []string{"build", "readiness"} {
		t.Run(phase, func(t *testing.T) {
			f := newFake()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if phase == "build" {
				f.onBuild = func(tag string) {
					if tag == "webbench/target-a:latest" {
						cancel()
					}
				}
			} else {
				f.onStart = func(role string) {
					if role == "target" {
						cancel()
					}
				}
			}
			out := t.TempDir()
			res, err, _ := runCtx(ctx, t, f, m, Options{OutDir: out, Schedule: Schedule{Seed: 3}})
			if !errors.Is(err, context.Canceled) || res == nil || !res.Interrupted {
				t.Fatalf("err = %v, results %+v: want context.Canceled, marked interrupted", err, res)
			}
			for _, c := range res.Cells {
				if c.Status == results.Failed || len(c.Trials) > 0 {
					t.Errorf("%s: %s %q with %d trials, want neither failed nor measured", c.ID(), c.Status, c.Reason, len(c.Trials))
				}
			}
			prev, err := results.Read(out)
			if err != nil {
				t.Fatalf("results.json of the interrupted run: %v", err)
			}
			res, err, _ = run(t, newFake(), m, Options{OutDir: out, Resume: prev, Schedule: Schedule{Seed: 3}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Cells) != 2 || res.FinishedAt == nil {
				t.Errorf("resumed: %d cells, finished %v", len(res.Cells), res.FinishedAt)
			}
			for _, c := range res.Cells {
				if c.Status != results.OK || len(c.Trials) != 3 {
					t.Errorf("%s after the resume: %s %q with %d trials, want ok with 3", c.ID(), c.Status, c.Reason, len(c.Trials))
				}
			}
		})
	}
}
