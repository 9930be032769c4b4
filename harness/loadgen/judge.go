package loadgen

import (
	"fmt"
	"math"

	"github.com/webbench/webbench/harness/numfmt"
	"github.com/webbench/webbench/harness/stats"
)

// Limits of what a trial may show before its number stops meaning what
// its column says.
const (
	// AnswerDrift is how far the bytes per response under load may stray
	// from the verified answer's before a warning says the answers changed.
	AnswerDrift = 0.10
	// LittleDrift is how far connections may stray from RPS × mean latency
	// (Little's law) before a warning says connections idled or the
	// generator stalled.
	LittleDrift = 0.25
)

// CouldNotSustain starts the warning of a trial below its fixed rate.
const CouldNotSustain = "could not sustain"

// Judge is what a trial is held to.
type Judge struct {
	Connections  int     // bombardier -c
	Pipeline     int     // requests in flight on each connection; 0 and 1: one
	MaxErrorRate float64 // above it the trial fails
	AnswerBytes  int64   // wire size of the verified answer; 0 skips the check
	Rate         int     // the fixed rate asked for; 0: none (Little's law is checked instead)
}

// ProblemKind is why a trial is no measurement, as a short stable code
// that results.json records beside the sentence (results.Why).
type ProblemKind string

// Problem kinds.
const (
	NoResponses ProblemKind = "no-responses"  // nothing answered, not even an error
	RateNotHeld ProblemKind = "rate-not-held" // a fixed rate the generator could not keep
	ErrorRate   ProblemKind = "error-rate"    // more requests failed than load.max_error_rate allows
)

// Problem is why a trial is no measurement: its kind and its sentence.
type Problem struct {
	Kind ProblemKind
	Text string
}

// Judge says whether the run is a measurement: problem is set when too many
// of its requests failed; warnings say what else makes its number doubtful.
func (r Result) Judge(j Judge) (problem string, warnings []string) {
	p, warnings := r.Verdict(j)
	return p.Text, warnings
}

// Verdict is Judge with the problem's kind: a zero Problem when the run
// is a measurement.
func (r Result) Verdict(j Judge) (Problem, []string) {
	var warnings []string
	if r.Requests == 0 && r.Errors == 0 {
		return Problem{NoResponses, fmt.Sprintf("no responses in %.1fs", r.Seconds)}, nil
	}
	if j.Rate > 0 {
		// At a fixed rate, first whether the rate was held: requests sent
		// and done, whatever their answer (the threshold is
		// stats.Sustained: the tables count such trials from the same
		// figures). A trial below it fails its cell: its latencies are not
		// at the rate the column names.
		if s := r.Sent(); !stats.Sustains(s.Requests+s.Errors, r.Seconds, j.Rate) {
			got := float64(s.Requests+s.Errors) / r.Seconds
			return Problem{RateNotHeld, fmt.Sprintf("%s %s/s (held %s/s)", CouldNotSustain, numfmt.Count(int64(j.Rate)), numfmt.Sig(got))}, nil
		}
	}
	if r.Errors > 0 {
		msg := fmt.Sprintf("%s of requests failed (%s)", numfmt.Percent(r.ErrorRate), r.ErrorSummary())
		if r.ErrorRate > j.MaxErrorRate {
			return Problem{ErrorRate, msg + fmt.Sprintf(", more than the %s allowed (load.max_error_rate)", numfmt.Percent(j.MaxErrorRate))}, nil
		}
		warnings = append(warnings, msg)
	}
	if n := r.Completed(); j.AnswerBytes > 0 && n > 0 {
		per := float64(r.BytesRead) / float64(n)
		if math.Abs(per-float64(j.AnswerBytes)) > AnswerDrift*float64(j.AnswerBytes) {
			warnings = append(warnings, fmt.Sprintf("answers changed under load: %s bytes a response, the verified answer had %d",
				numfmt.Sig(per), j.AnswerBytes))
		}
	}
	if j.Rate > 0 {
		// At a fixed rate connections idle by design: Little's law says
		// nothing.
		return Problem{}, warnings
	}
	if j.Connections > 0 && r.LatencyMS.Mean > 0 {
		// Pipelined, each connection keeps its depth of requests in flight
		// (and wrk times a batch of them once: its answers over a batch's
		// latency is the same figure).
		busy := float64(r.Requests+r.Errors) / r.Seconds * r.LatencyMS.Mean / 1000
		inFlight, what := j.Connections, fmt.Sprintf("%d connections", j.Connections)
		if j.Pipeline > 1 {
			inFlight, what = j.Connections*j.Pipeline, fmt.Sprintf("%d connections × %d pipelined", j.Connections, j.Pipeline)
		}
		if c := float64(inFlight); math.Abs(busy-c) > LittleDrift*c {
			warnings = append(warnings, fmt.Sprintf("Little's law: %s, but RPS × mean latency = %s (connections idle or the generator stalled)",
				what, numfmt.Sig(busy)))
		}
	}
	return Problem{}, warnings
}
