package safefile

import (
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
