package runner

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/webbench/webbench/harness/buildtime"
	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/results"
)

// In a duet round every compared cell runs once beside its baseline, the
// baseline takes its own trial in its first duet of the round only, a
// cell compared with nothing runs alone, and each pair swaps sides every
// round.
func TestDuets(t *testing.T) {
	key := func(target string, control bool) cellid.Key {
		return cellid.Key{Target: target, Scenario: "plaintext", CPUs: 1, Connections: 8, Control: control}
	}
	keys := []cellid.Key{key("a", false), key("b", false), key("c", false), key("a", true), key("z", false)}
	keys[4].Connections = 16 // no baseline at c16
	rels := []cellid.Relative{{Target: "a"}}
	rounds := order{interleave: true, duet: true, seed: 3}.duets(keys, rels, 4)
	if len(rounds) != 4 {
		t.Fatalf("%d rounds, want 4", len(rounds))
	}
	sides := map[int][]bool{}
	for k, round := range rounds {
		var owns []int
		baseOwn := 0
		for _, s := range round {
			owns = append(owns, s.own)
			switch s.own {
			case 1, 2, 3:
				if s.partner != 0 {
					t.Errorf("round %d: cell %d beside %d, want beside its baseline 0", k+1, s.own, s.partner)
				}
			case 4:
				if s.partner != -1 {
					t.Errorf("round %d: z, compared with nothing, beside %d", k+1, s.partner)
				}
			}
			if s.partnerOwn {
				baseOwn++
			}
			if s.partner >= 0 {
				sides[s.own] = append(sides[s.own], s.swap)
			}
		}
		if slices.Sort(owns); !slices.Equal(owns, []int{1, 2, 3, 4}) {
			t.Errorf("round %d runs cells %v, want every cell but the baseline once", k+1, owns)
		}
		if baseOwn != 1 {
			t.Errorf("round %d: the baseline took its own trial %d times, want once", k+1, baseOwn)
		}
	}
	for i, s := range sides {
		for k := 1; k < len(s); k++ {
			if s[k] == s[k-1] {
				t.Errorf("cell %d kept its side from round %d to %d: %v", i, k, k+1, s)
			}
		}
	}
}

// A side waits at each meeting point for the other, and stops waiting
// when the other's visit ended before reaching it.
func TestMeeting(t *testing.T) {
	m := newMeeting()
	var wg sync.WaitGroup
	var got [2][]bool
	wg.Go(func() {
		defer m.leave(0)
		got[0] = append(got[0], m.wait(0), m.wait(0), m.wait(0))
	})
	wg.Go(func() {
		defer m.leave(1)
		got[1] = append(got[1], m.wait(1), m.wait(1))
	})
	wg.Wait()
	if !slices.Equal(got[0], []bool{true, true, false}) || !slices.Equal(got[1], []bool{true, true}) {
		t.Errorf("meetings %v: want side 0 alone at its third point only", got)
	}
}

// A run of both schedules measures the duet's A/A control at the same time
// as its twin, each side through its own generator, swapping cores every
// round, and records beside each control trial its twin's reading of the
// same moment; the interleaved control runs back to back with its twin,
// as before.
func TestDuetRun(t *testing.T) {
	m := testMatrix(t, strings.Replace(twoTargets, "trials: 3}", "trials: 4}\ncontrol: a/plaintext\nschedule: [interleaved, duet]", 1), "", "a", "b")
	f := newFake()
	f.ncpu = 2
	partner := f.generator()
	first := f.generator()
	opt := Options{Matrix: m, OutDir: t.TempDir(), LockDir: t.TempDir(), Progress: &recorder{}, NoCeiling: true,
		BuildTimes: buildtime.Open(filepath.Join(t.TempDir(), "build-times.json")), Schedule: Schedule{Seed: 5}}
	res, err := start(context.Background(), f.engine(), opt, first, partner)
	if err != nil {
		t.Fatal(err)
	}
	if left := f.live(); len(left) > 0 {
		t.Errorf("left on the engine: %v", left)
	}
	if res.Matrix.Order != results.Duet {
		t.Errorf("order %q, want duet", res.Matrix.Order)
	}
	if len(first.ran()) == 0 || len(partner.ran()) == 0 {
		t.Fatalf("runs: %d on the first generator, %d on the second; want both used", len(first.ran()), len(partner.ran()))
	}
	if len(res.Cells) != 6 {
		t.Fatalf("%d cells, want a, its control and b on each schedule", len(res.Cells))
	}
	for _, c := range res.Cells {
		if c.Status != results.OK || len(c.Trials) != 4 {
			t.Errorf("%s: %s %q, %d trials", c.ID(), c.Status, c.Reason, len(c.Trials))
		}
	}
	ctl, twin := cellByID(t, res, "a/plaintext/1cpu/c8/schedule=duet (control)"), cellByID(t, res, "a/plaintext/1cpu/c8/schedule=duet")
	var cores []string
	for k, tr := range ctl.Trials {
		if tr.Beside == nil || tr.Beside.Cell != twin.ID() || tr.Beside.RPS <= 0 {
			t.Fatalf("control trial %d beside %+v, want its twin's reading", k+1, tr.Beside)
		}
		if tr.CPUSet == tr.Beside.CPUSet || tr.CPUSet == "" {
			t.Errorf("control trial %d on cores %q beside %q: want one core each", k+1, tr.CPUSet, tr.Beside.CPUSet)
		}
		cores = append(cores, tr.CPUSet)
	}
	if cores[0] == cores[1] || cores[1] == cores[2] {
		t.Errorf("the control's cores by round %v: want them swapped every round", cores)
	}
	if !strings.Contains(ctl.Duet, "together") {
		t.Errorf("control's duet note %q: want how it was placed", ctl.Duet)
	}
	for _, tr := range cellByID(t, res, "a/plaintext/1cpu/c8 (control)").Trials {
		if tr.Beside != nil || tr.CPUSet != "" {
			t.Errorf("an interleaved control's trial ran beside %+v on %q: want back to back, on its cell's cores", tr.Beside, tr.CPUSet)
		}
	}
}
