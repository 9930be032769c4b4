package runner

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/engine"
)

// Readiness strategies compose in order within one deadline: each must
// hold before the next is asked; one that never holds fails with what it
// last said and its container's last lines; a container that stops fails
// the wait at once, naming it.
func TestReadinessStrategies(t *testing.T) {
	ctx := context.Background()
	f := newFake()
	g := f.generator()
	d := &deployment{eng: f.engine()}
	s := stack{d}
	defer s.close(ctx)
	m := &member{service: "web", alias: "web-1", addr: "127.0.0.1:8080"}
	err := d.start(ctx, m, engine.ContainerSpec{Name: "web-1", Env: []string{"PORT=8080"},
		Labels: map[string]string{engine.LabelRole: "target", engine.LabelTarget: "a"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	url := "http://127.0.0.1:8080/"
	logLine := forLog{eng: f, id: m.id, line: RuntimeMarker}
	if err := s.ready(ctx, []waitFor{forPort{g, m}, logLine, forHTTP{gen: g, url: url, id: m.id}}, time.Second); err != nil {
		t.Errorf("a port, a log line and an answer: %v", err)
	}
	if asked := g.asked(); len(asked) != 2 || asked[0].ask.Kind != probeTCP || asked[1].target != url {
		t.Errorf("probes %+v: want the port, then the URL", asked)
	}

	var nr *notReadyError
	err = s.ready(ctx, []waitFor{logLine, forLog{eng: f, id: m.id, line: "never"}}, 200*time.Millisecond)
	if !errors.As(err, &nr) || !strings.Contains(nr.last, `"never"`) || !strings.Contains(nr.logs, "runtime: fake 1.0") {
		t.Errorf("a line that never comes: %v", err)
	}

	f.mu.Lock()
	f.containers[m.id].exited = true
	f.mu.Unlock()
	err = s.ready(ctx, []waitFor{forHTTP{gen: g, url: url, id: m.id}}, time.Minute)
	if err == nil || errors.As(err, &nr) || !strings.Contains(err.Error(), "before answering") {
		t.Errorf("a container that stopped: %v", err)
	}
}
