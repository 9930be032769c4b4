package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

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
