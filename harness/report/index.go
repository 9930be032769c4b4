package report

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/webbench/webbench/harness/internal/mdtext"
	"github.com/webbench/webbench/harness/internal/safefile"
	"github.com/webbench/webbench/harness/results"
)

// MaxIndexSize bounds the README.md an index is read from: a results
// folder's front page, never more than a megabyte, and never a FIFO or
// /dev/zero (safefile reads regular files only).
const MaxIndexSize = 1 << 20

// Index markers delimit the generated table in a results folder's README.md;
// text outside them is kept as written.
const (
	IndexStart = "<!-- index:start (bin/harness index rewrites this part) -->"
	IndexEnd   = "<!-- index:end -->"
)

// IndexIfPresent rewrites root's index if root/README.md has one (its
// markers), and reports whether it did: what a run calls on the folder
// that holds its result set, so that the index lists every result set
// there. A folder without an index is left alone.
func IndexIfPresent(root string) (bool, error) {
	text, err := safefile.ReadIfPresent(filepath.Join(root, "README.md"), MaxIndexSize)
	if err != nil || !strings.Contains(string(text), IndexStart) || !strings.Contains(string(text), IndexEnd) {
		return false, nil
	}
	return true, Index(root)
}

// Index rewrites the table of result sets in root/README.md: one row per
// subfolder holding a results.json (folder as a link, label, machine, date,
// profile, network, trials, cells ok/failed/skipped), then links to the
// comparisons (compare-*.md) beside them, sorted by folder name so the
// bytes are stable.
func Index(root string) error {
	entries, err := os.ReadDir(root)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString(IndexStart + "\n")
	b.WriteString("| folder | label | machine | date | profile | network | trials | cells ok/failed/skipped |\n|---|---|---|---|---|---|---|---|\n")
	var compares []string
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() {
			if strings.HasPrefix(name, "compare-") && strings.HasSuffix(name, ".md") {
				compares = append(compares, name)
			}
			continue
		}
		run, err := results.Read(filepath.Join(root, name))
		if err != nil {
			continue // not a result set
		}
		env, m := run.Environment, run.Matrix
		trials := fmt.Sprintf("%d × %s", m.Load.Trials, strings.TrimPrefix(m.PerTrial(), "duration "))
		if m.Load.Aggregate == results.AggregateBest {
			trials += ", best"
		}
		if m.Order == results.Interleaved || m.Order == results.Duet {
			how := "interleaved"
			switch {
			case m.Order == results.Duet:
				how = "interleaved, duets for schedule=duet"
			case m.Blocked:
				how += ", blocked"
			}
			trials += fmt.Sprintf(", %s (seed %d)", how, m.Seed)
		}
		profile := m.Profile
		if profile == "" {
			profile = "—"
		}
		fmt.Fprintf(&b, "| [%s](%s/README.md) | %s | %s, %d CPUs | %s | %s | %s | %s | %s |\n",
			mdtext.Text(name), (&url.URL{Path: name}).EscapedPath(), mdtext.Text(env.Label), mdtext.Text(env.CPUModel), env.OnlineCPUs, env.StartedAt.UTC().Format("2006-01-02"),
			mdtext.Text(profile), mdtext.Text(string(env.NetworkMode)), trials, cellCounts(run))
	}
	sort.Strings(compares)
	if len(compares) > 0 {
		b.WriteString("\nComparisons: ")
		for i, c := range compares {
			if i > 0 {
				b.WriteString(" · ")
			}
			label := strings.TrimSuffix(strings.TrimPrefix(c, "compare-"), ".md")
			label = strings.NewReplacer("[", "\\[", "]", "\\]").Replace(mdtext.Text(label))
			fmt.Fprintf(&b, "[%s](%s)", label, (&url.URL{Path: c}).EscapedPath())
		}
		b.WriteString("\n")
	}
	b.WriteString(IndexEnd)

	path := filepath.Join(root, "README.md")
	old, err := safefile.ReadIfPresent(path, MaxIndexSize)
	if err != nil {
		return err
	}
	text := string(old)
	i, j := strings.Index(text, IndexStart), strings.Index(text, IndexEnd)
	switch {
	case i >= 0 && j > i:
		text = text[:i] + b.String() + text[j+len(IndexEnd):]
	case text == "":
		text = "# Committed results\n\n" + b.String() + "\n"
	default:
		text = strings.TrimRight(text, "\n") + "\n\n" + b.String() + "\n"
	}
	return results.WriteFileAtomic(path, []byte(text))
}

// cellCounts is a run's cells ok/failed/skipped, and those measured in
// part when any were.
func cellCounts(run *results.Run) string {
	counts := map[results.Status]int{}
	for _, c := range run.Cells {
		counts[c.Status]++
	}
	out := fmt.Sprintf("%d/%d/%d", counts[results.OK], counts[results.Failed], counts[results.Skipped])
	if n := counts[results.Partial]; n > 0 {
		out += fmt.Sprintf(", %d partial", n)
	}
	return out
}
