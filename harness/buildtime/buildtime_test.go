package buildtime

import (
	"path/filepath"
	"testing"
	"time"
)

func TestBook(t *testing.T) {
	path := filepath.Join(t.TempDir(), "webbench", "build-times.json")
	b := Open(path)
	if d, learned := b.Guess(Debootstrap); d != Defaults[Debootstrap] || learned {
		t.Errorf("empty book: %v %v", d, learned)
	}
	b.Record(Image, 40*time.Second)
	b.Record(Image, 20*time.Second)
	again := Open(path) // saved
	if d, learned := again.Guess(Image); d != 30*time.Second || !learned {
		t.Errorf("after 40 s and 20 s: %v %v, want the moving average 30 s", d, learned)
	}
}
