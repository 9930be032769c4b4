package runner

import "testing"

func TestRuntimeVersion(t *testing.T) {
	logs := "2026/12/02 listening on :8080\nruntime: go1.26.8\nruntime: later\n"
	if got := runtimeVersion(logs); got != "go1.26.8" {
		t.Errorf("runtimeVersion = %q", got)
	}
	if got := runtimeVersion("no marker here\n"); got != "" {
		t.Errorf("runtimeVersion without marker = %q", got)
	}
}
