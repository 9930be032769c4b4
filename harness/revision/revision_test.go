package revision

import (
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/engine"
)

// repo makes a throwaway repository: commit one holds targets/t (a
// Dockerfile, an executable script, a link to the Dockerfile, a file in a
// sub-folder); commit two changes only README.md, outside the target;
// commit three changes the script. It returns the folder and the three
// hashes, oldest first.
func repo(t *testing.T) (string, []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	put := func(name, text string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
	}
	run("init", "-q")
	put("targets/t/Dockerfile", "FROM scratch\nCOPY . /\n", 0o644)
	put("targets/t/run.sh", "#!/bin/sh\necho one\n", 0o755)
	put("targets/t/sub/a.txt", "a\n", 0o600) // git records 0644 whatever the work tree says
	put("README.md", "# r\n", 0o644)
	if err := os.Symlink("Dockerfile", filepath.Join(dir, "targets/t/link")); err != nil {
		t.Fatal(err)
	}
	var hashes []string
	for _, change := range []func(){func() {}, func() { put("README.md", "# r, said again\n", 0o644) }, func() { put("targets/t/run.sh", "#!/bin/sh\necho three\n", 0o755) }} {
		change()
		run("add", "-A")
		run("commit", "-qm", "x")
		hashes = append(hashes, run("rev-parse", "HEAD"))
	}
	return dir, hashes
}

func read(t *testing.T, fsys fs.FS, name string) string {
	t.Helper()
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestResolve(t *testing.T) {
	ctx := context.Background()
	dir, hashes := repo(t)
	revs, err := Resolve(ctx, filepath.Join(dir, "targets"), []string{"HEAD~2", "HEAD", hashes[1][:10], WorkTree})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{hashes[0], hashes[2], hashes[1], hashes[2]} {
		if revs[i].Commit != want {
			t.Errorf("%s resolved to %q, want %q", revs[i].Name, revs[i].Commit, want)
		}
	}
	if revs[3].Dirty {
		t.Errorf("a clean work tree read dirty")
	}
	if got, want := revs[0].Short(), "HEAD~2 ("+hashes[0][:12]+")"; got != want {
		t.Errorf("Short = %q, want %q", got, want)
	}
	if got := revs[2].Short(); got != hashes[1][:10] {
		t.Errorf("Short of a hash = %q, want the hash as given", got)
	}
	os.WriteFile(filepath.Join(dir, "untracked"), []byte("x"), 0o644)
	revs, err = Resolve(ctx, dir, []string{WorkTree})
	if err != nil || !revs[0].Dirty || !strings.HasSuffix(revs[0].Short(), ", dirty)") {
		t.Errorf("a work tree with an untracked file: %+v, %v; want dirty", revs, err)
	}
	_, err = Resolve(ctx, dir, []string{"HEAD", "no-such-branch", "--output=x", ""})
	for _, name := range []string{`"no-such-branch"`, `"--output=x"`, `""`} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("unknown names: %v, want %s named", err, name)
		}
	}
	if _, err := Resolve(ctx, t.TempDir(), []string{"HEAD"}); err == nil || !strings.Contains(err.Error(), "in no git repository") {
		t.Errorf("outside a repository: %v", err)
	}
}

// A revision's tree is the commit's, whatever the work tree holds, with
// git's modes and links; WORKTREE's is the work tree.
func TestTree(t *testing.T) {
	ctx := context.Background()
	dir, _ := repo(t)
	os.WriteFile(filepath.Join(dir, "targets/t/run.sh"), []byte("#!/bin/sh\necho uncommitted\n"), 0o755)
	revs, err := Resolve(ctx, dir, []string{"HEAD~2", WorkTree})
	if err != nil {
		t.Fatal(err)
	}
	old, err := revs[0].Tree(ctx, "targets/t")
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, old, "run.sh"); got != "#!/bin/sh\necho one\n" {
		t.Errorf("run.sh at HEAD~2 = %q", got)
	}
	if got := read(t, old, "sub/a.txt"); got != "a\n" {
		t.Errorf("sub/a.txt = %q", got)
	}
	for name, want := range map[string]fs.FileMode{"run.sh": 0o755, "Dockerfile": 0o644, "sub/a.txt": 0o644, "sub": fs.ModeDir | 0o755} {
		if info, err := fs.Stat(old, name); err != nil || info.Mode() != want {
			t.Errorf("mode of %s: %v, %v; want %v", name, info.Mode(), err, want)
		}
	}
	if target, err := fs.ReadLink(old, "link"); err != nil || target != "Dockerfile" {
		t.Errorf("link: %q, %v; want a link to Dockerfile", target, err)
	}
	work, err := revs[1].Tree(ctx, filepath.Join(dir, "targets/t"))
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, work, "run.sh"); !strings.Contains(got, "uncommitted") {
		t.Errorf("run.sh in the work tree = %q", got)
	}
	if _, err := revs[0].Tree(ctx, "targets/none"); err == nil || !strings.Contains(err.Error(), "no folder targets/none") {
		t.Errorf("a folder not in the revision: %v", err)
	}
	if _, err := revs[0].Tree(ctx, "targets/t/run.sh"); err == nil {
		t.Errorf("a file taken for a folder")
	}
	if _, err := revs[0].Tree(ctx, "../elsewhere"); err == nil || !strings.Contains(err.Error(), "outside the repository") {
		t.Errorf("a folder outside the repository: %v", err)
	}
}

// Two commits whose target folder holds the same files give the same build
// context, so its image is built once; a commit changing the target gives
// another.
func TestSameInputsSameContext(t *testing.T) {
	ctx := context.Background()
	dir, _ := repo(t)
	revs, err := Resolve(ctx, dir, []string{"HEAD~2", "HEAD~1", "HEAD"})
	if err != nil {
		t.Fatal(err)
	}
	var hashes []string
	for _, r := range revs {
		fsys, err := r.Tree(ctx, "targets/t")
		if err != nil {
			t.Fatal(err)
		}
		h, err := engine.WriteContext(io.Discard, fsys, "Dockerfile", nil)
		if err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, h)
	}
	if hashes[0] != hashes[1] {
		t.Errorf("a commit changing only README.md changed the target's context: %s, %s", hashes[0], hashes[1])
	}
	if hashes[1] == hashes[2] {
		t.Errorf("a commit changing run.sh left the context's hash alone")
	}
}
