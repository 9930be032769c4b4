// Package lock keeps runs that share a Docker engine off each other's
// cores: a run holds an exclusive flock(2) on one file per core it uses,
// in a folder per engine under /tmp/webbench-<uid>/locks, for as long as
// it runs. The kernel drops the locks of a process that dies, so a killed run
// never blocks the next one.
package lock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/webbench/webbench/harness/cpuset"
)

// PollInterval is how often a waiting run tries the locks again.
const PollInterval = 500 * time.Millisecond

// Dir is the default folder of lock files: /tmp/webbench-<uid>/locks. It
// depends on no environment variable (XDG_CACHE_HOME, TMPDIR, HOME), so
// that two runs of one user on one engine always see each other's locks
// however their environments differ. Users do not see each other's: each
// has a folder of their own (a shared one would have to be writable by all).
func Dir() string {
	return filepath.Join("/tmp", fmt.Sprintf("webbench-%d", os.Getuid()), "locks")
}

// private makes dir for this user alone and checks it, and every folder
// between it and this user's /tmp/webbench-<uid> when it lies below that:
// each must be a folder, not a link, owned by this user, writable by no one
// else. Nobody may plant files where locks are opened.
func private(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	check := []string{dir}
	root := filepath.Dir(Dir())
	if rel, err := filepath.Rel(root, dir); err == nil && !strings.HasPrefix(rel, "..") {
		for d := filepath.Dir(dir); strings.HasPrefix(d, root); d = filepath.Dir(d) {
			check = append(check, d)
		}
	}
	for _, d := range check {
		fi, err := os.Lstat(d)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		switch {
		case !fi.IsDir():
			return fmt.Errorf("lock folder %s is %s, not a folder (remove it)", d, fi.Mode())
		case ok && st.Uid != uint32(os.Getuid()):
			return fmt.Errorf("lock folder %s belongs to user %d, not to this user (%d): remove it", d, st.Uid, os.Getuid())
		case fi.Mode().Perm()&0o022 != 0:
			return fmt.Errorf("lock folder %s is %s: it must be a folder that only its owner can write (chmod go-w)", d, fi.Mode())
		}
	}
	return nil
}

// Held is the cores a run holds, or the results folder it claims.
type Held struct {
	files []*os.File
	// claim is the results folder's lock file, removed on release; made is
	// that folder when the claim created it, removed on release if empty.
	claim, made string
}

// Release lets the cores or the folder go. A folder's lock file is
// removed while still held (Folder's claim checks that the file it locked
// is still the one at the path), and so is the folder when the claim made
// it and nothing else was written there: a run that failed before writing
// leaves nothing behind. Safe on nil and when called again.
func (h *Held) Release() {
	if h == nil {
		return
	}
	if h.claim != "" {
		os.Remove(h.claim)
		if h.made != "" {
			os.Remove(h.made) // fails, leaving it, unless empty
		}
		h.claim, h.made = "", ""
	}
	for _, f := range h.files {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
	h.files = nil
}

var unsafe = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// Acquire locks every core of cores on the engine named engineID. When a
// core is held by another run it returns an error naming it, or, with
// wait, says so through note once and tries again until it gets the cores
// or ctx ends.
func Acquire(ctx context.Context, dir, engineID string, cores cpuset.Set, wait bool, note func(string)) (*Held, error) {
	dir = filepath.Join(dir, unsafe.ReplaceAllString(engineID, "_"))
	if err := private(dir); err != nil {
		return nil, fmt.Errorf("lock folder: %w", err)
	}
	noted := false
	for {
		h, busy, err := try(dir, cores)
		if err != nil || busy == "" {
			return h, err
		}
		if !wait {
			return nil, fmt.Errorf("%s; wait for it, or run on other cores", busy)
		}
		if !noted {
			note(busy + "; waiting for it (Ctrl-C to give up)")
			noted = true
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(PollInterval):
		}
	}
}

// try takes every core's lock or none; busy names a core another run holds.
func try(dir string, cores cpuset.Set) (h *Held, busy string, err error) {
	h = &Held{}
	for _, c := range cores { // in order: two runs never wait on each other in a cycle
		f, err := openNoFollow(filepath.Join(dir, fmt.Sprintf("cpu%d.lock", c)))
		if err != nil {
			h.Release()
			return nil, "", fmt.Errorf("lock core %d: %w", c, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			who := holder(f)
			f.Close()
			h.Release()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, fmt.Sprintf("core %d is in use by %s", c, who), nil
			}
			return nil, "", fmt.Errorf("lock core %d: %w", c, err)
		}
		stamp(f)
		h.files = append(h.files, f)
	}
	return h, "", nil
}

// Folder claims a results folder for one run: an exclusive flock(2) on
// DIR/.run.lock, taken before the run checks whether the folder already
// holds a run, so that two runs started together cannot both pass that
// check. It returns an error naming the other run when one holds it. The
// kernel drops the claim of a process that dies; Release removes the file.
func Folder(dir string) (*Held, error) {
	_, err := os.Stat(dir)
	made := ""
	if errors.Is(err, os.ErrNotExist) {
		made = dir
	}
	path := filepath.Join(dir, ".run.lock")
	for {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		f, err := openNoFollow(path)
		if errors.Is(err, os.ErrNotExist) {
			continue // a run releasing the folder it made removed it: make it again
		}
		if err != nil {
			return nil, fmt.Errorf("claim %s: %w", dir, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			who := holder(f)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, fmt.Errorf("%s is being written by %s; wait for it, or write elsewhere (--out)", dir, who)
			}
			return nil, fmt.Errorf("claim %s: %w", dir, err)
		}
		// A run that released the folder between our open and our flock
		// removed the file we hold: a third run would lock a new file at
		// the path beside us. Only the file still at the path is the claim.
		if samePath(f, path) {
			stamp(f)
			return &Held{files: []*os.File{f}, claim: path, made: made}, nil
		}
		f.Close()
	}
}

// samePath reports whether f is the file at path now.
func samePath(f *os.File, path string) bool {
	held, err := f.Stat()
	if err != nil {
		return false
	}
	now, err := os.Lstat(path)
	return err == nil && os.SameFile(held, now)
}

// openNoFollow opens a lock file for writing without following a symbolic
// link planted in its place (which would have it truncate the link's
// target), creating it readable by its owner only.
func openNoFollow(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symbolic link; a lock file never is (remove it)", path)
	}
	return f, err
}

// holder names the run holding a lock file. The kernel's own table of
// locks (/proc/locks) says which process holds the flock on that file, so
// the name is never stale; the pid the holder wrote into the file is only
// a fallback (it can be a previous holder's for the instant between a
// run's flock and its stamp, or a pid of another PID namespace).
func holder(f *os.File) string {
	if pid := kernelHolder(f); pid > 0 {
		return describe(pid)
	}
	// The file already open, not its name again: the path may since name
	// something else, and a pid is a few bytes.
	owner, _ := io.ReadAll(io.NewSectionReader(f, 0, 64))
	if pid := strings.TrimSpace(string(owner)); pid != "" {
		return "another run (pid " + pid + ", as it wrote; not confirmed by the kernel)"
	}
	return "another run"
}

// describe names a process by its pid and, when it can be read, its command.
func describe(pid int) string {
	cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if args := strings.Fields(strings.ReplaceAll(string(cmd), "\x00", " ")); len(args) > 0 {
		name := filepath.Base(args[0])
		if len(args) > 1 {
			name += " " + args[1]
		}
		return fmt.Sprintf("another run (pid %d: %s)", pid, name)
	}
	return fmt.Sprintf("another run (pid %d)", pid)
}

// kernelHolder is the pid that /proc/locks gives for the FLOCK on f's
// file, or 0 when it cannot tell.
func kernelHolder(f *os.File) int {
	fi, err := f.Stat()
	if err != nil {
		return 0
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	table, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0
	}
	return flockHolder(string(table), st.Dev, st.Ino)
}

// flockHolder reads /proc/locks lines such as
//
//	1: FLOCK  ADVISORY  WRITE 1446 fe:00:762126 0 EOF
//
// and returns the pid of the FLOCK on device dev, inode ino, or 0. Lines
// of locks that others wait for ("->") are not holders.
func flockHolder(table string, dev, ino uint64) int {
	want := fmt.Sprintf("%02x:%02x:%d", unix.Major(dev), unix.Minor(dev), ino)
	for _, line := range strings.Split(table, "\n") {
		fields := strings.Fields(line)
		if len(fields) < 6 || fields[1] != "FLOCK" || fields[5] != want {
			continue
		}
		if pid, err := strconv.Atoi(fields[4]); err == nil && pid > 0 {
			return pid
		}
	}
	return 0
}

// stamp writes this process's pid into a lock file it holds, over what a
// previous holder wrote; the file is a regular one (openNoFollow), so this
// writes nowhere else.
func stamp(f *os.File) {
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
}
