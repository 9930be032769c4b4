package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
)

// tracked lists the files under path that git tracks ("" when path is in
// no repository, or git is absent: then nothing is committed to lose).
func tracked(ctx context.Context, path string) []string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	dir, base := path, "."
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		dir, base = filepath.Dir(path), filepath.Base(path)
	}
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "ls-files", "--", base).Output()
	if err != nil {
		return nil
	}
	return strings.Fields(string(out))
}

// committedCells are the cell ids of the results.json that git holds for
// folder dir (its index's version), nil when it holds none.
func committedCells(ctx context.Context, dir string) []string {
	data, err := exec.CommandContext(ctx, "git", "-C", dir, "show", ":./results.json").Output()
	if err != nil {
		return nil
	}
	run, err := results.Decode(data)
	if err != nil {
		return nil
	}
	var ids []string
	for i := range run.Cells {
		ids = append(ids, run.Cells[i].ID())
	}
	return ids
}

// uncovered are the ids of committed that planned lacks: the cells of a
// committed run that overwriting it with planned would lose.
func uncovered(committed, planned []string) []string {
	have := map[string]bool{}
	for _, id := range planned {
		have[id] = true
	}
	var lost []string
	for _, id := range committed {
		if !have[id] {
			lost = append(lost, id)
		}
	}
	return lost
}

// guardTracked refuses run --force into a folder whose files git tracks
// unless this run's cells cover the committed run's: a quick try must not
// replace a committed run with a part of it.
func guardTracked(ctx context.Context, out string, planned []string) error {
	if len(tracked(ctx, out)) == 0 {
		return nil
	}
	lost := uncovered(committedCells(ctx, out), planned)
	if len(lost) == 0 {
		return nil
	}
	return usageErr("run: %s holds a run git tracks, and this run would drop %d of its %d cells (%s…); --out DIR writes elsewhere, or git rm it first",
		out, len(lost), len(committedCells(ctx, out)), lost[0])
}

// leaveIndex says why a run into out must not rewrite the index beside it:
// that index is tracked by git and out is not (a quick try), so it would
// change a committed file. "" when it may.
func leaveIndex(ctx context.Context, out string) string {
	index := filepath.Join(filepath.Dir(filepath.Clean(out)), "README.md")
	if len(tracked(ctx, index)) == 0 || len(tracked(ctx, out)) > 0 {
		return ""
	}
	return fmt.Sprintf("index not updated: %s is tracked by git and %s is not (bin/harness index %s adds it)", index, out, filepath.Dir(filepath.Clean(out)))
}

// leftOut names every target, and the A/A control, that the profile's
// only: or the --only selection leaves out of m: settings that vanish
// without a word make a run that is not the one asked for. It says so in
// a line per reason, not per target: a selection of one target leaves
// out all the others.
func leftOut(m *matrix.Matrix, sel matrix.Selector, online []int) []string {
	full := *m
	full.ProfileOnly = nil
	targets := func(cells []matrix.Cell) (map[string]bool, bool) {
		seen, control := map[string]bool{}, false
		for _, c := range cells {
			seen[c.Target], control = true, control || c.Control
		}
		return seen, control
	}
	all, _ := targets(matrix.Expand(&full, nil, online))
	inProfile, profileControl := targets(matrix.Expand(m, nil, online))
	selected, selControl := targets(matrix.Expand(m, sel, online))
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
