package runner

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/verify"
)

// TFB's updates test must write what it answers, and no answer can show
// that it did: the database is asked. World is read whole from the
// target's db service before the trials and again after them, and the
// rows whose randomNumber differs are counted. That is exact and cheap:
// it reads what is committed (10,000 rows, some 100 KB, a fifth of a
// second), where PostgreSQL's n_tup_upd is neither — each server backend
// flushes its counters on its own schedule (up to seconds after its last
// transaction; pg_stat_force_next_flush speaks only for the session that
// calls it), and it counts updates that were rolled back. What it misses,
// an update that wrote the number the row already held, is one in 10,000.
// The db service runs the target's own image, which could print a World it
// made up: this catches a server that does not write, not a database that
// lies about it.

// dbService is the service of a database target whose database the
// harness reads: targets/database names its PostgreSQL "db".
const dbService = "db"

// world is TFB's World table as one read saw it: randomNumber by id.
type world map[int64]int64

// worldReader reads World as the database holds it.
type worldReader func(ctx context.Context) (world, error)

// writeWatch counts the rows of World that a visit's trials changed.
type writeWatch struct {
	read   worldReader
	before world
	from   int // the visit's first trial in the cell's trials
}

// watchWrites is, for a cell of TFB's updates test, World as the db
// service holds it before the trials; nil for any other cell.
func (st *stage) watchWrites(ctx context.Context, s stack, sc matrix.Scenario, rc *results.Cell) (*writeWatch, error) {
	if sc.Expect.TFB == nil || sc.Expect.TFB.Test != matrix.TFBUpdates {
		return nil, nil
	}
	if _, m := s.service(dbService); m != nil { // its first replica
		return startWatch(ctx, psqlWorld(st.target.eng.Containers, m), len(rc.Trials))
	}
	return nil, fmt.Errorf("updates: the target has no service named %q whose database the harness can read, so whether its updates were written cannot be checked", dbService)
}

// startWatch reads World before the visit's trials, the first of which
// will be trial index from of the cell.
func startWatch(ctx context.Context, read worldReader, from int) (*writeWatch, error) {
	before, err := read(ctx)
	if err != nil {
		return nil, err
	}
	return &writeWatch{read: read, before: before, from: from}, nil
}

// check reads World after the trials, adds what they answered and what the
// database shows changed to rc's record, and fails by TFB's written rule
// when they answered updates and no row changed. A nil watch checks
// nothing.
func (w *writeWatch) check(ctx context.Context, rc *results.Cell) error {
	if w == nil {
		return nil
	}
	after, err := w.read(ctx)
	if err != nil {
		return err
	}
	var answered int64
	for _, t := range rc.Trials[w.from:] {
		answered += t.Requests
	}
	changed := changedRows(w.before, after)
	if rc.Writes == nil {
		rc.Writes = &results.Writes{Method: results.WritesWorldDiff}
	}
	rc.Writes.Answered += answered
	rc.Writes.RowsChanged += changed
	if p := verify.CheckWritten(answered, changed); len(p) > 0 {
		return fmt.Errorf("%s", p[0])
	}
	return nil
}

// changedRows counts the ids whose randomNumber differs between two reads
// of World, an id in only one of them included.
func changedRows(before, after world) int64 {
	var n int64
	for id, v := range after {
		if old, ok := before[id]; !ok || old != v {
			n++
		}
	}
	for id := range before {
		if _, ok := after[id]; !ok {
			n++
		}
	}
	return n
}

// worldReadTimeout bounds one psql read: of World, a fifth of a second on
// an idle machine, or of pg_stat_statements (dbcounts.go): a db service that never answers (or answers forever) must
// not hold the run. The engine's cap on an exec's output bounds the rest.
// A variable so that a test need not wait it out.
var worldReadTimeout = time.Minute

// worldQuery reads World whole, one "id<TAB>randomnumber" line a row.
const worldQuery = "COPY (SELECT id, randomnumber FROM world) TO STDOUT"

// psqlWorld reads World with psql inside the database's own container
// (runPsql).
func psqlWorld(c Containers, db *member) worldReader {
	return func(ctx context.Context) (world, error) {
		out, err := runPsql(ctx, c, db, worldQuery)
		var w world
		if err == nil {
			w, err = parseWorld(out)
		}
		if err != nil {
			return nil, fmt.Errorf("updates: reading World from service %s to count the rows written: %w", db.alias, err)
		}
		return w, nil
	}
}

// psqlScript runs the query $1 with psql on the database's Unix socket, as
// the user and database the container was made with: the official
// postgres image's POSTGRES_USER and POSTGRES_DB, which are TFB's
// credentials in targets/database/postgres. PORT is where the harness told
// it to listen. The session's pg_stat_statements.track is none, so that
// what the harness reads is never counted as what a server asked
// (dbcounts.go); the setting is the superuser's, which POSTGRES_USER is,
// and a database without pg_stat_statements takes it as a placeholder.
const psqlScript = `PGOPTIONS='-c pg_stat_statements.track=none' PGPASSWORD="$POSTGRES_PASSWORD" ` +
	`exec psql -X -q -v ON_ERROR_STOP=1 -p "${PORT:-5432}" ` +
	`-U "${POSTGRES_USER:-postgres}" -d "${POSTGRES_DB:-${POSTGRES_USER:-postgres}}" -c "$1"`

// runPsql runs query with psqlScript in container db and returns what it
// printed, within worldReadTimeout.
func runPsql(ctx context.Context, c Containers, db *member, query string) ([]byte, error) {
	rctx, cancel := context.WithTimeout(ctx, worldReadTimeout)
	defer cancel()
	res, err := c.Exec(rctx, db.id, []string{"sh", "-c", psqlScript, "sh", query})
	var full *engine.ExecLimitError
	switch {
	case errors.As(err, &full):
		return nil, fmt.Errorf("psql printed more than %d MiB, where World's %d rows, the most the harness reads, take some 100 KB", full.Limit>>20, verify.WorldRows)
	case err != nil && ctx.Err() == nil && rctx.Err() != nil:
		return nil, fmt.Errorf("psql did not finish within %s, where a read takes a fraction of a second", worldReadTimeout)
	case err != nil:
		return nil, err
	case res.ExitCode != 0:
		return nil, fmt.Errorf("psql exited %d: %s", res.ExitCode, strings.TrimSpace(string(res.Stderr)))
	}
	return res.Stdout, nil
}

// maxWorldRows bounds the rows parseWorld takes: room for a World larger
// than TFB's, and a bound on the map a db service's answer makes.
const maxWorldRows = 10 * verify.WorldRows

// parseWorld reads worldQuery's output.
func parseWorld(out []byte) (world, error) {
	w := world{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for n := 1; sc.Scan(); n++ {
		if n > maxWorldRows {
			return nil, fmt.Errorf("psql printed more than %d rows of World, whose TFB table has %d", maxWorldRows, verify.WorldRows)
		}
		id, v, ok := strings.Cut(sc.Text(), "\t")
		i, err1 := strconv.ParseInt(id, 10, 64)
		r, err2 := strconv.ParseInt(v, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("line %d of psql's output is %.80q, not an id and a randomnumber", n, sc.Text())
		}
		w[i] = r
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(w) == 0 {
		return nil, fmt.Errorf("World is empty")
	}
	return w, nil
}
