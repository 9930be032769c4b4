package baseimage

import (
	"archive/tar"
	"context"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/webbench/webbench/harness/buildtime"
	"github.com/webbench/webbench/harness/engine"
)

// fakeEngine is the engine as the resolver sees it: which references it
// has, which pulls work, and the calls made, for tests of the resolver's
// decisions alone.
type fakeEngine struct {
	have     map[string]bool
	labels   map[string]map[string]string // of the images in have, by ref
	pullable map[string]bool
	buildErr error
	buildOut string // what a build writes to its log, a few bytes a write
	calls    []string
	builds   []engine.BuildSpec
	built    map[string]engine.BuildSpec // by tag: what each image was built from
}

func (f *fakeEngine) ImageLabels(_ context.Context, ref string) (string, map[string]string, bool, error) {
	f.calls = append(f.calls, "labels "+ref)
	return "", f.labels[ref], f.have[ref], nil
}

func (f *fakeEngine) Pull(_ context.Context, ref string) error {
	f.calls = append(f.calls, "pull "+ref)
	if f.pullable[ref] {
		f.have[ref] = true
		return nil
	}
	return errors.New("no registry")
}

func (f *fakeEngine) Import(context.Context, io.Reader, string, []string) error {
	return errors.New("import is not expected here")
}

func (f *fakeEngine) Build(_ context.Context, s engine.BuildSpec) (engine.Built, error) {
	f.calls = append(f.calls, "build "+s.Tag)
	f.builds = append(f.builds, s)
	for out := f.buildOut; out != "" && s.Log != nil; {
		n := min(3, len(out))
		s.Log.Write([]byte(out[:n]))
		out = out[n:]
	}
	if f.buildErr != nil {
		return engine.Built{}, f.buildErr
	}
	f.have[s.Tag], f.built[s.Tag] = true, s
	return engine.Built{ID: "sha256:x"}, nil
}

// Cached is the engine's: s.Tag was built from the same inputs (context,
// Dockerfile, build arguments), by their hash.
func (f *fakeEngine) Cached(_ context.Context, s engine.BuildSpec) (bool, error) {
	b, ok := f.built[s.Tag]
	if !ok {
		return false, nil
	}
	was, err := engine.WriteContext(io.Discard, b.Context, "Dockerfile", b.BuildArgs)
	if err != nil {
		return false, err
	}
	is, err := engine.WriteContext(io.Discard, s.Context, "Dockerfile", s.BuildArgs)
	return was == is, err
}

var testImages = map[string]string{
	"debian": "debian:bookworm-slim",
	"golang": "golang:1.26-bookworm",
	"node":   "node:22-bookworm-slim",
	"custom": "example.com/custom:1",
}

func newFake(have ...string) *fakeEngine {
	f := &fakeEngine{have: map[string]bool{}, pullable: map[string]bool{}, built: map[string]engine.BuildSpec{}}
	for _, ref := range have {
		f.have[ref] = true
	}
	return f
}

func TestResolveOfficialPresentOrPulled(t *testing.T) {
	f := newFake("debian:bookworm-slim")
	f.pullable["node:22-bookworm-slim"] = true
	r := NewResolver(f, testImages, Options{})
	if b := r.Resolve(context.Background(), "debian"); b.Used != "debian:bookworm-slim" || b.Pulled || b.StandIn || b.Error != "" {
		t.Errorf("present: %+v", b)
	}
	if b := r.Resolve(context.Background(), "node"); b.Used != "node:22-bookworm-slim" || !b.Pulled || b.StandIn {
		t.Errorf("pulled: %+v", b)
	}
	if slices.Contains(f.calls, "pull debian:bookworm-slim") {
		t.Errorf("pulled an image the engine had: %v", f.calls)
	}
}

// Each key is resolved once per run: a second Resolve asks the engine
// nothing.
func TestResolveOnce(t *testing.T) {
	f := newFake("debian:bookworm-slim")
	r := NewResolver(f, testImages, Options{})
	first := r.Resolve(context.Background(), "debian")
	n := len(f.calls)
	if again := r.Resolve(context.Background(), "debian"); again != first || len(f.calls) != n {
		t.Errorf("resolved twice: %v", f.calls[n:])
	}
}

func TestResolveUnknownKey(t *testing.T) {
	r := NewResolver(newFake(), testImages, Options{})
	if b := r.Resolve(context.Background(), "python"); b.Used != "" || !strings.Contains(b.Error, `images has no key "python"`) {
		t.Errorf("unknown key: %+v", b)
	}
}

// With NoPull the registry is never asked; an image copied from the run's
// other engine comes first, then its stand-in copied.
func TestResolveCopies(t *testing.T) {
	for _, c := range []struct {
		name     string
		copyable string
		used     string
		standIn  bool
		note     string
	}{
		{"official", "node:22-bookworm-slim", "node:22-bookworm-slim", false, "copied from the run's other engine"},
		{"stand-in", "webbench-standin/node:22-bookworm-slim", "webbench-standin/node:22-bookworm-slim", true,
			"runs Debian bookworm nodejs 18.19.0+dfsg-6~deb12u2 (18.19.0, not the tag's 22); stand-in copied from the run's other engine"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &probingEngine{fakeEngine: newFake(), answers: map[string]string{"webbench-standin/node:22-bookworm-slim": "bookworm 18.19.0+dfsg-6~deb12u2"}}
			var asked []string
			cp := func(_ context.Context, ref string) (bool, error) {
				asked = append(asked, ref)
				return ref == c.copyable, nil
			}
			r := NewResolver(f, testImages, Options{NoPull: true, Copy: cp})
			b := r.Resolve(context.Background(), "node")
			if b.Used != c.used || b.StandIn != c.standIn || b.Note != c.note || b.Pulled {
				t.Errorf("got %+v", b)
			}
			if slices.ContainsFunc(f.calls, func(s string) bool { return strings.HasPrefix(s, "pull ") }) {
				t.Errorf("pulled with NoPull: %v", f.calls)
			}
			if asked[0] != "node:22-bookworm-slim" {
				t.Errorf("asked %v, the official image first", asked)
			}
		})
	}
}

// A recipe stand-in builds docker/standins/<key> on the debian image the
// run resolved, passed as DEBIAN_IMAGE.
func TestResolveRecipeStandIn(t *testing.T) {
	f := newFake("debian:bookworm-slim")
	r := NewResolver(f, testImages, Options{NoPull: true})
	b := r.Resolve(context.Background(), "node")
	if b.Used != "webbench-standin/node:22-bookworm-slim" || !b.StandIn || b.Error != "" {
		t.Fatalf("got %+v", b)
	}
	if len(f.builds) != 1 || f.builds[0].BuildArgs["DEBIAN_IMAGE"] != "debian:bookworm-slim" {
		t.Errorf("builds %+v", f.builds)
	}
	if !strings.Contains(b.Note, "docker/standins/node/Dockerfile on debian:bookworm-slim") {
		t.Errorf("note %q", b.Note)
	}
}

// A stand-in's build output reaches the build log in whole lines, each
// led by the stand-in's reference, however the engine cut it; a last line
// without a newline is ended.
func TestStandInBuildLogLines(t *testing.T) {
	f := newFake("debian:bookworm-slim")
	f.buildOut = "Step 1/2 : FROM debian\nStep 2/2 : RUN apt-get\nSuccessfully built"
	var log strings.Builder
	r := NewResolver(f, testImages, Options{NoPull: true, BuildLog: &wholeWrites{t: t, w: &log}})
	if b := r.Resolve(context.Background(), "node"); b.Error != "" {
		t.Fatal(b.Error)
	}
	want := "webbench-standin/node:22-bookworm-slim | Step 1/2 : FROM debian\n" +
		"webbench-standin/node:22-bookworm-slim | Step 2/2 : RUN apt-get\n" +
		"webbench-standin/node:22-bookworm-slim | Successfully built\n"
	if log.String() != want {
		t.Errorf("build log:\n%s\nwant:\n%s", log.String(), want)
	}
}

// wholeWrites fails the test on a Write that does not end a line.
type wholeWrites struct {
	t *testing.T
	w io.Writer
}

func (w *wholeWrites) Write(p []byte) (int, error) {
	if !strings.HasSuffix(string(p), "\n") {
		w.t.Errorf("a write that ends no line: %q", p)
	}
	return w.w.Write(p)
}

// When nothing works the base says why both ways failed, and a key with no
// recipe is not built at all.
func TestResolveNoWay(t *testing.T) {
	f := newFake("debian:bookworm-slim")
	f.buildErr = errors.New("apt-get failed")
	r := NewResolver(f, testImages, Options{})
	b := r.Resolve(context.Background(), "node")
	if b.Used != "" || !strings.Contains(b.Error, "cannot pull it (no registry)") || !strings.Contains(b.Error, "apt-get failed") {
		t.Errorf("failed build: %+v", b)
	}
	b = r.Resolve(context.Background(), "custom")
	if b.Used != "" || !strings.Contains(b.Error, "no stand-in recipe docker/standins/custom/Dockerfile") {
		t.Errorf("no recipe: %+v", b)
	}
	if len(f.builds) != 1 {
		t.Errorf("%d builds, want only node's", len(f.builds))
	}
}

// Pending counts a stand-in build only where the engine has neither the
// official image nor its stand-in, and never for a key without one.
func TestPending(t *testing.T) {
	ctx := context.Background()
	f := newFake("webbench-standin/golang:1.26-bookworm", "webbench-standin/debian:bookworm-slim")
	r := NewResolver(f, testImages, Options{})
	golang, _, err := r.rootfsOf("golang", testImages["golang"])
	if err != nil {
		t.Fatal(err)
	}
	hash, _, err := r.hash(golang)
	if err != nil {
		t.Fatal(err)
	}
	f.labels = map[string]map[string]string{
		"webbench-standin/golang:1.26-bookworm": {engine.LabelHash: hash},
		// made by another recipe (an older harness, another CA bundle):
		// importRootfs makes it again, so it is pending
		"webbench-standin/debian:bookworm-slim": {engine.LabelHash: "0123456789abcdef"},
	}
	for key, want := range map[string][]buildtime.Kind{
		"debian": {buildtime.Debootstrap},
		"golang": nil, // its stand-in is there, made as this harness makes it
		"node":   {buildtime.Recipe},
		"custom": nil, // no stand-in
		"absent": nil, // no key
	} {
		if got := r.Pending(ctx, key); !slices.Equal(got, want) {
			t.Errorf("Pending(%s) = %v, want %v", key, got, want)
		}
	}
}

// A recipe stand-in is pending unless the engine holds it built from
// this recipe on the debian base the run would give it: the very build
// Resolve makes counts as current, one from another recipe does not.
func TestPendingRecipe(t *testing.T) {
	ctx := context.Background()
	images := maps.Clone(testImages)
	images["postgres"], images["python"] = "postgres:17-bookworm", "python:3.12-slim-bookworm"
	f := newFake("debian:bookworm-slim")
	r := NewResolver(f, images, Options{NoPull: true})
	for _, key := range []string{"node", "postgres"} {
		if b := r.Resolve(ctx, key); b.Error != "" {
			t.Fatal(b.Error)
		}
	}
	older := f.built["webbench-standin/postgres:17-bookworm"]
	older.Context = fstest.MapFS{"Dockerfile": {Data: []byte("ARG DEBIAN_IMAGE\nFROM ${DEBIAN_IMAGE}\n")}}
	f.built[older.Tag] = older
	r = NewResolver(f, images, Options{NoPull: true})
	for key, want := range map[string][]buildtime.Kind{
		"node":     nil, // built as this harness builds it
		"postgres": {buildtime.Recipe},
		"python":   {buildtime.Recipe}, // not built yet
	} {
		if got := r.Pending(ctx, key); !slices.Equal(got, want) {
			t.Errorf("Pending(%s) = %v, want %v", key, got, want)
		}
	}
}

func TestHasStandIn(t *testing.T) {
	for key, want := range map[string]bool{"debian": true, "golang": true, "node": true, "postgres": true, "custom": false, "dotnet-sdk": false} {
		if got := HasStandIn(key); got != want {
			t.Errorf("HasStandIn(%q) = %v", key, got)
		}
	}
}

// addTree writes a folder under a prefix as root-owned entries, keeping
// symbolic links as links and file contents whole.
func TestAddTree(t *testing.T) {
	src := t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "bin", "go"), []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("bin/go", filepath.Join(src, "go")); err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	go func() {
		tw := tar.NewWriter(pw)
		err := addTree(tw, src, "usr/local/go")
		if err == nil {
			err = tw.Close()
		}
		pw.CloseWithError(err)
	}()
	got := map[string]string{}
	tr := tar.NewReader(pr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if hdr.Uid != 0 || hdr.Gname != "root" {
			t.Errorf("%s owned by %d/%s", hdr.Name, hdr.Uid, hdr.Gname)
		}
		body, _ := io.ReadAll(tr)
		got[hdr.Name] = string(body) + hdr.Linkname
	}
	want := map[string]string{"usr/local/go/": "", "usr/local/go/bin/": "", "usr/local/go/bin/go": "binary", "usr/local/go/go": "bin/go"}
	if len(got) != len(want) {
		t.Errorf("entries %v, want %v", got, want)
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %q, want %q", name, got[name], w)
		}
	}
}
