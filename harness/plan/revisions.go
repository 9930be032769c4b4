package plan

import (
	"context"
	"slices"

	"github.com/webbench/webbench/harness/axis"
	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/revision"
)

// Paired is m made ready to measure its revisions against the first: with
// two or more on the revision axis, each name must be a commit of the
// matrix's repository (or WORKTREE), every cell is compared with its twin
// of the first revision (a relative_to baseline, so that each pair runs
// back to back in every round, in an order the seed shuffles), and each
// cell of the first revision is measured twice, as an A/A control that
// gives the run its own noise floor. A matrix with fewer revisions is
// returned as it is.
func Paired(ctx context.Context, m *matrix.Matrix) (*matrix.Matrix, error) {
	revs := m.Axes[axis.Revision.Name]
	if len(revs) < 2 {
		return m, nil
	}
	if _, err := revision.Resolve(ctx, m.Dir, revs); err != nil {
		return nil, err
	}
	c := *m
	base := cellid.Relative{Axis: axis.Revision.Name, Value: revs[0]}
	if !slices.Contains(c.RelativeTo, base) {
		c.RelativeTo = append(slices.Clone(c.RelativeTo), base)
	}
	term := axis.Revision.Name + "=" + revs[0]
	if !slices.Contains(c.Control, term) {
		c.Control = append(slices.Clone(c.Control), term)
	}
	return &c, nil
}

// revisionBuild names the build of folder dir from revision rev:
// "dir@rev", or dir alone for the work tree unnamed ("").
func revisionBuild(dir, rev string) string {
	if rev == "" {
		return dir
	}
	return dir + "@" + rev
}
