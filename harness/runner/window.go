package runner

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/merge"
)

// windowMark starts the line a run started at an instant writes on
// standard error: when its tool really started and stopped, in seconds
// since the epoch on the generator's machine's clock.
const windowMark = "webbench-window "

// startScript waits in the generator's container until the instant $1
// (seconds since the epoch, as that machine's clock reads it), runs the
// rest of its arguments, and writes windowMark with the times just before
// and after them on standard error, then exits with their status. The
// tool's own output stays alone on standard output, for its Parse. awk
// computes the wait in doubles: to the microsecond at today's epoch.
const startScript = `now=$(date +%s.%N)
sleep "$(awk -v a="$1" -v n="$now" 'BEGIN { d = a - n; if (d < 0) d = 0; printf "%.6f", d }')"
shift
start=$(date +%s.%N)
"$@"
rc=$?
echo "` + windowMark + `$start $(date +%s.%N)" >&2
exit $rc`

// startingAt wraps cmd to start at the instant at (see startScript); a
// machine whose clock already reads past it starts at once.
func startingAt(at time.Time, cmd []string) []string {
	return append([]string{"sh", "-c", startScript, "sh", fmt.Sprintf("%d.%09d", at.Unix(), at.Nanosecond())}, cmd...)
}

// windowOf finds the window line in a run's standard error and returns
// the window and the rest of the text, for messages.
func windowOf(stderr []byte) (merge.Window, []byte, error) {
	var w merge.Window
	var rest [][]byte
	found := false
	for _, line := range bytes.SplitAfter(stderr, []byte("\n")) {
		text, ok := strings.CutPrefix(strings.TrimSpace(string(line)), windowMark)
		if !ok {
			rest = append(rest, line)
			continue
		}
		start, stop, _ := strings.Cut(text, " ")
		var err1, err2 error
		w.Start, err1 = epoch(start)
		w.Stop, err2 = epoch(stop)
		if err1 != nil || err2 != nil {
			return w, stderr, fmt.Errorf("the generator's start and stop times %q do not read as seconds.nanoseconds", text)
		}
		found = true
	}
	if !found {
		return w, stderr, fmt.Errorf("the generator did not say when its run started and stopped (no %q line)", strings.TrimSpace(windowMark))
	}
	return w, bytes.Join(rest, nil), nil
}

// epoch reads date's %s.%N: seconds and nanoseconds since the epoch.
func epoch(s string) (time.Time, error) {
	sec, nsec, ok := strings.Cut(s, ".")
	if !ok || len(nsec) != 9 {
		return time.Time{}, fmt.Errorf("%q: want seconds.nanoseconds", s)
	}
	a, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	b, err := strconv.ParseInt(nsec, 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	return time.Unix(a, b), nil
}
