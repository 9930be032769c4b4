package runner

import (
	"math/rand/v2"

	"github.com/webbench/webbench/harness/cellid"
)

// order is how a run orders its trials: cell by cell, or interleaved in
// rounds (trial k of every cell in round k) shuffled from seed, the cells
// a report compares trial by trial run back to back in each round when
// blocked.
type order struct {
	interleave bool
	blocked    bool
	duet       bool // rounds of duets (see duets)
	seed       uint64
}

// rounds is the order of each of trials rounds over the cells with keys,
// as indexes into keys: the same seed gives the same rounds. rels are the
// matrix's relative_to, which say which cells are compared.
func (o order) rounds(keys []cellid.Key, rels []cellid.Relative, trials int) [][]int {
	rng := rand.New(rand.NewPCG(o.seed, 0))
	groups := singletons(len(keys))
	if o.blocked {
		groups = blocks(keys, rels)
	}
	out := make([][]int, trials)
	for k := range out {
		out[k] = blockPerm(rng, groups)
	}
	return out
}

// blocks groups the cells a run compares trial by trial: a control with
// its twin, a cell with its baseline under each relative (as
// analysis.Relatives pairs them), and so on transitively. Each group lists
// indexes into keys in ascending order; groups are ordered by their first
// index, so that cells compared with nothing are one group each, in order.
func blocks(keys []cellid.Key, rels []cellid.Relative) [][]int {
	at := make(map[string]int, len(keys))
	for i, k := range keys {
		at[k.ID()] = i
	}
	parent := make([]int, len(keys))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	join := func(i int, k cellid.Key) {
		j, ok := at[k.ID()]
		if !ok {
			return
		}
		a, b := find(i), find(j)
		parent[max(a, b)] = min(a, b) // the root is the group's first index
	}
	for i, k := range keys {
		if k.Control {
			twin := k
			twin.Control = false
			join(i, twin)
			continue // a control is compared with its twin only
		}
		for _, rel := range rels {
			join(i, rel.Base(k))
		}
	}
	var out [][]int
	group := map[int]int{}
	for i := range keys {
		root := find(i)
		g, ok := group[root]
		if !ok {
			g = len(out)
			group[root] = g
			out = append(out, nil)
		}
		out[g] = append(out[g], i)
	}
	return out
}

// singletons is n groups of one, in order: no cell blocked with another.
func singletons(n int) [][]int {
	out := make([][]int, n)
	for i := range out {
		out[i] = []int{i}
	}
	return out
}

// blockPerm is one round's order: the groups shuffled, each group's
// members shuffled and run back to back. With groups of one it is
// rng.Perm(n) itself (shuffling one member draws nothing), so an unblocked
// seed repeats the order it gave before blocking existed.
func blockPerm(rng *rand.Rand, groups [][]int) []int {
	var out []int
	for _, g := range rng.Perm(len(groups)) {
		for _, j := range rng.Perm(len(groups[g])) {
			out = append(out, groups[g][j])
		}
	}
	return out
}

// slot is one step of a duet round: cell own measured at the same time as
// partner, the cell it is compared with trial by trial, or alone when
// partner is -1. The partner's trial is its own trial of the round when
// partnerOwn is set (its first duet of the round, for a cell compared with
// nothing itself), else only the reading beside own's. swap puts own on
// the second side's cores.
type slot struct {
	own, partner int
	partnerOwn   bool
	swap         bool
}

// duets is the order of each of trials rounds of a duet run over the
// cells with keys: the groups of blocks shuffled from seed as rounds
// shuffles them, each cell compared with another (see partners) in a
// duet with it, and a cell compared with nothing alone; a baseline runs
// only beside the cells compared with it. Each pair swaps sides every
// round.
func (o order) duets(keys []cellid.Key, rels []cellid.Relative, trials int) [][]slot {
	rng := rand.New(rand.NewPCG(o.seed, 0))
	part := partners(keys, rels)
	isBase := make([]bool, len(keys))
	for _, p := range part {
		if p >= 0 {
			isBase[p] = true
		}
	}
	groups := blocks(keys, rels)
	out := make([][]slot, trials)
	for k := range out {
		measured := make([]bool, len(keys)) // a baseline's own trial of the round is taken
		for _, i := range blockPerm(rng, groups) {
			p := part[i]
			switch {
			case p >= 0:
				own := part[p] < 0 && !measured[p]
				measured[p] = measured[p] || own
				out[k] = append(out[k], slot{own: i, partner: p, partnerOwn: own, swap: (k+i)%2 == 1})
			case !isBase[i]:
				out[k] = append(out[k], slot{own: i, partner: -1})
			}
		}
	}
	return out
}

// partners is, for each cell of keys, the index of the cell it is
// compared with trial by trial: a control's twin, or its baseline under
// the first of rels that gives one in keys; -1 for a cell compared with
// nothing (a baseline itself).
func partners(keys []cellid.Key, rels []cellid.Relative) []int {
	at := make(map[string]int, len(keys))
	for i, k := range keys {
		at[k.ID()] = i
	}
	out := make([]int, len(keys))
	for i, k := range keys {
		out[i] = -1
		if k.Control {
			twin := k
			twin.Control = false
			if j, ok := at[twin.ID()]; ok {
				out[i] = j
			}
			continue
		}
		for _, rel := range rels {
			if j, ok := at[rel.Base(k).ID()]; ok && j != i {
				out[i] = j
				break
			}
		}
	}
	return out
}
