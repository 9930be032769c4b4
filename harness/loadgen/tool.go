package loadgen

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/cellid"
)

// Tool is one load-generating program, as the harness drives it: the
// command that asks it for a Spec's load, and the reading of what it
// printed into a Result. A second program is one more Tool; where it runs
// (a container, a pinned core, a deadline) is the caller's.
type Tool interface {
	// Name is the program's name, as results and messages show it.
	Name() string
	// Command is the program and its arguments for one run of s.
	Command(s Spec) []string
	// Parse reads the program's standard output of a run of s.
	Parse(stdout []byte, s Spec) (Result, error)
	// VersionFile is where the load generator image records the
	// program's version, read once per run.
	VersionFile() string
	// Unsupported says which setting of s the program cannot honour, ""
	// when it can: a cell it cannot measure as asked is skipped, naming it.
	Unsupported(s Spec) string
}

// Tools are the load generators the harness drives, by name.
var Tools = map[string]Tool{"bombardier": Bombardier{}, "wrk": Wrk{}, "h2load": H2load{}, "ab": Ab{}, "openloop": OpenLoop{}}

// AsksHTTP10 says whether t writes HTTP/1.0 request lines (ab does; the
// others write HTTP/1.1): the harness's probe must then ask the same way,
// since a server frames its answer by the request's version (no chunking
// under HTTP/1.0, another Connection header), and that answer's size is
// what the bytes t reads under load are held to.
func AsksHTTP10(t Tool) bool {
	h, ok := t.(interface{ AsksHTTP10() bool })
	return ok && h.AsksHTTP10()
}

// WarmUp is the tool and load that warm a target up for d, untimed and
// unjudged, before trials of s: s for d, by bombardier when tool runs only
// a request count (ab). h2load runs at least H2loadMinTimed: a shorter -D
// can end while clients are still connecting to a server that accepts
// slowly (a listen backlog of 5, SYNs retried after 1 s), and h2load then
// never exits.
func WarmUp(tool Tool, s Spec, d time.Duration) (Tool, Spec) {
	s.Duration, s.Requests = d, 0
	if tool.Unsupported(s) != "" {
		tool = Bombardier{}
	}
	if _, ok := tool.(H2load); ok {
		s.Duration = max(d, H2loadMinTimed)
	}
	return tool, s
}

// H2loadMinTimed is the shortest timed run (-D) the harness gives h2load:
// against a server with a listen backlog of 5 taking 60 ms per accept, -D 1
// never ended at 16, 64 or 128 connections while -D 3 ended on time at
// each (h2load 1.52; TestH2loadWarmUpSlowAccept).
const H2loadMinTimed = 3 * time.Second

// Default is the generator of a matrix that names none.
const Default = "bombardier"

func threads(s Spec) int { return max(s.Threads, 1) }

// depth is the requests s keeps in flight on each connection: 1 unless it
// pipelines.
func depth(s Spec) int { return max(s.Pipeline, 1) }

// unpipelined says that tool cannot pipeline when s asks it to, "" when s
// does not ask: it writes a request only once the last was answered.
func unpipelined(tool string, s Spec) string {
	if depth(s) == 1 {
		return ""
	}
	return fmt.Sprintf("%s cannot pipeline (scenario pipeline: %d): it sends a connection's next request only once the last is answered; wrk and h2load can", tool, depth(s))
}

// protocol is s's protocol, http1 for "".
func protocol(s Spec) string { return cellid.Proto(s.Protocol) }

// unspoken says that tool cannot measure s's protocol when it is not
// among speaks, "" when it can.
func unspoken(tool string, s Spec, speaks ...string) string {
	if slices.Contains(speaks, protocol(s)) {
		return ""
	}
	return fmt.Sprintf("%s does not speak %s here (it speaks %s)", tool, protocol(s), strings.Join(speaks, ", "))
}
