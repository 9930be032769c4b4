package engine

import (
	"context"
	"os"
	"testing"
	"time"
)

// realEngine returns the Docker engine for a test that needs one, what
// it does (why) said when it skips: with -short, or where no engine
// answers, except under CI (CI=true), where no engine is a failure, as in
// the end-to-end tests.
func realEngine(t *testing.T, why string) *Engine {
	t.Helper()
	ci := os.Getenv("CI") == "true"
	if testing.Short() && !ci {
		t.Skip("-short: " + why)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	e, err := Connect(ctx)
	if err != nil {
		if ci {
			t.Fatalf("CI=true and no Docker engine: %v", err)
		}
		t.Skipf("no Docker engine: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}
