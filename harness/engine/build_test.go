package engine

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

func names(t *testing.T, tarball []byte) []string {
	t.Helper()
	var out []string
	walkTar(t, bytes.NewReader(tarball), func(h *tar.Header, _ []byte) { out = append(out, h.Name) })
	sort.Strings(out)
	return out
}

// walkTar calls each with every entry of the tar stream r, in order.
func walkTar(t *testing.T, r io.Reader, each func(h *tar.Header, data []byte)) {
	t.Helper()
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		each(h, data)
	}
}

func TestTarContextDockerignore(t *testing.T) {
	fsys := fstest.MapFS{
		".dockerignore":           {Data: []byte("node_modules\n*.log\n!keep.log\n")},
		"Dockerfile":              {Data: []byte("FROM x\n")},
		"server.js":               {Data: []byte("x")},
		"debug.log":               {Data: []byte("x")},
		"keep.log":                {Data: []byte("x")},
		"node_modules/a/index.js": {Data: []byte("x")},
	}
	tarball, _, err := TarContext(fsys, "Dockerfile", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := names(t, tarball)
	want := []string{".dockerignore", "Dockerfile", "keep.log", "server.js"}
	if len(got) != len(want) {
		t.Fatalf("context = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("context = %v, want %v", got, want)
		}
	}
}

// The hash changes with content and build args, not with anything else.
func TestTarContextHash(t *testing.T) {
	base := func() fstest.MapFS {
		return fstest.MapFS{"Dockerfile": {Data: []byte("FROM x\n")}, "main.go": {Data: []byte("package main")}}
	}
	hash := func(fsys fstest.MapFS, args map[string]string) string {
		t.Helper()
		_, h, err := TarContext(fsys, "Dockerfile", args)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	h0 := hash(base(), map[string]string{"A_IMAGE": "a"})
	if h := hash(base(), map[string]string{"A_IMAGE": "a"}); h != h0 {
		t.Error("same inputs, different hash")
	}
	touched := base()
	touched["main.go"].ModTime = touched["main.go"].ModTime.AddDate(1, 0, 0)
	if h := hash(touched, map[string]string{"A_IMAGE": "a"}); h != h0 {
		t.Error("a touched file changed the hash")
	}
	edited := base()
	edited["main.go"] = &fstest.MapFile{Data: []byte("package main // edited")}
	if h := hash(edited, map[string]string{"A_IMAGE": "a"}); h == h0 {
		t.Error("an edited file did not change the hash")
	}
	if h := hash(base(), map[string]string{"A_IMAGE": "b"}); h == h0 {
		t.Error("another base image did not change the hash")
	}
}

func TestTailBufferQuotesFailingStep(t *testing.T) {
	var tb tailBuffer
	tb.Write([]byte("Step 1/3 : FROM x\n ---> abc\nStep 2/3 : RUN make\n"))
	tb.Write([]byte("cc: error: boom\n"))
	if got, want := tb.String(), "Step 2/3 : RUN make\ncc: error: boom"; got != want {
		t.Errorf("tail = %q, want %q", got, want)
	}
}

func TestRates(t *testing.T) {
	if _, _, ok := Rates(nil); ok {
		t.Error("no samples gave a rate")
	}
	s := func(sec float64, cpu, mem uint64) Sample {
		var x Sample
		x.At = x.At.Add(timeSeconds(sec))
		x.CPUNanos, x.MemBytes = cpu, mem
		return x
	}
	cores, peak, ok := Rates([]Sample{s(0, 0, 10), s(1, 500_000_000, 30), s(2, 1_500_000_000, 20)})
	if !ok || cores != 0.75 || peak != 30 {
		t.Errorf("Rates = %v, %v, %v; want 0.75 cores, peak 30", cores, peak, ok)
	}
	if got := Steady([]Sample{s(0, 0, 10), s(1, 0, 90), s(2, 0, 20), s(3, 0, 25), s(4, 0, 22)}); got != 22 {
		t.Errorf("Steady = %d, want the median sample, 22 (not the peak, 90)", got)
	}
}

func timeSeconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// A context is streamed, never held: a 3 GiB sparse file is refused by
// size before it is read, and a 200 MiB one is hashed and written with
// a few buffers of memory.
func TestContextStreams(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte("FROM scratch\n"), 0o644)
	big := filepath.Join(dir, "big.img")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(200 << 20)
	f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n := &countWriter{}
	if _, err := WriteContext(n, os.DirFS(dir), "Dockerfile", nil); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if n.n < 200<<20 {
		t.Errorf("wrote %d bytes, want the 200 MiB file", n.n)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
		t.Errorf("streaming 200 MiB allocated %d MiB", grew>>20)
	}
	os.Truncate(big, MaxContext+1)
	if _, err := WriteContext(io.Discard, os.DirFS(dir), "Dockerfile", nil); err == nil || !strings.Contains(err.Error(), "leave large files out with a .dockerignore") {
		t.Errorf("a context past MaxContext: %v", err)
	}
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// A build whose RUN steps the layer cache served is warm: its time is not
// learned as a first build's.
func TestStepCounter(t *testing.T) {
	var c stepCounter
	io.WriteString(&c, "Step 1/4 : FROM x\n ---> abc\nStep 2/4 : RUN go build\n ---> Using cache\n ---> def\n")
	io.WriteString(&c, "Step 3/4 : COPY a b\n ---> Using cache\nStep 4/4 : RUN sleep 1\n ---> Running in 123\n")
	if c.run != 2 || c.cached != 1 {
		t.Errorf("run %d cached %d, want 2 and 1", c.run, c.cached)
	}
}

// Files copied into a container: each under its folders (made once, 0755),
// read-only (0444) unless a mode is given, with its bytes; a relative
// path is refused.
func TestTarOfFiles(t *testing.T) {
	buf, err := tarOf([]File{{Path: "/webbench-tls/cert.pem", Data: []byte("C")}, {Path: "/webbench-tls/key.pem", Data: []byte("K")},
		{Path: "/a/b/run.sh", Data: []byte("#!"), Mode: 0o755}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	walkTar(t, buf, func(h *tar.Header, data []byte) { got = append(got, fmt.Sprintf("%s %o %q", h.Name, h.Mode, data)) })
	want := []string{`webbench-tls/ 755 ""`, `webbench-tls/cert.pem 444 "C"`, `webbench-tls/key.pem 444 "K"`,
		`a/ 755 ""`, `a/b/ 755 ""`, `a/b/run.sh 755 "#!"`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tar:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := tarOf([]File{{Path: "relative/x", Data: nil}}); err == nil {
		t.Error("a relative path: want an error")
	}
}

// A .dockerignore that is a FIFO (opening it waits for a writer) or a
// device is refused, naming it, before it is opened; the build hung on it.
func TestDockerignoreNotRegular(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte("FROM x\n"), 0o644)
	if err := syscallMkfifo(filepath.Join(dir, ".dockerignore")); err != nil {
		t.Skip("no FIFO here:", err)
	}
	done := make(chan error, 1)
	go func() { _, _, err := TarContext(os.DirFS(dir), "Dockerfile", nil); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), ".dockerignore: not a regular file") {
			t.Errorf("a FIFO as .dockerignore: %v", err)
		}
	case <-time.After(2 * time.Minute): // a guard against the hang, not a timing
		t.Fatal("TarContext still reading a FIFO as .dockerignore")
	}
	big := fstest.MapFS{"Dockerfile": {Data: []byte("FROM x\n")}, ".dockerignore": {Data: bytes.Repeat([]byte("x\n"), maxDockerignore)}}
	if _, _, err := TarContext(big, "Dockerfile", nil); err == nil {
		t.Error("a .dockerignore over the limit was read")
	}
}
