// Package safefile reads and writes the files a user hands the harness (a
// matrix, a Dockerfile, a results.json, a results folder's README.md, logs
// and charts) without letting a wrong one hang, flood or redirect it: reads
// take only regular files of a bounded size; writes and removals never
// follow a symbolic link planted in a results folder.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Kinds of refusal, for errors.Is.
var (
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = errors.New("too large")
	ErrLink       = errors.New("a symbolic link")
)

// Read returns the contents of the regular file at path, of at most max
// bytes. A FIFO or a device (/dev/zero) is an error, not a hang: the file
// is checked before it is opened, since opening a FIFO blocks until
// someone writes to it, and again once open.
func Read(path string, max int64) ([]byte, error) {
	if err := Check(path, max); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := fits(path, st, max); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		return nil, fmt.Errorf("%s: more than the %d bytes this harness reads: %w", path, max, ErrTooLarge)
	}
	return b, err
}

// ReadIfPresent is Read, but a missing file is no error: it returns nil.
func ReadIfPresent(path string, max int64) ([]byte, error) {
	b, err := Read(path, max)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// Check reports whether path (following links) is a regular file of at
// most max bytes: what a reader must know before it opens the file, since
// opening a FIFO blocks and reading /dev/zero never ends.
func Check(path string, max int64) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	return fits(path, st, max)
}

func fits(path string, st fs.FileInfo, max int64) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: %s, %w", path, kind(st.Mode()), ErrNotRegular)
	}
	if st.Size() > max {
		return fmt.Errorf("%s: %d bytes, more than the %d this harness reads: %w", path, st.Size(), max, ErrTooLarge)
	}
	return nil
}

// Create opens path for writing, truncating it, as os.Create does, except
// that a symbolic link in its place is refused rather than followed (a
// link planted in a results folder would have the harness truncate the
// file it points to), and so is anything but a regular file (a FIFO is
// not waited on).
func Create(path string) (*os.File, error) {
	return open(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
}

// Append opens path for appending, creating it, with Create's refusals.
func Append(path string) (*os.File, error) {
	return open(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND)
}

func open(path string, flag int) (*os.File, error) {
	if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() {
		return nil, refusal(path, st)
	}
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s: %w; the harness writes no file through one", path, ErrLink)
	}
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	return f, nil
}

// kind names what a path is, for a refusal a user can act on.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}

func refusal(path string, st fs.FileInfo) error {
	if st.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s: %w; the harness writes and removes no file through one", path, ErrLink)
	}
	return fmt.Errorf("%s: %s, %w", path, kind(st.Mode()), ErrNotRegular)
}

// NoLinks refuses when root/name, for any of names, is a symbolic link, or
// is a folder holding one: the folders a run writes into and clears
// (logs/, charts/) must lead nowhere else. A name that does not exist is
// fine.
func NoLinks(root string, names ...string) error {
	for _, name := range names {
		path := filepath.Join(root, name)
		st, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return refusal(path, st)
		}
		if !st.IsDir() {
			continue
		}
		entries, err := os.ReadDir(path)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.Type()&fs.ModeSymlink != 0 {
				return fmt.Errorf("%s: %w; the harness writes and removes no file through one", filepath.Join(path, e.Name()), ErrLink)
			}
		}
	}
	return nil
}

// RemoveRegular removes the regular files in dir whose names match pattern
// (filepath.Match syntax) and returns their paths. It removes nothing when
// dir is a symbolic link, and leaves alone any entry that is not a regular
// file (a link, a folder): it removes only what the harness could have
// written there. A missing dir is nothing to remove.
func RemoveRegular(dir, pattern string) ([]string, error) {
	st, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	case st.Mode()&fs.ModeSymlink != 0:
		return nil, refusal(dir, st)
	case !st.IsDir():
		return nil, fmt.Errorf("%s: not a folder", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range entries {
		if ok, err := filepath.Match(pattern, e.Name()); err != nil {
			return removed, err
		} else if !ok || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if err := os.Remove(path); err != nil {
			return removed, err
		}
		removed = append(removed, path)
	}
	return removed, nil
}
