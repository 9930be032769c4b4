package analysis

import (
	"math"
	"sort"

	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/stats"
)

// What a row shows against the next one in rank order (Rank.Next).
const (
	Distinguishable = "distinguishable" // shown faster than the next
	Tie             = "tie"             // not shown faster than the next
)

// Rank is where a row stands among the rows it is compared with: every
// rank from Lo to Hi (1 the fastest) is consistent with the trials at 95%
// confidence. Next is Distinguishable or Tie against the row after it in
// rank order, "" for the last.
type Rank struct {
	Lo, Hi int
	Next   string
}

// RankTrials ranks a group of rows from each one's requests/s per trial,
// given fastest headline first (the rank order): Lo is 1 + the number of
// rows shown faster than it, Hi the group's size − the number shown slower.
//
// One row is shown faster than another when the pair's test rejects "no
// difference" and the slower's RPS falls short of the faster's by at
// least floor (the A/A noise floor; 0 for none). Each of the group's
// N(N−1)/2 pairs is tested, and the family-wise error is held at
// stats.Alpha with Holm's step-down over them: the chance that any
// ordering claimed in the group is wrong stays under 5%.
//
// The test of a pair is paired when paired is set (interleaved trials:
// trial k of each ran in round k, so the machine's drift falls on both)
// and its rounds are enough for a paired test to ever clear α/m at m
// pairs: the sign test on the ratios of trial k to trial k, the test
// whose inversion is the order-statistic interval PairedRatio reports.
// Otherwise it is unpaired: the Mann-Whitney U test (stats.Compare).
// Which test a pair gets depends on its trial counts only, never on the
// values, so the family-wise level holds either way. A row with fewer
// than two trials is shown neither faster nor slower than any other.
func RankTrials(trials [][]float64, paired bool, floor float64) []Rank {
	n := len(trials)
	type pair struct {
		i, j       int
		p          float64
		faster     int // i or j, by the test's estimate; -1: within the floor
		distinctly bool
	}
	var pairs []pair
	m := n * (n - 1) / 2
	for i := range n {
		for j := i + 1; j < n; j++ {
			p, faster := comparePair(trials[i], trials[j], paired && pairedCanReject(trials[i], trials[j], m), floor)
			f := -1
			if faster == 0 {
				f = i
			} else if faster == 1 {
				f = j
			}
			pairs = append(pairs, pair{i: i, j: j, p: p, faster: f})
		}
	}
	sort.SliceStable(pairs, func(a, b int) bool { return pairs[a].p < pairs[b].p })
	for k := range pairs { // Holm: the k-th smallest p against α/(m−k), stopping at the first kept
		if pairs[k].p > stats.Alpha/float64(m-k) {
			break
		}
		pairs[k].distinctly = pairs[k].faster >= 0
	}
	out := make([]Rank, n)
	shown := make([][]bool, n) // shown[a][b]: a is shown faster than b
	for i := range out {
		out[i] = Rank{Lo: 1, Hi: n}
		shown[i] = make([]bool, n)
	}
	for _, pr := range pairs {
		if !pr.distinctly {
			continue
		}
		slow := pr.i + pr.j - pr.faster
		shown[pr.faster][slow] = true
		out[slow].Lo++
		out[pr.faster].Hi--
	}
	for i := 0; i+1 < n; i++ {
		out[i].Next = Tie
		if shown[i][i+1] {
			out[i].Next = Distinguishable
		}
	}
	return out
}

// comparePair tests a against b: the p-value of "no difference", and which
// of them is the faster (0 a, 1 b) by the test's own estimate, the median
// ratio of paired trials or the ratio of the medians; -1 when neither is
// faster by at least floor.
func comparePair(a, b []float64, paired bool, floor float64) (p float64, faster int) {
	if len(a) < 2 || len(b) < 2 {
		return 1, -1
	}
	var ratio float64 // a over b
	if paired {
		var ratios []float64
		for k := range min(len(a), len(b)) {
			if b[k] > 0 {
				ratios = append(ratios, a[k]/b[k])
			}
		}
		if len(ratios) == 0 {
			return 1, -1
		}
		p, ratio = signTest(ratios), stats.Describe(ratios).Median
	} else {
		ma, mb := stats.Describe(a).Median, stats.Describe(b).Median
		if mb <= 0 {
			return 1, -1
		}
		p, ratio = stats.Compare(a, b).P, ma/mb
	}
	switch {
	case ratio > 1 && 1-1/ratio >= floor:
		return p, 0
	case ratio < 1 && 1-ratio >= floor:
		return p, 1
	}
	return p, -1
}

// pairedCanReject says whether a paired test over a's and b's rounds can
// reach α/m at all: with r rounds the smallest two-sided p of the sign
// test is 2/2^r (every round the same way).
func pairedCanReject(a, b []float64, m int) bool {
	r := min(len(a), len(b))
	return m > 0 && 2*math.Pow(0.5, float64(r)) <= stats.Alpha/float64(m)
}

// signTest is the two-sided p-value of the sign test that ratios are as
// often above 1 as below (ratios of exactly 1 dropped): under that, the
// count above is binomial(n, ½).
func signTest(ratios []float64) float64 {
	var n, above int
	for _, r := range ratios {
		if r != 1 {
			n++
			if r > 1 {
				above++
			}
		}
	}
	if n == 0 {
		return 1
	}
	k := min(above, n-above)
	var tail float64 // P(X ≤ k), X ~ binomial(n, ½)
	c := 1.0         // C(n, i)
	for i := 0; i <= k; i++ {
		tail += c
		c = c * float64(n-i) / float64(i+1)
	}
	return math.Min(1, 2*tail*math.Pow(0.5, float64(n)))
}

// rankRows sets the Ranking's rank and next-row word of each row of
// RankGroups; paired is whether the run interleaved its trials by round.
func rankRows(rows []*Row, paired bool, floor float64) {
	for _, in := range RankGroups(rows) {
		trials := make([][]float64, len(in))
		for i, r := range in {
			trials[i] = rpsOf(r.cell)
		}
		for i, rk := range RankTrials(trials, paired, floor) {
			in[i].RankLo, in[i].RankHi, in[i].VsNext = rk.Lo, rk.Hi, rk.Next
		}
	}
}

// RankGroups are the rows ranked together: the full-speed rows of each
// group of comparable rows, controls aside, each group in the order of
// rows (rank order, as Rows sorts them), the groups in the order of
// their first row. Rows of two groups can alternate in a table (the same
// settings, another generator): these keep them apart.
func RankGroups(rows []*Row) [][]*Row {
	at := map[rowGroup]int{}
	var out [][]*Row
	for _, r := range rows {
		if r.Control || r.Rate > 0 {
			continue
		}
		g := groupOf(r)
		i, ok := at[g]
		if !ok {
			i = len(out)
			at[g] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], r)
	}
	return out
}

// rpsOf is c's requests/s per trial, in trial (round) order.
func rpsOf(c *results.Cell) []float64 {
	if c == nil {
		return nil
	}
	out := make([]float64, len(c.Trials))
	for i, t := range c.Trials {
		out[i] = t.RPS
	}
	return out
}
