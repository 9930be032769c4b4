package engine

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
)

// TestCappedOutput: the two streams together keep at most the limit, each
// apart from the other, and the write that passes it fails.
func TestCappedOutput(t *testing.T) {
	c := newCappedOutput(10)
	if _, err := c.Stdout().Write([]byte("12345")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Stderr().Write([]byte("abcd")); err != nil {
		t.Fatal(err)
	}
	n, err := c.Stdout().Write([]byte("678"))
	var full *outputFull
	if !errors.As(err, &full) || n != 1 {
		t.Fatalf("write past the limit: %d, %v; want 1 byte kept and the limit's error", n, err)
	}
	if c.stdout.String() != "123456" || c.stderr.String() != "abcd" {
		t.Errorf("kept %q and %q, want 123456 and abcd", c.stdout.String(), c.stderr.String())
	}
	if _, err := c.Stderr().Write([]byte("e")); err == nil {
		t.Error("a write once full succeeded")
	}
}

// endless is an exec's multiplexed stream that never ends.
type endless struct {
	frame []byte
	at    int
}

func (e *endless) Read(p []byte) (int, error) {
	n := copy(p, e.frame[e.at:])
	e.at = (e.at + n) % len(e.frame)
	return n, nil
}

// TestCopyOutputStops: a stream that never ends stops at the limit, or at
// ctx's end, and the copy is over (the stream closed) when copyOutput
// returns, so nothing is held or written after.
func TestCopyOutputStops(t *testing.T) {
	frame := []byte{byte(stdcopy.Stdout), 0, 0, 0, 0, 0, 0x10, 0} // a 4096-byte frame of stdout
	frame = append(frame, bytes.Repeat([]byte("y"), 4096)...)
	closed := 0
	out := newCappedOutput(1 << 20)
	err := copyOutput(context.Background(), &endless{frame: frame}, func() { closed++ }, out)
	var full *outputFull
	if !errors.As(err, &full) || out.stdout.Len() != 1<<20 || closed != 1 {
		t.Errorf("endless stream: %v, %d bytes kept, closed %d times; want the limit's error, 1 MiB, closed once", err, out.stdout.Len(), closed)
	}

	pr, pw := io.Pipe() // a command that prints nothing and never ends
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = copyOutput(ctx, pr, func() { pw.CloseWithError(errors.New("closed")) }, newCappedOutput(1<<20))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("silent stream, ctx ended: %v, want ctx's error", err)
	}
}

// TestExecBounded runs, on the real engine, a command that prints without
// end and one that never ends: Exec returns with the limit's error and
// with ctx's, holding no more than the limit.
func TestExecBounded(t *testing.T) {
	ctx := context.Background()
	e := realEngine(t, "builds an image and runs a container on the Docker engine")
	bin := filepath.Join(t.TempDir(), "flood")
	build := exec.Command("go", "build", "-o", bin, "./testdata/flood")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	prog, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	tag := "webbench-test/flood:" + strconv.Itoa(os.Getpid())
	ctxFS := fstest.MapFS{
		"Dockerfile": {Data: []byte("FROM scratch\nCOPY flood /flood\n")},
		"flood":      {Data: prog, Mode: 0o755},
	}
	if _, err := e.Build(ctx, BuildSpec{Context: ctxFS, Tag: tag}); err != nil {
		t.Fatal(err)
	}
	defer e.cli.ImageRemove(ctx, tag, client.ImageRemoveOptions{Force: true, PruneChildren: true})
	id, err := e.Start(ctx, ContainerSpec{Name: "webbench-test-flood-" + strconv.Itoa(os.Getpid()), Image: tag, Cmd: []string{"/flood", "sleep"}, Network: "none"})
	defer e.RemoveContainer(context.WithoutCancel(ctx), id)
	if err != nil {
		t.Fatal(err)
	}

	fctx, cancel := context.WithTimeout(ctx, 5*time.Minute) // a bound on a broken cap, not a timing
	defer cancel()
	_, err = e.Exec(fctx, id, []string{"/flood", "flood"})
	var limit *ExecLimitError
	if !errors.As(err, &limit) || !strings.Contains(err.Error(), "/flood flood") || !strings.Contains(err.Error(), "64 MiB") {
		t.Errorf("a command printing without end: %v, want the limit's error naming it", err)
	}

	hctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if _, err := e.Exec(hctx, id, []string{"/flood", "sleep"}); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "/flood sleep") {
		t.Errorf("a command that never ends: %v, want ctx's deadline, the command named", err)
	}
}
