package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/verify"
)

// reads is a worldReader that returns each of its worlds in turn.
func reads(ws ...world) worldReader {
	return func(context.Context) (world, error) {
		if len(ws) == 0 {
			return nil, errors.New("read once too often")
		}
		w := ws[0]
		ws = ws[1:]
		return w, nil
	}
}

// TestWriteWatch: a visit whose trials answered updates and left World as
// it was fails by the written rule, naming what it answered; one that
// changed rows passes; both record what they answered and changed, summed
// over the visits of the cell, counting only each visit's own trials.
func TestWriteWatch(t *testing.T) {
	seeded := world{1: 10, 2: 20, 3: 30}
	rc := &results.Cell{Trials: []results.Trial{{Result: results.Result{Requests: 500}}}} // an earlier visit's
	w, err := startWatch(context.Background(), reads(seeded, world{1: 11, 2: 20, 3: 33}), len(rc.Trials))
	if err != nil {
		t.Fatal(err)
	}
	rc.Trials = append(rc.Trials, results.Trial{Result: results.Result{Requests: 700}})
	if err := w.check(context.Background(), rc); err != nil {
		t.Fatalf("rows changed: %v, want no error", err)
	}
	want := results.Writes{Method: results.WritesWorldDiff, Answered: 700, RowsChanged: 2}
	if rc.Writes == nil || *rc.Writes != want {
		t.Fatalf("writes %+v, want %+v", rc.Writes, want)
	}

	w, err = startWatch(context.Background(), reads(seeded, seeded), len(rc.Trials))
	if err != nil {
		t.Fatal(err)
	}
	rc.Trials = append(rc.Trials, results.Trial{Result: results.Result{Requests: 900}})
	err = w.check(context.Background(), rc)
	if err == nil || !strings.HasPrefix(err.Error(), string(verify.RuleWritten)+": updates: the server answered 900 update requests") {
		t.Fatalf("no row changed: %v, want the %s rule naming the 900 answered", err, verify.RuleWritten)
	}
	want = results.Writes{Method: results.WritesWorldDiff, Answered: 1600, RowsChanged: 2}
	if *rc.Writes != want {
		t.Errorf("writes %+v, want %+v", rc.Writes, want)
	}
	if err := (*writeWatch)(nil).check(context.Background(), rc); err != nil {
		t.Errorf("a cell of another test: %v, want nothing checked", err)
	}
}

func TestChangedRows(t *testing.T) {
	before := world{1: 10, 2: 20, 3: 30}
	for _, tc := range []struct {
		after world
		want  int64
	}{
		{world{1: 10, 2: 20, 3: 30}, 0},
		{world{1: 10, 2: 21, 3: 30}, 1},
		{world{1: 10, 2: 20}, 1},              // a row gone
		{world{1: 10, 2: 20, 3: 30, 4: 4}, 1}, // a row added
	} {
		if got := changedRows(before, tc.after); got != tc.want {
			t.Errorf("changedRows(%v, %v) = %d, want %d", before, tc.after, got, tc.want)
		}
	}
}

// TestParseWorld reads COPY's text output, and refuses what is not a row
// naming its line, or no row at all.
func TestParseWorld(t *testing.T) {
	w, err := parseWorld([]byte("1\t5423\n2\t17\n"))
	if err != nil || len(w) != 2 || w[1] != 5423 || w[2] != 17 {
		t.Errorf("parseWorld = %v, %v; want ids 1 and 2", w, err)
	}
	for in, want := range map[string]string{
		"1\t5423\nWARNING: x\n": "line 2",
		"1 5423\n":              "line 1",
		"":                      "World is empty",
	} {
		if _, err := parseWorld([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseWorld(%q) = %v, want an error naming %q", in, err, want)
		}
	}
}

// execOnly is a db service's container that only runs exec.
type execOnly struct {
	Containers
	exec func(ctx context.Context) (engine.ExecResult, error)
}

func (c execOnly) Exec(ctx context.Context, _ string, _ []string) (engine.ExecResult, error) {
	return c.exec(ctx)
}

// TestPsqlWorldBounded: a db service whose psql never ends or prints
// without end costs the run a bounded wait and an error that says which,
// not the harness's memory or a hang: the read has a deadline, and the
// engine's cap on an exec's output is named as psql's.
func TestPsqlWorldBounded(t *testing.T) {
	defer func(d time.Duration) { worldReadTimeout = d }(worldReadTimeout)
	worldReadTimeout = 10 * time.Millisecond
	db := &member{alias: "db-1", id: "c1"}
	hangs := execOnly{exec: func(ctx context.Context) (engine.ExecResult, error) {
		if _, ok := ctx.Deadline(); !ok {
			return engine.ExecResult{}, errors.New("no deadline: this read would wait for ever")
		}
		<-ctx.Done()
		return engine.ExecResult{}, ctx.Err()
	}}
	_, err := psqlWorld(hangs, db)(context.Background())
	if err == nil || !strings.Contains(err.Error(), "psql did not finish within 10ms") {
		t.Errorf("a psql that never ends: %v, want it named with the deadline", err)
	}
	floods := execOnly{exec: func(context.Context) (engine.ExecResult, error) {
		return engine.ExecResult{}, &engine.ExecLimitError{Cmd: "sh -c …", Limit: engine.MaxExecOutput}
	}}
	_, err = psqlWorld(floods, db)(context.Background())
	if err == nil || !strings.Contains(err.Error(), "db-1") || !strings.Contains(err.Error(), "psql printed more than 64 MiB") {
		t.Errorf("a psql that prints without end: %v, want the service and the limit named", err)
	}
}

// TestParseWorldRows: an answer of more rows than any World holds is
// refused before it fills a map.
func TestParseWorldRows(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= maxWorldRows+1; i++ {
		fmt.Fprintf(&b, "%d\t1\n", i)
	}
	if _, err := parseWorld([]byte(b.String())); err == nil || !strings.Contains(err.Error(), "more than 100000 rows") {
		t.Errorf("parseWorld of %d rows = %v, want them refused", maxWorldRows+1, err)
	}
}
