package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok")
	os.WriteFile(ok, []byte("hello"), 0o644)
	if b, err := Read(ok, 5); err != nil || string(b) != "hello" {
		t.Errorf("Read = %q, %v", b, err)
	}
	if _, err := Read(ok, 4); err == nil || !strings.Contains(err.Error(), "more than the 4") {
		t.Errorf("too large: %v", err)
	}
	if _, err := Read(dir, 10); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a folder: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if syscall.Mkfifo(fifo, 0o644) == nil {
		if _, err := Read(fifo, 10); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("a FIFO: %v", err)
		}
	}
	if _, err := Read("/dev/zero", 10); err == nil {
		t.Error("/dev/zero was read")
	}
}

func TestReadRefusesWhatWouldHangOrFlood(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "README.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	if _, err := ReadIfPresent(fifo, 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a FIFO: %v", err)
	}
	zero := filepath.Join(dir, "zero")
	os.Symlink("/dev/zero", zero)
	if _, err := ReadIfPresent(zero, 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a link to /dev/zero: %v", err)
	}
	if b, err := ReadIfPresent(filepath.Join(dir, "absent"), 10); b != nil || err != nil {
		t.Errorf("a missing file: %q, %v", b, err)
	}
}

func TestCreateRefusesLinks(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep"), 0o644)
	link := filepath.Join(dir, "build-loadgen.log")
	os.Symlink(victim, link)
	for name, open := range map[string]func(string) (*os.File, error){"Create": Create, "Append": Append} {
		if f, err := open(link); !errors.Is(err, ErrLink) {
			if f != nil {
				f.Close()
			}
			t.Errorf("%s through a link: %v", name, err)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("the link's target was changed: %q", b)
	}
	fifo := filepath.Join(dir, "fifo")
	if syscall.Mkfifo(fifo, 0o644) == nil {
		if _, err := Create(fifo); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Create on a FIFO: %v", err)
		}
	}
	f, err := Create(filepath.Join(dir, "new.log"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestRemoveRegularAndNoLinks(t *testing.T) {
	dir := t.TempDir()
	elsewhere := filepath.Join(dir, "elsewhere")
	os.Mkdir(elsewhere, 0o755)
	os.WriteFile(filepath.Join(elsewhere, "mine.svg"), []byte("<svg/>"), 0o644)
	run := filepath.Join(dir, "run")
	os.Mkdir(run, 0o755)
	os.Symlink(elsewhere, filepath.Join(run, "charts"))
	if _, err := RemoveRegular(filepath.Join(run, "charts"), "*.svg"); !errors.Is(err, ErrLink) {
		t.Errorf("RemoveRegular through a linked folder: %v", err)
	}
	if err := NoLinks(run, "logs", "charts"); !errors.Is(err, ErrLink) {
		t.Errorf("NoLinks on a linked charts/: %v", err)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "mine.svg")); err != nil {
		t.Errorf("the linked folder's file went: %v", err)
	}
	// A real folder: its regular files go, a link in it stays (and so
	// does what it points to), and NoLinks names the link.
	os.Remove(filepath.Join(run, "charts"))
	charts := filepath.Join(run, "charts")
	os.Mkdir(charts, 0o755)
	os.WriteFile(filepath.Join(charts, "old.svg"), nil, 0o644)
	os.Symlink(filepath.Join(elsewhere, "mine.svg"), filepath.Join(charts, "link.svg"))
	removed, err := RemoveRegular(charts, "*.svg")
	if err != nil || len(removed) != 1 || filepath.Base(removed[0]) != "old.svg" {
		t.Errorf("RemoveRegular = %v, %v", removed, err)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "mine.svg")); err != nil {
		t.Errorf("a linked file went: %v", err)
	}
	if err := NoLinks(run, "charts"); !errors.Is(err, ErrLink) {
		t.Errorf("NoLinks on a link inside charts/: %v", err)
	}
	if err := NoLinks(run, "logs"); err != nil {
		t.Errorf("NoLinks on a missing folder: %v", err)
	}
}

// A refusal names the path and what is there, so the user knows which
// file to replace and why: a symbolic link read through is named by the
// link, which is the name the user gave.
func TestReadNamesPathAndKind(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "README.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	zero := filepath.Join(dir, "results.json")
	os.Symlink("/dev/zero", zero)
	for path, want := range map[string]string{
		fifo:        fifo + ": a named pipe (FIFO), not a regular file",
		zero:        zero + ": a device, not a regular file",
		"/dev/zero": "/dev/zero: a device, not a regular file",
		dir:         dir + ": a folder, not a regular file",
	} {
		if _, err := Read(path, 1<<20); err == nil || err.Error() != want {
			t.Errorf("Read(%s) = %v, want %q", path, err, want)
		}
	}
}
