package runner

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/axis"
	"github.com/webbench/webbench/harness/engine"
)

// A declared axis's values reach results.json: each cell's (its id
// naming the value unless it is the default) and the run's settings.
func TestDeclaredAxisRecorded(t *testing.T) {
	axis.Register(axis.Axis{Name: "flavour", Doc: "d", Example: "[sour]", Default: "plain", Check: func(string) string { return "" }})
	t.Cleanup(func() { axis.Unregister("flavour") })
	m := testMatrix(t, "flavour: [plain, sour]\n"+twoTargets, "one", "a", "b")
	res, err, _ := run(t, newFake(), m, Options{Only: "a"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range res.Cells {
		ids = append(ids, c.ID())
	}
	if want := []string{"a/plaintext/1cpu/c8", "a/plaintext/1cpu/c8/flavour=sour"}; !slices.Equal(ids, want) {
		t.Errorf("cells %q, want %q", ids, want)
	}
	if got := res.Matrix.Axes["flavour"]; !slices.Equal(got, []string{"plain", "sour"}) {
		t.Errorf("settings' axes: %q", got)
	}
}

// A run over two revisions builds each target from each revision's tree
// as git has it, whatever the work tree holds, tags each image by its
// commit, and records each cell's revision and commit.
func TestRevisionsBuilt(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip(err)
	}
	m := testMatrix(t, twoTargets, "one", "a", "b")
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", m.Dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...).Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	dockerfile := filepath.Join(m.Dir, "a", "Dockerfile")
	var commits []string
	for _, text := range []string{"FROM scratch\n# base\n", "FROM scratch\n# head\n"} {
		os.WriteFile(dockerfile, []byte(text), 0o644)
		if len(commits) == 0 {
			git("init", "-q")
		}
		git("add", "-A")
		git("commit", "-qm", "x")
		commits = append(commits, git("rev-parse", "HEAD"))
	}
	os.WriteFile(dockerfile, []byte("FROM scratch\n# uncommitted\n"), 0o644)
	m.Axes = map[string][]string{"revision": {"HEAD~1", "HEAD"}}
	f := newFake()
	f.built = map[string]engine.BuildSpec{}
	res, err, _ := run(t, f, m, Options{Only: "a"})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"# base", "# head"} {
		spec, ok := f.built["webbench/target-a:"+commits[i][:12]]
		if !ok {
			t.Fatalf("no build tagged with commit %d's hash; built %v", i, f.callsWith("build "))
		}
		data, err := fs.ReadFile(spec.Context, "Dockerfile")
		if err != nil || !strings.Contains(string(data), want) {
			t.Errorf("commit %d's build read %q, %v; want its Dockerfile (%s)", i, data, err, want)
		}
	}
	for _, c := range res.Cells {
		rev := c.Key().Axis(axis.Revision)
		want := map[string]string{"HEAD~1": commits[0], "HEAD": commits[1]}[rev]
		if c.Revision == nil || c.Revision.Name != rev || c.Revision.Commit != want {
			t.Errorf("%s: revision %+v, want %s at %s", c.ID(), c.Revision, rev, want)
		}
	}
	if len(res.Cells) != 2 {
		t.Errorf("%d cells, want one per revision", len(res.Cells))
	}
}
