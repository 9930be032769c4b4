package runner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
)

// statReads is a statsReader that returns each of its reads in turn.
func statReads(rs ...dbStats) statsReader {
	return func(context.Context) (dbStats, error) {
		if len(rs) == 0 {
			return nil, errors.New("read once too often")
		}
		r := rs[0]
		rs = rs[1:]
		return r, nil
	}
}

// worldSelects is a read of pg_stat_statements in which World's selects
// were called n times, a row each, and its updates u times, a row each.
func worldSelects(n, u int64) dbStats {
	return dbStats{{"world", "select"}: {n, n}, {"world", "update"}: {u, u}, {"fortune", "select"}: {3, 36}}
}

// queriesCounter counts a queries cell at queries=20, whose verification
// sends 7 requests asking 545 selects.
func queriesCounter(read statsReader) *queryCounter {
	sc := matrix.Scenario{Name: "queries", Path: "/queries?queries={queries}",
		Expect: matrix.Expect{Status: 200, TFB: &matrix.TFB{Test: matrix.TFBQueries, Queries: "{queries}"}}}
	c := matrix.Cell{Key: cellid.Key{Scenario: "queries", Params: []matrix.KV{{Name: "queries", Value: "20"}}}}
	q := (&stage{}).countQueries(nil, sc, c)
	q.read, q.missing = read, nil
	return q
}

// TestCountVerification: verification's requests are held to their
// selects exactly, between the reads before and after it: an honest
// server's pass and are recorded; one select a request fails by the
// selects rule with the counts; a verification that failed on its own is
// failed by that, and a target with no db service is failed for it only
// once it verified.
func TestCountVerification(t *testing.T) {
	ok := func() error { return nil }
	rc := &results.Cell{}
	q := queriesCounter(statReads(worldSelects(100, 0), worldSelects(645, 0)))
	if err := q.verified(context.Background(), rc, "http://x/queries?queries=20", ok); err != nil {
		t.Fatalf("545 selects for 545 asked: %v", err)
	}
	want := results.DBCount{Requests: 7, Asked: 545, Selects: 545, RowsRead: 545, SelectsPerRequest: 77.857, RowsReadPerRequest: 77.857}
	if n := rc.DBCounts; n == nil || n.Method != results.DBCountsStatStatements || n.Table != "World" || n.PerRequest != 20 || len(n.Verify) != 1 || n.Verify[0] != want {
		t.Fatalf("counts %+v, want the verification's %+v", rc.DBCounts, want)
	}

	q = queriesCounter(statReads(worldSelects(100, 0), worldSelects(107, 0)))
	err := q.verified(context.Background(), rc, "http://x/queries?queries=20", ok)
	if err == nil || !strings.Contains(err.Error(), "selects: queries: the database served 7 selects of World for 7 requests that asked for 545") {
		t.Errorf("one select a request: %v, want the selects rule with the counts", err)
	}

	broke := errors.New("verify: server: no Server header")
	q = queriesCounter(func(context.Context) (dbStats, error) { return nil, errors.New("psql exited 1") })
	if err := q.verified(context.Background(), rc, "u", func() error { return broke }); err != broke {
		t.Errorf("a verification that failed, the database unread: %v, want its own error", err)
	}
	sc := matrix.Scenario{Name: "db", Path: "/db", Expect: matrix.Expect{TFB: &matrix.TFB{Test: matrix.TFBDB}}}
	q = (&stage{}).countQueries(nil, sc, matrix.Cell{})
	if err := q.verified(context.Background(), rc, "u", func() error { return broke }); err != broke {
		t.Errorf("no db service, failed verification: %v, want its own error", err)
	}
	if err := q.verified(context.Background(), rc, "u", ok); err == nil || !strings.Contains(err.Error(), `no service named "db"`) {
		t.Errorf("no db service: %v, want that said", err)
	}
	var none *queryCounter // a cell of no TFB database test
	if err := none.verified(context.Background(), rc, "u", ok); err != nil {
		t.Errorf("nothing to count: %v", err)
	}
}

// TestCountTrials: each trial's requests are counted between the read
// after the one before (or after the start) and the read after it, per
// answered request, and a shortfall beyond verify.LoadTolerance is a
// warning naming the rule; counts that went down, and a read that fails,
// are warnings that the trial was not counted.
func TestCountTrials(t *testing.T) {
	rc := &results.Cell{}
	q := queriesCounter(statReads(worldSelects(0, 0), worldSelects(20000, 0), worldSelects(20000+10000, 0), worldSelects(5, 0)))
	q.start(context.Background(), rc)
	for k, requests := range []int64{1000, 1000, 10} {
		rc.Trials = append(rc.Trials, results.Trial{Result: results.Result{Requests: requests}})
		q.trial(context.Background(), rc, k+1)
	}
	rc.Trials = append(rc.Trials, results.Trial{Result: results.Result{Requests: 10}})
	q.trial(context.Background(), rc, 4) // the reads have run out

	n := rc.DBCounts
	if n == nil || len(n.Trials) != 2 {
		t.Fatalf("counts %+v, want the two trials counted", n)
	}
	first := results.DBTrialCount{Trial: 0, DBCount: results.DBCount{Requests: 1000, Asked: 20000, Selects: 20000, RowsRead: 20000, SelectsPerRequest: 20, RowsReadPerRequest: 20}}
	if n.Trials[0] != first || n.Trials[1].Trial != 1 || n.Trials[1].SelectsPerRequest != 10 {
		t.Errorf("trials %+v, want %+v and a second of 10 selects a request", n.Trials, first)
	}
	want := []string{
		"trial 2: selects: queries: the database served 10000 selects of World for 1000 requests that asked for 20000 (less 1%)",
		"trial 2: rows-read: ",
		"trial 3: the queries it cost were not counted: the database's counts of the select statements of World went down",
		"trial 4: the queries it cost were not counted: read once too often",
	}
	if len(rc.Warnings) != len(want) {
		t.Fatalf("warnings %q, want %d", rc.Warnings, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(rc.Warnings[i], w) {
			t.Errorf("warning %d is %q, want it to begin %q", i, rc.Warnings[i], w)
		}
	}

	rc = &results.Cell{Trials: []results.Trial{{}}}
	q = queriesCounter(statReads())
	q.start(context.Background(), rc)
	q.trial(context.Background(), rc, 1)
	if len(rc.Warnings) != 1 || !strings.Contains(rc.Warnings[0], "the queries the trials cost were not counted: read once too often") || rc.DBCounts != nil {
		t.Errorf("no read before the trials: warnings %q, counts %+v; want one warning and nothing counted", rc.Warnings, rc.DBCounts)
	}
}

// TestParseStats reads statsQuery's output, and refuses what is not a
// class's line, naming its line.
func TestParseStats(t *testing.T) {
	s, err := parseStats([]byte("world\tselect\t545\t545\nworld\tupdate\t20\t20\nfortune\tselect\t2\t24\n"))
	if err != nil || len(s) != 3 || s[statKey{"world", "select"}] != (stat{545, 545}) || s[statKey{"fortune", "select"}] != (stat{2, 24}) {
		t.Errorf("parseStats = %v, %v", s, err)
	}
	if s, err := parseStats(nil); err != nil || len(s) != 0 {
		t.Errorf("no statement ran yet: %v, %v; want no classes", s, err)
	}
	for in, want := range map[string]string{
		"world\tselect\t1\n":           "line 1",
		"world\tselect\t1\t1\nERROR\n": "line 2",
		"world\tselect\tx\t1\n":        "not integers",
	} {
		if _, err := parseStats([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseStats(%q) = %v, want an error naming %q", in, err, want)
		}
	}
}

// execRecorder is a db service's container that records the command it
// is asked to run and answers res.
type execRecorder struct {
	Containers
	cmd []string
	res engine.ExecResult
}

func (c *execRecorder) Exec(_ context.Context, _ string, cmd []string) (engine.ExecResult, error) {
	c.cmd = cmd
	return c.res, nil
}

// TestPsqlStats: pg_stat_statements is read in the db service's container
// by a psql session that pg_stat_statements does not count (the
// harness's reads are not what a server asked); a database that has not
// loaded it is an error naming the service and what psql said.
func TestPsqlStats(t *testing.T) {
	db := &member{alias: "db-1", id: "c1"}
	c := &execRecorder{res: engine.ExecResult{Stdout: []byte("world\tselect\t3\t3\n")}}
	s, err := psqlStats(c, db)(context.Background())
	if err != nil || s[statKey{"world", "select"}] != (stat{3, 3}) {
		t.Errorf("psqlStats = %v, %v", s, err)
	}
	if len(c.cmd) != 5 || !strings.HasPrefix(c.cmd[2], "PGOPTIONS='-c pg_stat_statements.track=none' ") || c.cmd[4] != statsQuery {
		t.Errorf("ran %q, want psql with pg_stat_statements.track none for its session, asked statsQuery", c.cmd)
	}
	c.res = engine.ExecResult{ExitCode: 1, Stderr: []byte("ERROR:  pg_stat_statements must be loaded via shared_preload_libraries\n")}
	_, err = psqlStats(c, db)(context.Background())
	if err == nil || !strings.Contains(err.Error(), "service db-1") || !strings.Contains(err.Error(), "psql exited 1: ERROR:  pg_stat_statements must be loaded") {
		t.Errorf("pg_stat_statements not loaded: %v, want the service and psql's error", err)
	}
}
