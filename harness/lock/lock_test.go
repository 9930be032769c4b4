package lock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/webbench/webbench/harness/cpuset"
)

// A second run on a core the first holds is refused (or waits) until the
// first lets go; a run on other cores of the same engine, or on the same
// cores of another engine, goes ahead.
func TestAcquire(t *testing.T) {
	dir, ctx := t.TempDir(), context.Background()
	first, err := Acquire(ctx, dir, "engine-a", cpuset.Set{0, 1}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Acquire(ctx, dir, "engine-a", cpuset.Set{1, 2}, false, nil); err == nil ||
		!strings.Contains(err.Error(), "core 1 is in use by another run (pid ") {
		t.Errorf("overlapping run: %v", err)
	}
	other, err := Acquire(ctx, dir, "engine-a", cpuset.Set{2, 3}, false, nil)
	if err != nil {
		t.Errorf("disjoint cores: %v", err)
	}
	other.Release()
	elsewhere, err := Acquire(ctx, dir, "engine-b", cpuset.Set{0, 1}, false, nil)
	if err != nil {
		t.Errorf("another engine: %v", err)
	}
	elsewhere.Release()

	var notes []string
	go func() { time.Sleep(3 * PollInterval); first.Release() }()
	second, err := Acquire(ctx, dir, "engine-a", cpuset.Set{1}, true, func(s string) { notes = append(notes, s) })
	if err != nil {
		t.Fatal(err)
	}
	defer second.Release()
	if len(notes) != 1 || !strings.Contains(notes[0], "waiting") {
		t.Errorf("notes %q, want one saying it waits", notes)
	}
	cctx, cancel := context.WithTimeout(ctx, 2*PollInterval)
	defer cancel()
	if _, err := Acquire(cctx, dir, "engine-a", cpuset.Set{1}, true, func(string) {}); err != context.DeadlineExceeded {
		t.Errorf("waiting past the context: %v", err)
	}
}

// A symbolic link planted as a lock file is refused, and its target is
// neither truncated nor written; lock files are the owner's alone; a lock
// folder others can write to is refused.
func TestPlantedLink(t *testing.T) {
	dir, ctx := t.TempDir(), context.Background()
	victim := filepath.Join(t.TempDir(), "victim.txt")
	os.WriteFile(victim, []byte("precious\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "engine-a"), 0o700)
	os.Symlink(victim, filepath.Join(dir, "engine-a", "cpu0.lock"))
	if _, err := Acquire(ctx, dir, "engine-a", cpuset.Set{0}, false, nil); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("planted link: %v", err)
	}
	if data, _ := os.ReadFile(victim); string(data) != "precious\n" {
		t.Errorf("the link's target was changed: %q", data)
	}
	h, err := Acquire(ctx, dir, "engine-b", cpuset.Set{0}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	if fi, err := os.Stat(filepath.Join(dir, "engine-b", "cpu0.lock")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("lock file mode %v, %v; want 0600", fi.Mode(), err)
	}
	open := filepath.Join(dir, "engine-c")
	os.MkdirAll(open, 0o777)
	os.Chmod(open, 0o777)
	if _, err := Acquire(ctx, dir, "engine-c", cpuset.Set{0}, false, nil); err == nil || !strings.Contains(err.Error(), "only its owner can write") {
		t.Errorf("world-writable lock folder: %v", err)
	}
}

// A results folder is claimed by one run at a time.
func TestFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	first, err := Folder(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Folder(dir); err == nil || !strings.Contains(err.Error(), "is being written by another run (pid ") {
		t.Errorf("second claim: %v", err)
	}
	first.Release()
	again, err := Folder(dir)
	if err != nil {
		t.Errorf("after release: %v", err)
	}
	again.Release()
}

// Releasing a claim leaves no lock file behind, and no folder when the
// claim made it and nothing was written there: a run that failed before
// writing left OUT/.run.lock in a folder of its own making. A folder that
// was there, or that the run wrote into, stays.
func TestFolderReleaseLeavesNothing(t *testing.T) {
	root := t.TempDir()
	made := filepath.Join(root, "results", "run")
	claim, err := Folder(made)
	if err != nil {
		t.Fatal(err)
	}
	claim.Release()
	claim.Release() // again: a deferred release after an explicit one
	if _, err := os.Lstat(made); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the folder the claim made is still there after release: %v", err)
	}
	written := filepath.Join(root, "written")
	if claim, err = Folder(written); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(written, "results.json"), []byte("{}"), 0o644)
	claim.Release()
	existing := filepath.Join(root, "existing")
	os.Mkdir(existing, 0o755)
	if claim, err = Folder(existing); err != nil {
		t.Fatal(err)
	}
	claim.Release()
	for _, dir := range []string{written, existing} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s: removed by the release: %v", dir, err)
		}
		if _, err := os.Lstat(filepath.Join(dir, ".run.lock")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: .run.lock left after release: %v", dir, err)
		}
	}
}

// A claim holds only the lock file still at the path: a file a releasing
// run removed (or replaced) after another opened it is no claim.
func TestSamePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".run.lock")
	f, err := openNoFollow(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !samePath(f, path) {
		t.Fatal("the file just opened is not the one at its path")
	}
	os.Remove(path)
	if samePath(f, path) {
		t.Error("a removed file counts as the one at its path")
	}
	g, _ := openNoFollow(path)
	defer g.Close()
	if samePath(f, path) {
		t.Error("a removed file counts as the new one at its path")
	}
}

// The default folder depends on no environment variable: two runs of one
// user with different XDG_CACHE_HOME, TMPDIR or HOME lock the same files.
// A folder of this user's planted by someone else is refused.
func TestDirIgnoresEnvironment(t *testing.T) {
	a := Dir()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	if b := Dir(); a != b {
		t.Errorf("Dir() moved with the environment: %s, then %s", a, b)
	}
	if os.Getuid() != 0 {
		t.Skip("chown to another user needs root")
	}
	dir := t.TempDir()
	other := filepath.Join(dir, "engine-x")
	os.MkdirAll(other, 0o700)
	os.Chown(other, 4242, 4242)
	if err := private(other); err == nil || !strings.Contains(err.Error(), "belongs to user 4242") {
		t.Errorf("a lock folder of another user: %v", err)
	}
}

// The holder named when a core is busy is the process the kernel says holds
// the flock, not whatever pid the lock file holds: a previous holder's pid
// left in the file (as in the instant between a run's flock and its stamp)
// is never named.
func TestHolderIsTheKernels(t *testing.T) {
	dir, ctx := t.TempDir(), context.Background()
	held, err := Acquire(ctx, dir, "engine", cpuset.Set{0}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	if err := os.WriteFile(filepath.Join(dir, "engine", "cpu0.lock"), []byte("4194304\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(ctx, dir, "engine", cpuset.Set{0}, false, nil)
	want := fmt.Sprintf("core 0 is in use by another run (pid %d: ", os.Getpid())
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "4194304") {
		t.Errorf("busy core: %v; want it to name %q", err, want)
	}
}

func TestFlockHolder(t *testing.T) {
	table := "1: FLOCK  ADVISORY  WRITE 1446 fe:00:762126 0 EOF\n" +
		"1: -> FLOCK  ADVISORY  WRITE 77 fe:00:762127 0 EOF\n" +
		"2: POSIX  ADVISORY  WRITE 88 fe:00:762127 0 EOF\n" +
		"3: FLOCK  ADVISORY  WRITE 1462 fe:00:762127 0 EOF\n"
	dev := unix.Mkdev(0xfe, 0)
	for _, c := range []struct {
		ino  uint64
		want int
	}{{762126, 1446}, {762127, 1462}, {1, 0}} {
		if got := flockHolder(table, dev, c.ino); got != c.want {
			t.Errorf("inode %d: holder %d, want %d", c.ino, got, c.want)
		}
	}
	if got := flockHolder(table, unix.Mkdev(8, 1), 762126); got != 0 {
		t.Errorf("another device: holder %d, want 0", got)
	}
}

// Without the kernel's word, holder reads the pid from the file it holds
// open, not from its name again: the name may since lead elsewhere.
func TestHolderReadsTheOpenFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".run.lock")
	if err := os.WriteFile(path, []byte("4242\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	os.Rename(path, path+".old")
	os.WriteFile(path, []byte("999\n"), 0o600)
	if got := holder(f); !strings.Contains(got, "pid 4242") {
		t.Errorf("holder = %q, want the pid of the open file, 4242", got)
	}
}
