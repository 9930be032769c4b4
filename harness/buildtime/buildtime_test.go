package buildtime

import (
	"os"
	"path/filepath"
	"syscall"
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

// The first build of a kind never built here scales the defaults of the
// kinds still unknown; a learned kind keeps its own figure.
func TestCalibration(t *testing.T) {
	b := Open(filepath.Join(t.TempDir(), "times.json"))
	if _, _, ok := b.Calibration(); ok {
		t.Error("an empty book is calibrated")
	}
	b.Record(Debootstrap, Defaults[Debootstrap]/2)
	from, f, ok := b.Calibration()
	if !ok || from != Debootstrap || f != 0.5 {
		t.Errorf("calibration %v %v %v, want debootstrap 0.5", from, f, ok)
	}
	if d, learned := b.Guess(Image); d != Defaults[Image]/2 || learned {
		t.Errorf("image guess %v %v, want half its default, not learned", d, learned)
	}
	b.Record(Image, 7*time.Second)
	if d, learned := b.Guess(Image); d != 7*time.Second || !learned {
		t.Errorf("image guess %v %v after one build of 7 s", d, learned)
	}
	if _, f, _ := b.Calibration(); f != 0.5 {
		t.Errorf("a later first build re-calibrated: %v", f)
	}
}

// WEBBENCH_BUILD_TIMES moves the record; Estimate adds one guess per build
// and says whether all were learned; beside target images, only the
// debootstrap and the images' shares count.
func TestPathVarAndEstimate(t *testing.T) {
	p := filepath.Join(t.TempDir(), "times.json")
	t.Setenv(PathVar, p)
	if Path() != p {
		t.Fatalf("Path() = %s with %s set, want %s", Path(), PathVar, p)
	}
	b := Open(Path())
	b.Record(Image, 10*time.Second)
	if d, learned := b.Estimate([]Kind{Image, Image}); d != 20*time.Second || !learned {
		t.Errorf("two learned image builds: %s, learned %v", d, learned)
	}
	if _, learned := b.Estimate([]Kind{Debootstrap, Image}); learned {
		t.Error("an unlearned kind counted as learned")
	}
	deboot, _ := b.Guess(Debootstrap)
	if d, _ := b.Estimate([]Kind{Debootstrap, Toolchain, Recipe, Loadgen, Image}); d != deboot+10*time.Second {
		t.Errorf("stand-ins and the generator beside one image: %s, want the debootstrap's %s and the image's 10s", d, deboot)
	}
	recipe, _ := b.Guess(Recipe)
	loadgen, _ := b.Guess(Loadgen)
	if d, _ := b.Estimate([]Kind{Recipe, Loadgen}); d != recipe+loadgen {
		t.Errorf("a recipe and the generator, no image: %s, want both added up (%s)", d, recipe+loadgen)
	}
	if _, err := os.Stat(p); err != nil {
		t.Errorf("the record was not written where %s says: %v", PathVar, err)
	}
}

// A FIFO at WEBBENCH_BUILD_TIMES hung plan (opening it waits for a
// writer); a link to /dev/zero would fill memory. Both read as empty.
func TestOpenReadsOnlyABoundedRegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	zero := filepath.Join(dir, "zero")
	os.Symlink("/dev/zero", zero)
	for _, p := range []string{fifo, zero} {
		if _, learned := Open(p).Guess(Image); learned {
			t.Errorf("%s: learned a figure", p)
		}
	}
}

// A target's visit time is its own, kept across opens; an unknown target's
// is the fallback.
func TestVisits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "times.json")
	b := Open(path)
	if d := b.Visit("db", 1500*time.Millisecond); d != 1500*time.Millisecond {
		t.Errorf("unknown target: %v, want the fallback", d)
	}
	b.RecordVisit("db", 8*time.Second)
	b.RecordVisit("db", 6*time.Second)
	b.RecordVisit("hello", 0) // nothing beyond its load: not learned
	again := Open(path)
	if d := again.Visit("db", 0); d != 7*time.Second {
		t.Errorf("db after 8 s and 6 s: %v, want their average 7 s", d)
	}
	if d := again.Visit("hello", time.Second); d != time.Second {
		t.Errorf("hello: %v, want the fallback", d)
	}
}
