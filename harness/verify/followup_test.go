package verify

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/matrix"
)

// tfbScenarios are the four database scenarios as matrix.yaml declares
// them, the queries ones at 20.
var tfbScenarios = map[string]matrix.Scenario{
	matrix.TFBDB:       {Name: "db", Path: "/db", Expect: matrix.Expect{Status: 200, TFB: &matrix.TFB{Test: matrix.TFBDB}}},
	matrix.TFBQueries:  {Name: "queries", Path: "/queries?queries={queries}", Expect: matrix.Expect{Status: 200, TFB: &matrix.TFB{Test: matrix.TFBQueries, Queries: "{queries}"}}},
	matrix.TFBUpdates:  {Name: "updates", Path: "/updates?queries={queries}", Expect: matrix.Expect{Status: 200, TFB: &matrix.TFB{Test: matrix.TFBUpdates, Queries: "{queries}"}}},
	matrix.TFBFortunes: {Name: "fortunes", Path: "/fortunes", Expect: matrix.Expect{Status: 200, TFB: &matrix.TFB{Test: matrix.TFBFortunes}}},
}

// recorder asks a server over HTTP and records the request URIs it asked
// for; its wait moves the server's clock instead of sleeping.
type recorder struct {
	mu    sync.Mutex
	asked []string
	clock *time.Time
	waits int
}

func (rec *recorder) get(ctx context.Context, url string) (Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Response{}, err
	}
	rec.mu.Lock()
	rec.asked = append(rec.asked, req.URL.RequestURI())
	rec.mu.Unlock()
	return fetch(req), nil
}

func (rec *recorder) wait(_ context.Context, d time.Duration) error {
	rec.waits++
	*rec.clock = rec.clock.Add(max(d, 0))
	return nil
}

// followUp asks srv test's first answer (at queries=20 for queries and
// updates) and then FollowUp's, returning FollowUp's problems and the
// URIs asked after the first.
func followUp(t *testing.T, srv tfbServer, test string) ([]Problem, []string) {
	t.Helper()
	clock := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	if srv.clock == nil {
		srv.clock = &clock
	}
	ts := httptest.NewServer(srv.handler())
	defer ts.Close()
	sc := tfbScenarios[test]
	c := matrix.Cell{Key: cellid.Key{Scenario: sc.Name}}
	if strings.Contains(sc.Path, "{queries}") {
		c.Params = []matrix.KV{{Name: "queries", Value: "20"}}
	}
	url := ts.URL + c.Subst(sc.Path)
	rec := &recorder{clock: srv.clock}
	first, _ := rec.get(context.Background(), url)
	if problems, _ := Check(sc.Expect, first, c.Subst); problems != nil {
		t.Fatalf("%s: the first answer broke %q: FollowUp is asked only after a first answer that breaks nothing", test, problems)
	}
	rec.asked = nil
	problems, err := FollowUp{Get: rec.get, Wait: rec.wait}.Check(context.Background(), sc, c, url, first)
	if err != nil {
		t.Fatal(err)
	}
	if rec.waits == 0 {
		t.Errorf("%s: FollowUp asked again without waiting", test)
	}
	return problems, rec.asked
}

// TestFollowUpAsks: FollowUp asks queries and updates at TFB's five
// values of the queries parameter (2, 0, foo, 501, empty), then the
// first URL again; db and fortunes, only the first URL again.
func TestFollowUpAsks(t *testing.T) {
	for test, want := range map[string][]string{
		matrix.TFBQueries:  {"/queries?queries=2", "/queries?queries=0", "/queries?queries=foo", "/queries?queries=501", "/queries?queries=", "/queries?queries=20"},
		matrix.TFBUpdates:  {"/updates?queries=2", "/updates?queries=0", "/updates?queries=foo", "/updates?queries=501", "/updates?queries=", "/updates?queries=20"},
		matrix.TFBDB:       {"/db"},
		matrix.TFBFortunes: {"/fortunes"},
	} {
		problems, asked := followUp(t, tfbServer{}, test)
		if problems != nil {
			t.Errorf("%s: a right server broke %v", test, problems)
		}
		if !slices.Equal(asked, want) {
			t.Errorf("%s: asked %q, want %q", test, asked, want)
		}
	}
}

// TestFollowUpRules: each faulty server breaks, at the queries values
// where its fault shows, the rule its fault breaks, and each problem names
// the value.
func TestFollowUpRules(t *testing.T) {
	for _, tc := range []struct {
		name  string
		srv   tfbServer
		tests []string
		want  []Rule
		where []string // in the problems' details, in order
	}{
		{"no clamp", tfbServer{noClamp: true}, []string{matrix.TFBQueries, matrix.TFBUpdates},
			[]Rule{RuleCount, RuleCount}, []string{"queries=0: 0 rows, want 1", "queries=501: 501 rows, want 500"}},
		{"no fallback for a non-number", tfbServer{noFallback: true}, []string{matrix.TFBQueries, matrix.TFBUpdates},
			[]Rule{RuleStatus, RuleStatus}, []string{"queries=foo: status 500", "queries=: status 500"}},
		{"one row as an object", tfbServer{objectForOne: true}, []string{matrix.TFBQueries, matrix.TFBUpdates},
			[]Rule{RuleShape, RuleShape, RuleShape}, []string{"queries=0:", "queries=foo:", "queries=:"}},
		{"cached Date", tfbServer{cachedDate: true}, []string{matrix.TFBDB, matrix.TFBQueries, matrix.TFBUpdates, matrix.TFBFortunes},
			[]Rule{RuleDateCached}, []string{`the same Date "Wed, 01 May 2024 10:00:00 GMT" on two answers`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, test := range tc.tests {
				problems, _ := followUp(t, tc.srv, test)
				var got []Rule
				for _, p := range problems {
					got = append(got, p.Rule)
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("%s: broke %v, want %v: %v", test, got, tc.want, problems)
					continue
				}
				for i, w := range tc.where {
					if !strings.Contains(problems[i].Detail, w) {
						t.Errorf("%s: problem %d is %q, want %q in it", test, i, problems[i], w)
					}
				}
			}
		})
	}
}

// TestFollowUpFailures: a Getter's error is FollowUp's, with no problems;
// a second answer that is no answer breaks the status rule.
func TestFollowUpFailures(t *testing.T) {
	sc := tfbScenarios[matrix.TFBDB]
	first := Response{Status: 200, Header: http.Header{"Date": {"Wed, 01 May 2024 10:00:00 GMT"}}}
	noWait := func(context.Context, time.Duration) error { return nil }
	broken := errors.New("exec failed")
	problems, err := FollowUp{Get: func(context.Context, string) (Response, error) { return Response{}, broken }, Wait: noWait}.
		Check(context.Background(), sc, matrix.Cell{}, "http://x/db", first)
	if !errors.Is(err, broken) || problems != nil {
		t.Errorf("Check with a failing Get = %v, %v; want no problems and its error", problems, err)
	}
	problems, err = FollowUp{Get: func(context.Context, string) (Response, error) { return Response{Error: "connection refused"}, nil }, Wait: noWait}.
		Check(context.Background(), sc, matrix.Cell{}, "http://x/db", first)
	if err != nil || !slices.Equal(rules(problems), []Rule{RuleStatus}) || !strings.Contains(problems[0].Detail, "connection refused") {
		t.Errorf("Check with no second answer = %v, %v; want the status rule saying why", problems, err)
	}
}

// TestFollowUpRealDate: a server whose Date is net/http's, asked again on
// the real clock, sends another Date.
func TestFollowUpRealDate(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server", "x")
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":1,"randomNumber":1}`))
	}))
	defer ts.Close()
	get := func(ctx context.Context, url string) (Response, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		return fetch(req), nil
	}
	first, _ := get(context.Background(), ts.URL+"/db")
	problems, err := FollowUp{Get: get}.Check(context.Background(), tfbScenarios[matrix.TFBDB], matrix.Cell{}, ts.URL+"/db", first)
	if err != nil || problems != nil {
		t.Errorf("Check = %v, %v; want no problem", problems, err)
	}
}

// TestCaseURL: the queries value replaces the param the scenario's TFB
// names, in the path or in its query, escaped; with no param to replace,
// the URL's queries parameter is set.
func TestCaseURL(t *testing.T) {
	for _, tc := range []struct {
		path, queries, q, want string
		params                 []matrix.KV
	}{
		{"/queries?queries={queries}", "{queries}", "foo", "http://h/queries?queries=foo", []matrix.KV{{Name: "queries", Value: "20"}}},
		{"/queries?queries={queries}", "{queries}", "", "http://h/queries?queries=", []matrix.KV{{Name: "queries", Value: "20"}}},
		{"/q/{n}/rows", "{n}", "501", "http://h/q/501/rows", []matrix.KV{{Name: "n", Value: "20"}}},
		{"/q?n={n}&x={x}", "{n}", "a b", "http://h/q?n=a+b&x=1", []matrix.KV{{Name: "n", Value: "20"}, {Name: "x", Value: "1"}}},
		{"/queries?queries=20", "20", "0", "http://h/queries?queries=0", nil},
		{"/queries", "5", "foo", "http://h/queries?queries=foo", nil},
	} {
		sc := matrix.Scenario{Path: tc.path, Expect: matrix.Expect{TFB: &matrix.TFB{Test: matrix.TFBQueries, Queries: tc.queries}}}
		c := matrix.Cell{Key: cellid.Key{Params: tc.params}}
		if got := caseURL(sc, c, "http://h", tc.q); got != tc.want {
			t.Errorf("caseURL(%s, queries %q) = %s, want %s", tc.path, tc.q, got, tc.want)
		}
		if len(tc.params) > 0 && tc.params[0].Value != "20" {
			t.Errorf("caseURL changed the cell's params: %v", tc.params)
		}
	}
}

// fetch does req and returns the answer as verify reads it.
func fetch(req *http.Request) Response {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Response{Error: err.Error()}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return Response{Error: err.Error()}
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: body}
}
