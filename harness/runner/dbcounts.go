package runner

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/verify"
)

// What the answers of a TFB database cell cost the database is counted by
// the database, as TFB's verifier counts it: pg_stat_statements, which the
// db service loads (targets/database/postgres), is read before and after
// the cell's verification and around each trial, and the two reads
// subtracted, so nothing needs resetting and nothing between the reads
// (the harness's World reads, the warm-up) is counted. The harness's own
// psql sessions are not counted at all (psqlScript). Verification's
// requests are known one by one, so their cost is held to TFB's rules
// exactly and a shortfall fails the cell; a trial's, per answered request
// within verify.LoadTolerance, and a shortfall is a warning.

// statKey is a class of statements pg_stat_statements counted: the table
// their text names (world, fortune) and their kind (select, update).
type statKey struct{ table, kind string }

// stat is the calls of a class of statements and the rows they returned
// or wrote.
type stat struct{ calls, rows int64 }

// dbStats is one read of pg_stat_statements by class.
type dbStats map[statKey]stat

// statsReader reads pg_stat_statements as the database holds it.
type statsReader func(ctx context.Context) (dbStats, error)

// queryCounter counts what a TFB database cell's requests cost its
// database. A nil counter (a cell of no TFB database test) counts nothing.
type queryCounter struct {
	read    statsReader
	missing error // why there is nothing to read, when read is nil
	test    string
	per     int   // the selects one request of the cell asks for
	probes  int64 // the requests verification sends
	asked   int64 // the selects they ask for
	from    dbStats
}

// countQueries is the counter of cell c of scenario sc, nil for a
// scenario of no TFB test. A target without a db service has no database
// the harness can read: verified fails its cell for that, once the cell
// verified otherwise.
func (st *stage) countQueries(s stack, sc matrix.Scenario, c matrix.Cell) *queryCounter {
	t := sc.Expect.TFB
	if t == nil {
		return nil
	}
	q := &queryCounter{test: t.Test, per: verify.PerRequest(t.Test, c.Subst(t.Queries))}
	q.probes, q.asked = verify.Probes(*t, c.Subst)
	if _, m := s.service(dbService); m != nil { // its first replica
		q.read = psqlStats(st.target.eng.Containers, m)
	} else {
		q.missing = fmt.Errorf("%s: the target has no service named %q whose pg_stat_statements the harness can read, so what its answers cost the database cannot be counted as TFB counts it", t.Test, dbService)
	}
	return q
}

// verified runs check, the cell's verification, between two reads of the
// database's counts, records what its requests cost in rc and holds that
// to TFB's rules exactly: every one of those requests was answered, and
// nothing else asks the target meanwhile. check's failure comes first (a
// server that broke a rule an answer shows is failed by that rule), then a
// read's.
func (q *queryCounter) verified(ctx context.Context, rc *results.Cell, url string, check func() error) error {
	if q == nil {
		return check()
	}
	before, berr := q.snapshot(ctx)
	if err := check(); err != nil {
		return err
	}
	if berr != nil {
		return berr
	}
	after, err := q.snapshot(ctx)
	if err != nil {
		return err
	}
	n, err := q.count(before, after, q.probes, q.asked)
	if err != nil {
		return fmt.Errorf("verify %s: %w", url, err)
	}
	counts := q.record(rc)
	counts.Verify = append(counts.Verify, n)
	if p := verify.CheckServed(q.test, n, 0); len(p) > 0 {
		return fmt.Errorf("verify %s: what the database served its %d requests: %s", url, q.probes, strings.Join(verify.Texts(p), "; "))
	}
	return nil
}

// start reads the counts the first trial's are taken from. A read that
// fails is a warning of rc's: the trials go on uncounted.
func (q *queryCounter) start(ctx context.Context, rc *results.Cell) {
	if q == nil {
		return
	}
	var err error
	if q.from, err = q.snapshot(ctx); err != nil {
		rc.Warnings = append(rc.Warnings, "the queries the trials cost were not counted: "+err.Error())
	}
}

// trial reads the counts after trial k, the last of rc's trials, records
// what its answered requests cost, and warns in rc when that falls short of
// TFB's rules by more than verify.LoadTolerance. A read that fails is a
// warning too: the measurement stands, uncounted.
func (q *queryCounter) trial(ctx context.Context, rc *results.Cell, k int) {
	if q == nil || q.from == nil {
		return
	}
	after, err := q.snapshot(ctx)
	if err != nil {
		q.from = nil
		rc.Warnings = append(rc.Warnings, fmt.Sprintf("trial %d: the queries it cost were not counted: %v", k, err))
		return
	}
	requests := rc.Trials[len(rc.Trials)-1].Requests
	n, err := q.count(q.from, after, requests, requests*int64(q.per))
	q.from = after
	if err != nil {
		rc.Warnings = append(rc.Warnings, fmt.Sprintf("trial %d: the queries it cost were not counted: %v", k, err))
		return
	}
	counts := q.record(rc)
	counts.Trials = append(counts.Trials, results.DBTrialCount{Trial: len(rc.Trials) - 1, DBCount: n})
	for _, p := range verify.CheckServed(q.test, n, verify.LoadTolerance) {
		rc.Warnings = append(rc.Warnings, fmt.Sprintf("trial %d: %s", k, p))
	}
}

func (q *queryCounter) snapshot(ctx context.Context) (dbStats, error) {
	if q.read == nil {
		return nil, q.missing
	}
	return q.read(ctx)
}

// record is rc's record of the counts, made on first use.
func (q *queryCounter) record(rc *results.Cell) *results.DBCounts {
	if rc.DBCounts == nil {
		rc.DBCounts = &results.DBCounts{Method: results.DBCountsStatStatements, Table: verify.Table(q.test), PerRequest: q.per}
	}
	return rc.DBCounts
}

// count is what requests, which asked for asked selects, cost the
// database between two reads of its counts. Counts that went down
// between them (pg_stat_statements was reset, or dropped a statement's
// counts for want of room) count nothing.
func (q *queryCounter) count(before, after dbStats, requests, asked int64) (results.DBCount, error) {
	table := strings.ToLower(verify.Table(q.test))
	var d [2]stat
	for i, kind := range []string{"select", "update"} {
		k := statKey{table, kind}
		d[i] = stat{after[k].calls - before[k].calls, after[k].rows - before[k].rows}
		if d[i].calls < 0 || d[i].rows < 0 {
			return results.DBCount{}, fmt.Errorf("the database's counts of the %s statements of %s went down between two reads (pg_stat_statements was reset, or dropped their counts for want of room)", kind, verify.Table(q.test))
		}
	}
	n := results.DBCount{Requests: requests, Asked: asked, Selects: d[0].calls, RowsRead: d[0].rows, Updates: d[1].calls, RowsWritten: d[1].rows}
	if requests > 0 {
		r := float64(requests)
		n.SelectsPerRequest = roundTo(float64(n.Selects)/r, 3)
		n.RowsReadPerRequest = roundTo(float64(n.RowsRead)/r, 3)
		n.RowsWrittenPerRequest = roundTo(float64(n.RowsWritten)/r, 3)
	}
	return n, nil
}

// statsQuery sums pg_stat_statements' calls and rows over the statements
// run in the server's database, by the table their text names (World or
// Fortune, as a word, in any case: pg_stat_statements keeps the text a
// server sent, its constants as $n) and their kind: update when the text
// has the word UPDATE, else select when it has SELECT. One
// "table<TAB>kind<TAB>calls<TAB>rows" line a class that ran.
const statsQuery = `COPY (SELECT t, k, sum(calls), sum(rows) FROM (SELECT calls, rows,
  CASE WHEN query ~* '\mworld\M' THEN 'world' WHEN query ~* '\mfortune\M' THEN 'fortune' END AS t,
  CASE WHEN query ~* '\mupdate\M' THEN 'update' WHEN query ~* '\mselect\M' THEN 'select' END AS k
  FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())) s
 WHERE t IS NOT NULL AND k IS NOT NULL GROUP BY t, k) TO STDOUT`

// psqlStats reads pg_stat_statements with psql inside the database's own
// container, as psqlWorld reads World.
func psqlStats(c Containers, db *member) statsReader {
	return func(ctx context.Context) (dbStats, error) {
		out, err := runPsql(ctx, c, db, statsQuery)
		var s dbStats
		if err == nil {
			s, err = parseStats(out)
		}
		if err != nil {
			return nil, fmt.Errorf("counting queries: reading pg_stat_statements from service %s: %w", db.alias, err)
		}
		return s, nil
	}
}

// maxStatLines bounds the lines parseStats takes: statsQuery prints at
// most four.
const maxStatLines = 100

// parseStats reads statsQuery's output.
func parseStats(out []byte) (dbStats, error) {
	s := dbStats{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for n := 1; sc.Scan(); n++ {
		f := strings.Split(sc.Text(), "\t")
		if n > maxStatLines || len(f) != 4 {
			return nil, fmt.Errorf("line %d of psql's output is %.80q, not a table, a kind, calls and rows", n, sc.Text())
		}
		calls, err1 := strconv.ParseInt(f[2], 10, 64)
		rows, err2 := strconv.ParseInt(f[3], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("line %d of psql's output is %.80q: calls and rows are not integers", n, sc.Text())
		}
		s[statKey{f[0], f[1]}] = stat{calls, rows}
	}
	return s, sc.Err()
}
