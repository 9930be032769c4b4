package axis

import "strings"

// Revision is the revision axis: the git revisions each target is built
// from (package revision reads them), the first of them the baseline the
// others are measured against. Its default, "", builds from the work tree
// without naming a revision.
var Revision = Axis{
	Name: "revision",
	Doc: "Git revisions of the repository holding the matrix file (a branch, a tag, a hash, HEAD~1, or WORKTREE for the work tree as it is), each target built from each; " +
		"the first is the baseline, which the run measures the others against in pairs, with an A/A control of its own (run --revisions A,B).",
	Example: "[origin/main, WORKTREE]",
	Check:   revisionName,
}

func init() { Register(Revision) }

// revisionName refuses what cannot name a revision; whether a commit has
// the name is for the repository to say.
func revisionName(v string) string {
	switch {
	case strings.HasPrefix(v, "-"):
		return "a revision does not start with -"
	case strings.ContainsAny(v, " \t\n\x00"):
		return "a revision has no blanks"
	}
	return ""
}
