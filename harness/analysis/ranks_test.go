package analysis

import (
	"math"
	"reflect"
	"testing"

	"github.com/webbench/webbench/harness/results"
)

// shift is xs each multiplied by f.
func shift(xs []float64, f float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x * f
	}
	return out
}

var sixTrials = []float64{100, 101, 102, 99, 100, 101}

func TestRankTrials(t *testing.T) {
	for _, tc := range []struct {
		name   string
		trials [][]float64
		paired bool
		floor  float64
		want   []Rank
	}{
		{"three apart", [][]float64{sixTrials, shift(sixTrials, 0.9), shift(sixTrials, 0.8)}, false, 0,
			[]Rank{{1, 1, Distinguishable}, {2, 2, Distinguishable}, {3, 3, ""}}},
		{"two tied, one slower", [][]float64{sixTrials, {98, 100, 103, 97, 99, 101}, shift(sixTrials, 0.8)}, false, 0,
			[]Rank{{1, 2, Tie}, {1, 2, Distinguishable}, {3, 3, ""}}},
		// Each pair of three rows of four trials apart has p = 2/70 ≈
		// 0.029: under 0.05 for one pair, but Holm asks 0.05/3 of the
		// smallest of three.
		{"four trials, one pair", [][]float64{{10, 11, 12, 13}, {5, 6, 7, 8}}, false, 0,
			[]Rank{{1, 1, Distinguishable}, {2, 2, ""}}},
		{"four trials, three pairs", [][]float64{{10, 11, 12, 13}, {5, 6, 7, 8}, {1, 2, 3, 4}}, false, 0,
			[]Rank{{1, 3, Tie}, {1, 3, Tie}, {1, 3, ""}}},
		// Apart by 10% clearly, but the A/A controls moved 15%.
		{"within the floor", [][]float64{sixTrials, shift(sixTrials, 0.9)}, false, 0.15,
			[]Rank{{1, 2, Tie}, {1, 2, ""}}},
		{"one trial", [][]float64{sixTrials, {50}, shift(sixTrials, 0.8)}, false, 0,
			[]Rank{{1, 2, Tie}, {1, 3, Tie}, {2, 3, ""}}},
		{"alone", [][]float64{sixTrials}, true, 0, []Rank{{1, 1, ""}}},
		// Six rounds cannot take a sign test under 0.05/3: the pairs fall
		// back to the U test, which tells these apart.
		{"paired, too few rounds", [][]float64{sixTrials, shift(sixTrials, 0.9), shift(sixTrials, 0.8)}, true, 0,
			[]Rank{{1, 1, Distinguishable}, {2, 2, Distinguishable}, {3, 3, ""}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RankTrials(tc.trials, tc.paired, tc.floor); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// A machine that drifts between rounds hides a 2% difference from an
// unpaired test, but not from one that pairs each round's trials: b is
// 2% slower than a in every round.
func TestRankTrialsPairedByRound(t *testing.T) {
	a := []float64{100, 120, 90, 110, 80, 105, 95, 115}
	b := shift(a, 0.98)
	if got := RankTrials([][]float64{a, b}, true, 0); got[0] != (Rank{1, 1, Distinguishable}) || got[1] != (Rank{2, 2, ""}) {
		t.Errorf("paired: %v, want a before b, distinguishable", got)
	}
	if got := RankTrials([][]float64{a, b}, false, 0); got[0] != (Rank{1, 2, Tie}) {
		t.Errorf("unpaired: %v, want a tie", got)
	}
}

func TestSignTest(t *testing.T) {
	for _, tc := range []struct {
		ratios []float64
		want   float64
	}{
		{[]float64{1.1, 1.2, 1.1, 1.3, 1.1, 1.2}, 2.0 / 64},
		{[]float64{0.9, 0.8, 0.9, 0.7, 0.9, 0.8}, 2.0 / 64},
		{[]float64{1.1, 0.9, 1.1, 0.9}, 1},
		{[]float64{1.1, 1.1, 1.1, 0.9, 1}, 2 * 5.0 / 16}, // the 1 dropped: 3 of 4 above
		{[]float64{1, 1}, 1},
	} {
		if got := signTest(tc.ratios); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("signTest(%v) = %v, want %v", tc.ratios, got, tc.want)
		}
	}
}

// Rows ranks the full-speed rows of each group apart from the others,
// and leaves an A/A control out of the ranking.
func TestRowsRank(t *testing.T) {
	ctl := cell("a", 1, 100, 101, 102, 99, 100, 101)
	ctl.Control = true
	run := &results.Run{Cells: []*results.Cell{
		cell("a", 1, 100, 101, 102, 99, 100, 101),
		ctl,
		cell("b", 1, 90, 91, 92, 89, 90, 91),
		cell("c", 1, 98, 100, 103, 97, 99, 101),
		cell("a", 2, 200, 201, 202, 199, 200, 201),
	}}
	got := map[string]Ranking{}
	for _, r := range Rows(run, "plaintext") {
		got[r.ID] = r.Ranking
	}
	for id, want := range map[string][3]any{
		cell("a", 1).ID(): {1, 2, Tie},
		cell("c", 1).ID(): {1, 2, Distinguishable},
		cell("b", 1).ID(): {3, 3, ""},
		cell("a", 2).ID(): {1, 1, ""},
		ctl.ID():          {0, 0, ""},
	} {
		if r := got[id]; r.RankLo != want[0] || r.RankHi != want[1] || r.VsNext != want[2] {
			t.Errorf("%s: rank %d–%d, next %q; want %v", id, r.RankLo, r.RankHi, r.VsNext, want)
		}
	}
}
