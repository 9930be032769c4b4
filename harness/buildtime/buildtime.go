// Package buildtime keeps how long image builds take on this machine, so
// that plan and run can say before building how long the builds will take:
// learned from earlier builds (a moving average per kind of build, kept in
// the user's cache dir) or, before the first one, a documented default. It
// keeps beside them how long a visit of each target takes beyond its load
// (start, readiness, verification, removal): a target whose database seeds
// itself at every start takes seconds more than a hello-world server.
package buildtime

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/moby/sys/atomicwriter"

	"github.com/webbench/webbench/harness/internal/safefile"
)

// Kind is a kind of build.
type Kind string

// Kinds of builds.
const (
	Debootstrap Kind = "debootstrap" // the Debian root file system of the stand-ins
	Toolchain   Kind = "toolchain"   // the golang stand-in: that root plus the host's Go
	Recipe      Kind = "recipe"      // a stand-in from docker/standins/<key> (node, nginx, mono)
	Image       Kind = "image"       // a target's image
	Loadgen     Kind = "loadgen"     // the load generator's image (it compiles bombardier: slower than most)
)

// Defaults are the times measured on this project's 2-core VM (AMD EPYC,
// Debian's mirror, fuse-overlayfs) in make matrix after docker system
// prune -af (2026-12-07, stand-ins and the load generator built beside the
// targets, three targets at a time): debootstrap 34 s, the Go toolchain
// copied in and its standard library prebuilt 72 s, the node, mono and
// nginx recipes 18–36 s, the load generator 206 s beside the targets, and
// 14 target images in about 355 s of wall time from the first one's
// start (alone, Go images take 55–108 s and a config layer over nginx
// 4 s; the estimate needs their mean share). The load generator is a kind
// of its own: its time would otherwise be learned as every target
// image's. They are used until this machine has built one of the kind,
// scaled by the first build it makes (Book.Calibration).
var Defaults = map[Kind]time.Duration{
	Debootstrap: 34 * time.Second,
	Toolchain:   72 * time.Second,
	Recipe:      29 * time.Second,
	Image:       26 * time.Second,
	Loadgen:     206 * time.Second,
}

// weight of the newest build in the moving average.
const weight = 0.5

// Book is the record of this machine's build times.
type Book struct {
	mu      sync.Mutex
	path    string
	Seconds map[Kind]float64 `json:"seconds"`
	// Visits is, per target, the seconds a visit took beyond its warm-up
	// and trials.
	Visits map[string]float64 `json:"visits,omitempty"`
	// scale calibrates the defaults to this machine: the first build of a
	// kind never built here, over that kind's default. 0 until then.
	scale float64
	from  Kind
}

// PathVar names an environment variable that, when set, is the record's
// path instead of Path's default (tests point it at a folder of their own,
// so that they never read or teach the user's record).
const PathVar = "WEBBENCH_BUILD_TIMES"

// Path is the record: $WEBBENCH_BUILD_TIMES, else <user cache
// dir>/webbench/build-times.json.
func Path() string {
	if p := os.Getenv(PathVar); p != "" {
		return p
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "webbench", "build-times.json")
}

// MaxSize bounds the record read: a few kinds of build, a few bytes each.
const MaxSize = 64 << 10

// Open reads the record at path; a missing, damaged or oversized one, or
// anything but a regular file (a FIFO would hang plan, a link to
// /dev/zero fill its memory), is empty.
func Open(path string) *Book {
	b := &Book{path: path, Seconds: map[Kind]float64{}}
	if data, err := safefile.Read(path, MaxSize); err == nil {
		json.Unmarshal(data, b)
	}
	if b.Seconds == nil {
		b.Seconds = map[Kind]float64{}
	}
	return b
}

// Guess is how long a build of kind k takes here, and whether that was
// learned here (else it is the default).
func (b *Book) Guess(k Kind) (time.Duration, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.Seconds[k]; ok && s > 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if b.scale > 0 {
		return time.Duration(float64(Defaults[k]) * b.scale), false
	}
	return Defaults[k], false
}

// Estimate is how long building kinds (one entry per build) takes here,
// and whether every figure it counts was learned here: the one estimate
// of builds that plan and run both print. Everything waits on the
// debootstrap; after it, the toolchain, the recipes and the load
// generator build beside the target images, inside the window whose
// share per image the run books (Image). So where target images are
// built, only the debootstrap and the images' shares count; without them
// the builds left are added up.
func (b *Book) Estimate(kinds []Kind) (total time.Duration, learned bool) {
	beside := slices.Contains(kinds, Image)
	learned = true
	for _, k := range kinds {
		if beside && k != Image && k != Debootstrap {
			continue
		}
		d, ok := b.Guess(k)
		total, learned = total+d, learned && ok
	}
	return total, learned
}

// Calibration says which kind's first build here calibrated the defaults
// and by what factor (ok false: none yet). A first debootstrap that takes
// 40 s where the default says 60 s makes every default two thirds.
func (b *Book) Calibration() (from Kind, factor float64, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.from, b.scale, b.scale > 0
}

// Record adds one build's time to the average and saves the record; a
// record that cannot be written is no reason to fail a build.
func (b *Book) Record(k Kind, d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := d.Seconds()
	if old, ok := b.Seconds[k]; ok && old > 0 {
		s = weight*s + (1-weight)*old
	} else if b.scale == 0 && Defaults[k] > 0 && s > 0 {
		// The first build of a kind this machine has not built is the
		// earliest measure of its speed (disk, CPU, the package mirror):
		// it scales the defaults of the kinds still unknown.
		b.scale, b.from = s/Defaults[k].Seconds(), k
	}
	b.Seconds[k] = s
	b.save()
}

// save writes the record; one that cannot be written is no reason to fail
// a run. The caller holds b.mu.
func (b *Book) save() {
	if data, err := json.Marshal(b); err == nil && os.MkdirAll(filepath.Dir(b.path), 0o755) == nil {
		atomicwriter.WriteFile(b.path, data, 0o644)
	}
}

// Visit is how long a visit of target takes here beyond its load, learned
// from its earlier visits, else fallback.
func (b *Book) Visit(target string, fallback time.Duration) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.Visits[target]; ok && s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	return fallback
}

// RecordVisit adds one visit's time beyond its load to target's average
// and saves the record.
func (b *Book) RecordVisit(target string, d time.Duration) {
	if d <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.Visits == nil {
		b.Visits = map[string]float64{}
	}
	s := d.Seconds()
	if old, ok := b.Visits[target]; ok && old > 0 {
		s = weight*s + (1-weight)*old
	}
	b.Visits[target] = s
	b.save()
}
