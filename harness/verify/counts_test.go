package verify

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
)

// TestProbesAreFollowUps: Probes counts the requests verification sends
// as FollowUp sends them (plus the first), and the selects they ask for
// as each one's queries parameter clamps: a change to FollowUp's requests
// that Probes missed would hold an honest server to a wrong count.
func TestProbesAreFollowUps(t *testing.T) {
	for test, wantAsked := range map[string]int64{
		matrix.TFBDB: 2, matrix.TFBFortunes: 2,
		matrix.TFBQueries: 20 + 2 + 1 + 1 + 500 + 1 + 20, matrix.TFBUpdates: 545,
	} {
		_, asked := followUp(t, tfbServer{}, test)
		sc := tfbScenarios[test]
		c := matrix.Cell{Key: cellid.Key{Params: []matrix.KV{{Name: "queries", Value: "20"}}}}
		uris := append([]string{c.Subst(sc.Path)}, asked...) // the first answer, then FollowUp's
		var sum int64
		for _, uri := range uris {
			u, err := url.Parse(uri)
			if err != nil {
				t.Fatal(err)
			}
			sum += int64(PerRequest(test, u.Query().Get("queries")))
		}
		requests, got := Probes(*sc.Expect.TFB, c.Subst)
		if requests != int64(len(uris)) || got != sum || got != wantAsked {
			t.Errorf("%s: Probes = %d requests asking %d selects; FollowUp and the first answer asked %d requests for %d (want %d)",
				test, requests, got, len(uris), sum, wantAsked)
		}
	}
}

// TestCheckServed: honest counts pass; the cheats each break the rule
// their cheat breaks, named with the counts; a batched update that writes
// a row drawn twice once passes within WriteMargin; a tolerance lets a
// small shortfall pass that verification's exact count fails.
func TestCheckServed(t *testing.T) {
	for _, tc := range []struct {
		name string
		test string
		n    results.DBCount
		tol  float64
		want []Rule
		text string // in the first problem
	}{
		{"db honest", matrix.TFBDB, results.DBCount{Requests: 2, Asked: 2, Selects: 2, RowsRead: 2}, 0, nil, ""},
		{"db from memory", matrix.TFBDB, results.DBCount{Requests: 2, Asked: 2}, 0, []Rule{RuleSelects, RuleRowsRead},
			"db: the database served 0 selects of World for 2 requests that asked for 2: TFB requires one select for each request"},
		{"queries honest", matrix.TFBQueries, results.DBCount{Requests: 7, Asked: 545, Selects: 545, RowsRead: 545}, 0, nil, ""},
		{"queries more than asked", matrix.TFBQueries, results.DBCount{Requests: 7, Asked: 545, Selects: 560, RowsRead: 560}, 0, nil, ""},
		{"queries IN select", matrix.TFBQueries, results.DBCount{Requests: 7, Asked: 545, Selects: 7, RowsRead: 545}, 0, []Rule{RuleSelects},
			"queries: the database served 7 selects of World for 7 requests that asked for 545: TFB requires one select of one row for each row asked (a select of many rows in one statement, IN or ANY, counts once)"},
		{"queries cached", matrix.TFBQueries, results.DBCount{Requests: 7, Asked: 545}, 0, []Rule{RuleSelects, RuleRowsRead}, "served 0 selects"},
		{"updates honest", matrix.TFBUpdates, results.DBCount{Requests: 7, Asked: 545, Selects: 545, RowsRead: 545, Updates: 545, RowsWritten: 545}, 0, nil, ""},
		{"updates batched, ids drawn twice", matrix.TFBUpdates, results.DBCount{Requests: 7, Asked: 545, Selects: 545, RowsRead: 545, Updates: 7, RowsWritten: 530}, 0, nil, ""},
		{"updates unwritten", matrix.TFBUpdates, results.DBCount{Requests: 7, Asked: 545, Selects: 545, RowsRead: 545}, 0, []Rule{RuleRowsWritten},
			"updates: the database wrote 0 rows of World for 7 requests that asked for 545 (less 5%)"},
		{"fortunes honest", matrix.TFBFortunes, results.DBCount{Requests: 2, Asked: 2, Selects: 2, RowsRead: 24}, 0, nil, ""},
		{"fortunes cached", matrix.TFBFortunes, results.DBCount{Requests: 2, Asked: 2, Selects: 1, RowsRead: 12}, 0, []Rule{RuleSelects, RuleRowsRead},
			"fortunes: the database served 1 selects of Fortune for 2 requests"},
		{"short by 0.5%, exactly", matrix.TFBQueries, results.DBCount{Requests: 1000, Asked: 20000, Selects: 19900, RowsRead: 19900}, 0, []Rule{RuleSelects, RuleRowsRead}, ""},
		{"short by 0.5%, under load", matrix.TFBQueries, results.DBCount{Requests: 1000, Asked: 20000, Selects: 19900, RowsRead: 19900}, LoadTolerance, nil, ""},
		{"short by 2%, under load", matrix.TFBQueries, results.DBCount{Requests: 1000, Asked: 20000, Selects: 19600, RowsRead: 19600}, LoadTolerance,
			[]Rule{RuleSelects, RuleRowsRead}, "asked for 20000 (less 1%)"},
	} {
		got := CheckServed(tc.test, tc.n, tc.tol)
		if !slices.Equal(rules(got), tc.want) {
			t.Errorf("%s: broke %v, want %v: %v", tc.name, rules(got), tc.want, got)
			continue
		}
		if tc.text != "" && !strings.Contains(got[0].Detail, tc.text) {
			t.Errorf("%s: %q, want %q in it", tc.name, got[0].Detail, tc.text)
		}
	}
}
