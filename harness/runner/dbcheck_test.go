package runner

import (
	"context"
	"errors"
	"strings"
	"testing"

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
