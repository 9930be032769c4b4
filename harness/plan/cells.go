package plan

import (
	"fmt"
	"strings"

	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/matrix"
)

// Cells lists the cells of m that sel selects, in the matrix's documented
// order, with the targets and the load generator on one machine whose
// cores are online. A cell whose cores do not fit is kept, with Skip set;
// Unsupported is not applied (New applies it).
func Cells(m *matrix.Matrix, sel matrix.Selector, online cpuset.Set) []matrix.Cell {
	return matrix.Expand(m, sel, online)
}

// CellsApart is Cells with the targets on one machine, whose cores are
// targetOnline, and the load generator on another, whose cores are
// loadgenOnline.
func CellsApart(m *matrix.Matrix, sel matrix.Selector, targetOnline, loadgenOnline cpuset.Set) []matrix.Cell {
	return matrix.ExpandApart(m, sel, targetOnline, loadgenOnline)
}

// Count is how many cells Cells would list, computed without listing them
// and saturating at math.MaxInt64, so that a matrix of absurd axes can be
// refused before it takes the machine's memory.
func Count(m *matrix.Matrix, sel matrix.Selector) int64 {
	return matrix.Count(m, sel)
}

// LeftOut names every target, and the A/A control, that the profile's
// only: or the selection sel (--only) leaves out of m: settings that
// vanish without a word make a run that is not the one asked for. It says
// so in a line per reason, not per target: a selection of one target
// leaves out all the others.
func LeftOut(m *matrix.Matrix, sel matrix.Selector, online cpuset.Set) []string {
	full := *m
	full.ProfileOnly = nil
	targets := func(cells []matrix.Cell) (map[string]bool, bool) {
		seen, control := map[string]bool{}, false
		for _, c := range cells {
			seen[c.Target], control = true, control || c.Control
		}
		return seen, control
	}
	all, _ := targets(Cells(&full, nil, online))
	inProfile, profileControl := targets(Cells(m, nil, online))
	selected, selControl := targets(Cells(m, sel, online))
	var names []string
	var byProfile, byOnly []string
	for _, t := range m.Targets {
		names = append(names, t.Name)
		switch {
		case all[t.Name] && !inProfile[t.Name]:
			byProfile = append(byProfile, t.Name)
		case inProfile[t.Name] && !selected[t.Name]:
			byOnly = append(byOnly, t.Name)
		}
	}
	var out []string
	if len(byProfile) > 0 {
		out = append(out, fmt.Sprintf("left out by profile %s's only: %d target(s): %s", m.Profile, len(byProfile), compactNames(byProfile, names)))
	}
	if len(byOnly) > 0 {
		out = append(out, fmt.Sprintf("left out by --only: %d target(s): %s", len(byOnly), compactNames(byOnly, names)))
	}
	if profileControl && !selControl {
		out = append(out, fmt.Sprintf("left out by --only: control %s, so this run carries no A/A floor of its own", strings.Join(m.Control, ",")))
	}
	return out
}

// compactNames lists names, a part of all, in their order, writing the
// names that share a first word as "word-* (n)" when they are three or
// more and that glob matches no name of all outside names: exact, and
// short.
func compactNames(names, all []string) string {
	prefix := func(n string) string {
		if p, _, ok := strings.Cut(n, "-"); ok {
			return p + "-"
		}
		return ""
	}
	in, count := map[string]int{}, map[string]int{}
	for _, n := range names {
		in[prefix(n)]++
	}
	for _, n := range all {
		count[prefix(n)]++
	}
	var parts []string
	done := map[string]bool{}
	for _, n := range names {
		p := prefix(n)
		switch {
		case p == "" || in[p] < 3 || in[p] != count[p]:
			parts = append(parts, n)
		case !done[p]:
			parts = append(parts, fmt.Sprintf("%s* (%d)", p, in[p]))
			done[p] = true
		}
	}
	return strings.Join(parts, ", ")
}
