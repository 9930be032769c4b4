package runner

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/results"
)

// blocks joins exactly the cells a report compares trial by trial: a
// control with its twin, a cell with its baseline under each relative,
// transitively; a cell compared with nothing stays alone.
func TestBlocks(t *testing.T) {
	key := func(target string, conns int, control bool) cellid.Key {
		return cellid.Key{Target: target, Scenario: "plaintext", CPUs: 1, Connections: conns, Control: control}
	}
	keys := []cellid.Key{
		key("a", 8, false), key("b", 8, false), key("c", 8, false), // 0-2
		key("a", 16, false), key("b", 16, false), // 3-4
		key("a", 8, true),  // 5: a's A/A twin at c8
		key("z", 16, true), // 6: a control whose twin is not in the run
	}
	for _, tc := range []struct {
		name string
		rels []cellid.Relative
		want [][]int
	}{
		{"controls only", nil, [][]int{{0, 5}, {1}, {2}, {3}, {4}, {6}}},
		{"target baseline", []cellid.Relative{{Target: "a"}}, [][]int{{0, 1, 2, 5}, {3, 4}, {6}}},
		{"connections baseline", []cellid.Relative{{Connections: 8}}, [][]int{{0, 3, 5}, {1, 4}, {2}, {6}}},
		{"both, transitively", []cellid.Relative{{Target: "a"}, {Connections: 8}}, [][]int{{0, 1, 2, 3, 4, 5}, {6}}},
		{"a baseline no cell has", []cellid.Relative{{Target: "nope"}}, [][]int{{0, 5}, {1}, {2}, {3}, {4}, {6}}},
	} {
		if got := blocks(keys, tc.rels); !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("%s: blocks %v, want %v", tc.name, got, tc.want)
		}
	}
}

// With groups of one, a round's order is rng.Perm itself: a seed recorded
// before blocking existed (or with --unblocked) gives the order it gave.
func TestBlockPermUnblockedIsPerm(t *testing.T) {
	for seed := range uint64(20) {
		a, b := rand.New(rand.NewPCG(seed, 0)), rand.New(rand.NewPCG(seed, 0))
		for round := range 5 {
			if got, want := blockPerm(a, singletons(7)), b.Perm(7); !slices.Equal(got, want) {
				t.Fatalf("seed %d round %d: %v, rng.Perm gave %v", seed, round, got, want)
			}
		}
	}
}

const blockedMatrix = `version: 1
images: {debian: debian:bookworm-slim}
load: {duration: 1s, warmup: 0s, trials: 4}
connections: [8, 16]
control: a/plaintext
report: {relative_to: [{target: a}]}
targets:
  a: {build: a, port: 8080}
  b: {build: b, port: 8080}
scenarios:
  plaintext: {path: /plaintext, expect: {status: 200, content_type: text/plain, body: "Hello, World!"}}
`

// In a blocked run each round runs a cell, its A/A twin and its baseline
// back to back (here: the three cells of one connection count, then the
// three of the other), every cell once a round; --unblocked lets a round
// split them, as every run before blocking could.
func TestBlockedRounds(t *testing.T) {
	m := testMatrix(t, blockedMatrix, "", "a", "b")
	conns := func(load string) string { // "load a/plaintext/1cpu/c8 (control)" → "c8"
		f := strings.Fields(load)
		return f[1][strings.LastIndex(f[1], "/")+1:]
	}
	split := func(seed uint64, unblocked bool) bool {
		f := newFake()
		res, err, _ := run(t, f, m, Options{Schedule: Schedule{Seed: seed, Unblocked: unblocked}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Matrix.Blocked == unblocked {
			t.Errorf("results record blocked %v for unblocked %v", res.Matrix.Blocked, unblocked)
		}
		b := f.loads()
		if len(b) != 24 {
			t.Fatalf("%d loads, want 6 cells × 4 rounds: %v", len(b), b)
		}
		split := false
		for round := range 4 {
			r := b[6*round : 6*round+6]
			if s := slices.Clone(r); len(slices.Compact(slices.Sorted(slices.Values(s)))) != 6 {
				t.Errorf("round %d does not run every cell once: %v", round+1, r)
			}
			for i := 1; i < 6; i++ {
				if i != 3 && conns(r[i]) != conns(r[i-1]) {
					split = true
				}
			}
		}
		for _, c := range res.Cells {
			if c.Status != results.OK || len(c.Trials) != 4 {
				t.Errorf("%s: %s %q, %d trials", c.ID(), c.Status, c.Reason, len(c.Trials))
			}
		}
		return split
	}
	for seed := uint64(1); seed <= 5; seed++ {
		if split(seed, false) {
			t.Errorf("seed %d: a blocked round interleaved the c8 and c16 cells", seed)
		}
	}
	everSplit := false
	for seed := uint64(1); seed <= 10 && !everSplit; seed++ {
		everSplit = split(seed, true)
	}
	if !everSplit {
		t.Error("--unblocked never split a block in 10 seeds: is it still blocking?")
	}
}

// A reap names every image it removed, not only how many.
func TestLeftoversNamed(t *testing.T) {
	got := leftovers([]string{"container webbench-1-x", "image sha256:0123456789abcdef0123", "image sha256:fedcba9876543210"})
	want := "container webbench-1-x, 2 dangling image(s) of earlier webbench builds (0123456789ab, fedcba987654)"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Rounds are one permutation of the cells each, repeated by the seed and
// changed by another; blocked, a group's cells run back to back.
func TestRounds(t *testing.T) {
	key := func(target string, conns int) cellid.Key {
		return cellid.Key{Target: target, Scenario: "plaintext", CPUs: 1, Connections: conns}
	}
	keys := []cellid.Key{key("a", 8), key("b", 8), key("a", 16), key("b", 16), key("c", 8)}
	rels := []cellid.Relative{{Target: "a"}}
	for _, blocked := range []bool{false, true} {
		o := order{interleave: true, blocked: blocked, seed: 11}
		got := o.rounds(keys, rels, 4)
		if again := o.rounds(keys, rels, 4); !slices.EqualFunc(got, again, slices.Equal) {
			t.Errorf("blocked=%v: seed 11 gave %v, then %v", blocked, got, again)
		}
		if len(got) != 4 {
			t.Fatalf("blocked=%v: %d rounds, want 4", blocked, len(got))
		}
		for k, round := range got {
			if sorted := slices.Sorted(slices.Values(round)); !slices.Equal(sorted, []int{0, 1, 2, 3, 4}) {
				t.Errorf("blocked=%v round %d: %v is not every cell once", blocked, k+1, round)
			}
			if !blocked {
				continue
			}
			for _, g := range blocks(keys, rels) {
				var at []int
				for _, i := range g {
					at = append(at, slices.Index(round, i))
				}
				if slices.Max(at)-slices.Min(at)+1 != len(g) {
					t.Errorf("round %d: %v splits the group %v", k+1, round, g)
				}
			}
		}
		differ := false
		for seed := uint64(12); seed < 40 && !differ; seed++ {
			o.seed = seed
			differ = !slices.EqualFunc(got, o.rounds(keys, rels, 4), slices.Equal)
		}
		if !differ {
			t.Errorf("blocked=%v: the rounds never change with the seed", blocked)
		}
	}
}

// The estimate against the actual gives no share of a phase that took
// under a second (nothing built: "builds 0s, took 0s (-100%)" said
// nothing true), and gives it for one that took longer.
func TestTimingReportNoShareOfNothing(t *testing.T) {
	var b strings.Builder
	tm := timing{builds: 300 * time.Millisecond, estCells: 200 * time.Second, cells: 191 * time.Second}
	tm.report(&b)
	if !strings.Contains(b.String(), "builds 0s, took 0s; cells 3m20s, took 3m11s (+5%)") {
		t.Errorf("report: %q", b.String())
	}
}
