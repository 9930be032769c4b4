package runner

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The start script, run by this machine's sh, date, awk and sleep as the
// load generator image's run it: it does not start the tool before the
// instant, leaves the tool's standard output alone, passes its exit status
// on, and says when the tool started and stopped.
func TestStartScript(t *testing.T) {
	for _, tool := range []string{"sh", "date", "awk", "sleep"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s here: %v", tool, err)
		}
	}
	at := time.Now().Add(300 * time.Millisecond)
	cmd := startingAt(at, []string{"sh", "-c", "echo report; echo complaint >&2; exit 3"})
	var stdout, stderr strings.Builder
	c := exec.Command(cmd[0], cmd[1:]...)
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Errorf("exit %v, want the tool's 3", err)
	}
	if stdout.String() != "report\n" {
		t.Errorf("stdout %q, want the tool's alone", stdout.String())
	}
	w, rest, err := windowOf([]byte(stderr.String()))
	if err != nil {
		t.Fatal(err)
	}
	if string(rest) != "complaint\n" {
		t.Errorf("the rest of stderr %q, want the tool's alone", rest)
	}
	if w.Start.Before(at) || w.Stop.Before(w.Start) {
		t.Errorf("window %s … %s for the instant %s: started before it, or stopped before starting", w.Start, w.Stop, at)
	}

	// An instant already past starts at once.
	cmd = startingAt(time.Now().Add(-time.Hour), []string{"true"})
	out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput()
	if _, _, werr := windowOf(out); err != nil || werr != nil {
		t.Errorf("an instant past: %v, %v (%q)", err, werr, out)
	}
}

func TestWindowOf(t *testing.T) {
	w, rest, err := windowOf([]byte("warn\n" + windowMark + "1800000000.000000001 1800000002.500000000\n"))
	if err != nil || string(rest) != "warn\n" || w.Start.UnixNano() != 1_800_000_000_000_000_001 || w.Duration() != 2500*time.Millisecond-time.Nanosecond {
		t.Errorf("window %v … %v, rest %q, %v", w.Start, w.Stop, rest, err)
	}
	for _, bad := range []string{"nothing said\n", windowMark + "1800000000 1800000002\n", windowMark + "1800000000.5 1800000002.5\n"} {
		if _, _, err := windowOf([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
