package verify

import (
	"math"
	"strconv"

	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
)

// An answer in the right shape can come from memory, or from one select of
// many rows; only the database can tell. TFB's verifier counts, in
// PostgreSQL's pg_stat_statements, the calls and rows of the statements
// that name the test's table while it sends its requests, and holds them to
// what the requests asked. These are those rules, counted by calls, not
// rows: a select of N rows in one statement (IN, ANY) is one select where
// the queries and updates tests ask for N.
const (
	RuleSelects     Rule = "selects"      // fewer selects of the test's table than asked: 1 a request, N for queries and updates
	RuleRowsRead    Rule = "rows-read"    // fewer rows read than those selects return: 1 of World each, Fortune's 12
	RuleRowsWritten Rule = "rows-written" // updates: fewer rows of World written than the N a request asked, beyond WriteMargin
)

// FortuneRows is the rows of TFB's Fortune table, which each select of a
// fortunes request reads.
const FortuneRows = 12

// WriteMargin is the share of the rows asked that an updates server may
// leave unwritten: TFB allows the rows of a request written in one
// statement, which writes a row drawn twice in that request once. N
// random ids of 10,000 repeat about N²/20,000 of them, 2.5% of 500 at
// most; TFB allows such a statement the same 5%.
const WriteMargin = 0.05

// LoadTolerance is the share by which what a trial's answered requests
// cost may fall short of the rules before the cell is warned. The counts
// are exact for what the harness can exclude: its own psql sessions are
// not counted (pg_stat_statements.track is none for them) and read only
// between trials, and autovacuum runs no statement that
// pg_stat_statements counts. What they cannot exclude: pg_stat_statements
// drops the counts of its least-used statements when more than
// pg_stat_statements.max distinct ones ran, and a server may answer a
// request as good (2xx) without asking the database. 1% is TFB's own
// margin on the rows it counts.
const LoadTolerance = 0.01

// Table is the table test reads: Fortune for fortunes, World for the
// others.
func Table(test string) string {
	if test == matrix.TFBFortunes {
		return "Fortune"
	}
	return "World"
}

// PerRequest is the selects one request of test must make when asked with
// the queries parameter q: q clamped for queries and updates, 1 for db and
// fortunes.
func PerRequest(test, q string) int {
	if test == matrix.TFBQueries || test == matrix.TFBUpdates {
		return Clamp(q)
	}
	return 1
}

// Probes are the requests the verification of t sends, the first answer
// and FollowUp's, and the selects they ask for in all (FollowUp.Check's
// requests: QueryCases, then the cell's URL again). subst resolves
// t.Queries as the cell's params give it.
func Probes(t matrix.TFB, subst func(string) string) (requests, asked int64) {
	per := int64(PerRequest(t.Test, subst(t.Queries)))
	requests, asked = 2, 2*per // the first answer and the one DateGap later
	if t.Test == matrix.TFBQueries || t.Test == matrix.TFBUpdates {
		for _, q := range QueryCases {
			requests++
			asked += int64(Clamp(q))
		}
	}
	return requests, asked
}

// CheckServed holds s, what the database served answered requests of
// test, to TFB's rules: s.Asked selects of the test's table, each reading
// its rows, and for updates s.Asked rows of World written (WriteMargin
// less). Each count may fall short by the share tolerance: 0 where every
// request is known (verification), LoadTolerance under load.
func CheckServed(test string, s results.DBCount, tolerance float64) []Problem {
	table := Table(test)
	rowsPer := int64(1)
	if test == matrix.TFBFortunes {
		rowsPer = FortuneRows
	}
	within := ""
	if tolerance > 0 {
		within = " (less " + percent(tolerance) + ")"
	}
	var out []Problem
	if short(s.Selects, s.Asked, tolerance) {
		out = append(out, problem(RuleSelects, "%s: the database served %d selects of %s for %d requests that asked for %d%s: %s",
			test, s.Selects, table, s.Requests, s.Asked, within, selectsRule(test)))
	}
	if short(s.RowsRead, rowsPer*s.Asked, tolerance) {
		out = append(out, problem(RuleRowsRead, "%s: the database read %d rows of %s for %d requests, want %d%s: TFB requires each select to read %s",
			test, s.RowsRead, table, s.Requests, rowsPer*s.Asked, within, rowsRule(test)))
	}
	if test == matrix.TFBUpdates && short(s.RowsWritten, s.Asked, tolerance+WriteMargin) {
		out = append(out, problem(RuleRowsWritten, "updates: the database wrote %d rows of World for %d requests that asked for %d (less %s): TFB requires every row answered written, one statement a row or one a request",
			s.RowsWritten, s.Requests, s.Asked, percent(tolerance+WriteMargin)))
	}
	return out
}

// short says whether got falls short of want by more than the share
// tolerance.
func short(got, want int64, tolerance float64) bool {
	return float64(got) < float64(want)*(1-tolerance)
}

// percent is the share x as a percentage, to a hundredth: "6%".
func percent(x float64) string {
	return strconv.FormatFloat(math.Round(x*1e4)/100, 'f', -1, 64) + "%"
}

func selectsRule(test string) string {
	switch test {
	case matrix.TFBQueries, matrix.TFBUpdates:
		return "TFB requires one select of one row for each row asked (a select of many rows in one statement, IN or ANY, counts once)"
	case matrix.TFBFortunes:
		return "TFB requires Fortune selected for each request, not cached"
	}
	return "TFB requires one select for each request, not an answer from memory"
}

func rowsRule(test string) string {
	if test == matrix.TFBFortunes {
		return "the table's 12 rows"
	}
	return "the one row it answers"
}
