package baseimage

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/engine"
)

// gateEngine has debian and builds every stand-in recipe, each build
// waiting until want builds are in flight at once (or a guard passes, so
// that a resolver that builds one at a time fails instead of hanging).
type gateEngine struct {
	want     int
	mu       sync.Mutex
	inFlight int
	most     int
	builds   map[string]int
	all      chan struct{}
}

func (g *gateEngine) ImageLabels(_ context.Context, ref string) (string, map[string]string, bool, error) {
	return "", nil, ref == "debian:bookworm-slim", nil
}

func (g *gateEngine) Pull(context.Context, string) error { return errors.New("no registry") }

func (g *gateEngine) Cached(context.Context, engine.BuildSpec) (bool, error) { return false, nil }

func (g *gateEngine) Import(context.Context, io.Reader, string, []string) error {
	return errors.New("import is not expected here")
}

func (g *gateEngine) Build(_ context.Context, s engine.BuildSpec) (engine.Built, error) {
	g.mu.Lock()
	g.inFlight++
	g.most = max(g.most, g.inFlight)
	g.builds[s.Tag]++
	if g.inFlight == g.want {
		close(g.all)
	}
	g.mu.Unlock()
	select {
	case <-g.all:
	case <-time.After(10 * time.Second): // the guard: this build waited alone
	}
	g.mu.Lock()
	g.inFlight--
	g.mu.Unlock()
	return engine.Built{ID: "sha256:" + s.Tag}, nil
}

// Two keys resolve side by side: the node and nginx stand-ins build at
// the same time; a key asked for by several goroutines at once is built
// once, and each gets that one resolution.
func TestResolveSideBySide(t *testing.T) {
	g := &gateEngine{want: 2, builds: map[string]int{}, all: make(chan struct{})}
	images := map[string]string{"debian": "debian:bookworm-slim", "node": "node:22-bookworm-slim", "nginx": "nginx:1.27-bookworm"}
	r := NewResolver(g, images, Options{NoPull: true})
	keys := []string{"node", "nginx", "node", "nginx", "node"}
	got := make([]*Base, len(keys))
	var wg sync.WaitGroup
	for i, key := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = r.Resolve(context.Background(), key)
		}()
	}
	wg.Wait()
	if g.most != 2 {
		t.Errorf("at most %d stand-in build(s) in flight at once, want 2 (node and nginx side by side)", g.most)
	}
	for tag, n := range g.builds {
		if n != 1 {
			t.Errorf("%s built %d times, want once", tag, n)
		}
	}
	for i, b := range got {
		if b.Error != "" || !b.StandIn || b != r.Resolve(context.Background(), keys[i]) {
			t.Errorf("%s: %+v, want the one stand-in resolution of the key", keys[i], b)
		}
	}
}
