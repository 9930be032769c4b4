package lock

import (
	"context"
	"strings"
	"testing"
	"time"

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
