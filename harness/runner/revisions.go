package runner

import (
	"context"
	"io/fs"
	"os"
	"regexp"
	"strings"

	"github.com/webbench/webbench/harness/axis"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/revision"
)

// resolveRevisions resolves the revision axis's values in m's repository,
// by name; nil when m sets none. An unknown name is an error that names it.
func resolveRevisions(ctx context.Context, m *matrix.Matrix) (map[string]revision.Revision, error) {
	names := m.Axes[axis.Revision.Name]
	if len(names) == 0 {
		return nil, nil
	}
	revs, err := revision.Resolve(ctx, m.Dir, names)
	if err != nil {
		return nil, err
	}
	out := map[string]revision.Revision{}
	for _, r := range revs {
		out[r.Name] = r
	}
	return out, nil
}

// contextOf is the build context of dir for cells of revision rev: the
// folder as the revision has it, or as it is when rev is "".
func (bd *builder) contextOf(ctx context.Context, rev, dir string) (fs.FS, error) {
	if rev == "" {
		return os.DirFS(dir), nil
	}
	return bd.revisions[rev].Tree(ctx, dir)
}

// notTag is what a docker tag cannot hold.
var notTag = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// revisionTag is the image tag of a build from revision rev: tag's
// repository, tagged with the commit's first 12 hex digits ("worktree" for
// the work tree), so that each revision's image stays beside the others'.
func (bd *builder) revisionTag(tag, rev string) string {
	if rev == "" {
		return tag
	}
	repo, _, _ := strings.Cut(tag, ":")
	r := bd.revisions[rev]
	if r.Name == revision.WorkTree || len(r.Commit) < 12 {
		return repo + ":worktree"
	}
	return repo + ":" + r.Commit[:12]
}

// logName is a build log's name for rev: name, with the revision after
// an @ when there is one.
func logName(name, rev string) string {
	if rev == "" {
		return name
	}
	return name + "@" + notTag.ReplaceAllString(rev, "_")
}

// revisionOf is what results.json records of the revision c was built
// from; nil when c has none.
func (bd *builder) revisionOf(c matrix.Cell) *results.Revision {
	rev := c.Key.Axis(axis.Revision)
	if rev == "" {
		return nil
	}
	r := bd.revisions[rev]
	return &results.Revision{Name: r.Name, Commit: r.Commit, Dirty: r.Dirty}
}

// byRevision splits one target's cells by their revision, in the order
// the revisions first appear: each is a build of its own.
func byRevision(cells []matrix.Cell) [][]matrix.Cell {
	var revs []string
	by := map[string][]matrix.Cell{}
	for _, c := range cells {
		rev := c.Key.Axis(axis.Revision)
		if _, ok := by[rev]; !ok {
			revs = append(revs, rev)
		}
		by[rev] = append(by[rev], c)
	}
	out := make([][]matrix.Cell, 0, len(revs))
	for _, rev := range revs {
		out = append(out, by[rev])
	}
	if len(out) == 0 {
		out = append(out, nil) // a target without cells keeps its slot
	}
	return out
}
