// Package revision reads git revisions of the repository that holds a
// matrix file, so that one run can build a target as it was at several
// commits: each revision's tree is read from git's object store (git
// ls-tree and cat-file, which apply no export attributes, unlike git
// archive), never checked out over the user's work tree, and WORKTREE
// names the work tree as it is. It runs the git command: the one git every
// user has, which reads every repository format git writes.
package revision

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing/fstest"
)

// WorkTree names the work tree as it is, uncommitted changes included.
const WorkTree = "WORKTREE"

// Revision is one revision of a repository, resolved.
type Revision struct {
	Name   string // as the user gave it: "HEAD~1", "origin/main", WORKTREE
	Commit string // the full hash: of the commit, or of HEAD for WORKTREE ("" before the first commit)
	Dirty  bool   // WORKTREE only: it differs from HEAD, untracked files included
	repo   string // the repository's top folder
}

// Repo is the top folder of the git repository holding dir.
func Repo(ctx context.Context, dir string) (string, error) {
	out, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", fmt.Errorf("%s is in no git repository: %w", dir, err)
	}
	return strings.TrimSpace(out), nil
}

// Resolve resolves each name to a revision of the repository holding dir.
// Every name that is no commit is named in the one error returned.
func Resolve(ctx context.Context, dir string, names []string) ([]Revision, error) {
	repo, err := Repo(ctx, dir)
	if err != nil {
		return nil, err
	}
	var revs []Revision
	var errs []error
	for _, name := range names {
		r, err := resolve(ctx, repo, name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		revs = append(revs, r)
	}
	return revs, errors.Join(errs...)
}

func resolve(ctx context.Context, repo, name string) (Revision, error) {
	if name == WorkTree {
		head, _ := git(ctx, repo, "rev-parse", "--verify", "--quiet", "HEAD^{commit}") // none before the first commit
		status, err := git(ctx, repo, "status", "--porcelain", "--untracked-files=normal")
		if err != nil {
			return Revision{}, fmt.Errorf("revision %s: %w", name, err)
		}
		return Revision{Name: name, Commit: strings.TrimSpace(head), Dirty: status != "", repo: repo}, nil
	}
	if name == "" || strings.HasPrefix(name, "-") {
		return Revision{}, fmt.Errorf("revision %q: not a revision name", name)
	}
	hash, err := git(ctx, repo, "rev-parse", "--verify", "--quiet", name+"^{commit}")
	if err != nil || strings.TrimSpace(hash) == "" {
		return Revision{}, fmt.Errorf("revision %q: no commit of %s has that name", name, repo)
	}
	return Revision{Name: name, Commit: strings.TrimSpace(hash), repo: repo}, nil
}

// Short is the revision as a report names it: its name, with the commit's
// first 12 hex digits when the name is not the hash, and "dirty" when the
// work tree has changes.
func (r Revision) Short() string {
	s := r.Name
	if c := r.Commit; len(c) >= 12 && !strings.HasPrefix(c, r.Name) {
		s += " (" + c[:12]
		if r.Dirty {
			s += ", dirty"
		}
		s += ")"
	} else if r.Dirty {
		s += " (dirty)"
	}
	return s
}

// Tree is the folder dir (a path inside the repository, or an absolute
// path under its top folder) as it is in the revision: the work tree's
// own folder for WORKTREE, else the commit's tree read from git, with git's
// modes (0644, 0755 for executables, symbolic links as links) and folders
// 0755, so that two commits with the same files give the same build
// context.
func (r Revision) Tree(ctx context.Context, dir string) (fs.FS, error) {
	rel, err := r.inside(dir)
	if err != nil {
		return nil, err
	}
	if r.Name == WorkTree {
		return os.DirFS(filepath.Join(r.repo, rel)), nil
	}
	treeish := r.Commit + ":" + filepath.ToSlash(rel)
	if rel == "." {
		treeish = r.Commit + "^{tree}"
	}
	if typ, err := git(ctx, r.repo, "cat-file", "-t", treeish); err != nil || strings.TrimSpace(typ) != "tree" {
		return nil, fmt.Errorf("revision %s: no folder %s in it", r.Name, filepath.ToSlash(rel))
	}
	list, err := git(ctx, r.repo, "ls-tree", "-r", "-z", treeish)
	if err != nil {
		return nil, fmt.Errorf("revision %s: %w", r.Name, err)
	}
	entries, err := parseTree(list)
	if err != nil {
		return nil, fmt.Errorf("revision %s: %w", r.Name, err)
	}
	if err := readBlobs(ctx, r.repo, entries); err != nil {
		return nil, fmt.Errorf("revision %s: %w", r.Name, err)
	}
	return mapFS(entries), nil
}

// inside is dir relative to the repository's top folder, refused when it
// lies outside it.
func (r Revision) inside(dir string) (string, error) {
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(r.repo, dir)
	}
	rel, err := filepath.Rel(r.repo, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("%s is outside the repository %s", dir, r.repo)
	}
	return rel, nil
}

// entry is one file of a git tree: its path in the tree, its mode as git
// records it (100644, 100755, 120000 for a symbolic link), its object and,
// once read, its contents (a link's target).
type entry struct {
	path, mode, object string
	data               []byte
}

// parseTree reads git ls-tree -r -z's output. Submodules (mode 160000)
// are left out, as a build context from the work tree would hold their
// files only if checked out.
func parseTree(out string) ([]*entry, error) {
	var entries []*entry
	for _, rec := range strings.Split(strings.TrimSuffix(out, "\x00"), "\x00") {
		if rec == "" {
			continue
		}
		meta, p, ok := strings.Cut(rec, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 {
			return nil, fmt.Errorf("git ls-tree: unexpected line %q", rec)
		}
		if fields[1] != "blob" {
			continue
		}
		entries = append(entries, &entry{path: p, mode: fields[0], object: fields[2]})
	}
	return entries, nil
}

// readBlobs fills each entry's data from git cat-file --batch, one
// process for them all: the contents as committed. No end-of-line
// conversion or smudge filter is applied (git 2.39's --batch --filters
// fails on paths), so a target whose checkout git converts builds from
// what was committed.
func readBlobs(ctx context.Context, repo string, entries []*entry) error {
	var in bytes.Buffer
	for _, e := range entries {
		in.WriteString(e.object + "\n")
	}
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, "git", "-C", repo, "cat-file", "--batch")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = &in, &out, &errOut
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git cat-file: %w: %s", err, strings.TrimSpace(errOut.String()))
	}
	for _, e := range entries {
		header, err := out.ReadString('\n')
		var oid, typ string
		var size int
		if _, scanErr := fmt.Sscanf(header, "%s %s %d", &oid, &typ, &size); err != nil || scanErr != nil || oid != e.object || out.Len() < size+1 {
			return fmt.Errorf("git cat-file: unexpected answer %q for %s", strings.TrimSpace(header), e.path)
		}
		e.data = bytes.Clone(out.Next(size))
		out.Next(1) // the newline after the contents
	}
	return nil
}

// mapFS is entries as a file system, with git's modes: 0644, 0755 for
// an executable, symbolic links as links, and every folder 0755.
func mapFS(entries []*entry) fs.FS {
	fsys := fstest.MapFS{}
	for _, e := range entries {
		mode := fs.FileMode(0o644)
		switch e.mode {
		case "100755":
			mode = 0o755
		case "120000":
			mode = fs.ModeSymlink | 0o777
		}
		fsys[e.path] = &fstest.MapFile{Mode: mode, Data: e.data}
		for dir := path.Dir(e.path); dir != "."; dir = path.Dir(dir) {
			fsys[dir] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
		}
	}
	return fsys
}

// git runs git in dir and returns its standard output; an error holds the
// first line of its standard error.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		first, _, _ := strings.Cut(strings.TrimSpace(errOut.String()), "\n")
		if first != "" {
			return out.String(), fmt.Errorf("git %s: %s", args[0], first)
		}
		return out.String(), fmt.Errorf("git %s: %w", args[0], err)
	}
	return out.String(), nil
}
