package verify

import (
	"cmp"
	"encoding/json"
	htmltemplate "html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	texttemplate "text/template"
	"time"

	"github.com/webbench/webbench/harness/matrix"
)

// tfbServer answers TFB's database tests from memory, right unless one of
// its faults is set: each fault breaks one rule the way real servers have.
type tfbServer struct {
	noClamp      bool // queries=0 → 0 rows, 501 → 501 rows
	noFallback   bool // queries=foo → 500
	objectForOne bool // one row as an object, not an array of one
	idOffset     int  // ids outside 1..10,000
	extraKey     bool
	unescaped    bool // fortunes through text/template
	noAdded      bool // no fortune added at request time
	unsorted     bool // fortunes in id order
	latin1       bool // fortunes declared and sent as ISO-8859-1
	noCharset    bool // text/html without charset
	jsonType     string
	noServer     bool
	noDate       bool       // net/http's Date suppressed
	badDate      bool       // a Date that is no HTTP date (RFC 3339)
	cachedDate   bool       // one Date for every answer
	clock        *time.Time // Date from this clock, which the test moves
}

// withHeaders sets the Server and Date headers of each answer of next, as
// s's faults say.
func (s tfbServer) withHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		if !s.noServer {
			h.Set("Server", "tfb-fixture")
		}
		switch {
		case s.noDate:
			h["Date"] = nil
		case s.badDate:
			h.Set("Date", "2024-05-01T10:00:00Z")
		case s.cachedDate:
			h.Set("Date", "Wed, 01 May 2024 10:00:00 GMT")
		case s.clock != nil:
			h.Set("Date", s.clock.Format(http.TimeFormat))
		}
		next.ServeHTTP(w, r)
	})
}

const fortunesTmpl = `<!DOCTYPE html>
<html>
<head><title>Fortunes</title></head>
<body>
<table>
  <tr><th>id</th><th>message</th></tr>
  {{range .}}<tr><td>{{.ID}}</td><td>{{.Message}}</td></tr>
  {{end}}
</table>
</body>
</html>`

type row struct {
	ID           int `json:"id"`
	RandomNumber int `json:"randomNumber"`
}

func (s tfbServer) handler() http.Handler {
	mux := http.NewServeMux()
	rows := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			r := row{ID: (i*7919)%WorldRows + 1 + s.idOffset, RandomNumber: (i*104729)%WorldRows + 1}
			out[i] = r
			if s.extraKey {
				out[i] = map[string]int{"id": r.ID, "randomNumber": r.RandomNumber, "version": 1}
			}
		}
		return out
	}
	count := func(w http.ResponseWriter, r *http.Request) (int, bool) {
		n, err := strconv.Atoi(r.URL.Query().Get("queries"))
		switch {
		case err != nil && s.noFallback:
			http.Error(w, "bad queries", http.StatusInternalServerError)
			return 0, false
		case err != nil:
			n = 1
		case !s.noClamp:
			n = min(max(n, 1), 500)
		}
		return n, true
	}
	list := func(w http.ResponseWriter, r *http.Request) {
		n, ok := count(w, r)
		if !ok {
			return
		}
		w.Header().Set("Content-Type", cmp.Or(s.jsonType, "application/json"))
		if n == 1 && s.objectForOne {
			json.NewEncoder(w).Encode(rows(1)[0])
			return
		}
		json.NewEncoder(w).Encode(rows(n))
	}
	mux.HandleFunc("/queries", list)
	mux.HandleFunc("/updates", list)
	mux.HandleFunc("/db", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", cmp.Or(s.jsonType, "application/json"))
		json.NewEncoder(w).Encode(rows(1)[0])
	})
	mux.HandleFunc("/fortunes", s.fortunes)
	return s.withHeaders(mux)
}

func (s tfbServer) fortunes(w http.ResponseWriter, r *http.Request) {
	type fortune struct {
		ID      int
		Message string
	}
	var list []fortune
	for id, m := range Fortunes {
		if id != 0 || !s.noAdded {
			list = append(list, fortune{id, m})
		}
	}
	slices.SortFunc(list, func(a, b fortune) int { return strings.Compare(a.Message, b.Message) })
	if s.unsorted {
		slices.SortFunc(list, func(a, b fortune) int { return a.ID - b.ID })
	}
	var b strings.Builder
	if s.unescaped {
		texttemplate.Must(texttemplate.New("f").Parse(fortunesTmpl)).Execute(&b, list)
	} else {
		htmltemplate.Must(htmltemplate.New("f").Parse(fortunesTmpl)).Execute(&b, list)
	}
	switch {
	case s.latin1:
		w.Header().Set("Content-Type", "text/html; charset=iso-8859-1")
		out := make([]byte, 0, b.Len())
		for _, c := range b.String() {
			out = append(out, byte(c)) // what a Latin-1 writer does to what it cannot encode
		}
		w.Write(out)
		return
	case s.noCharset:
		w.Header().Set("Content-Type", "text/html")
	default:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	}
	io.WriteString(w, b.String())
}

func get(t *testing.T, base, path string) Response {
	t.Helper()
	resp, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: body}
}

func rules(ps []Problem) []Rule {
	var out []Rule
	for _, p := range ps {
		if !slices.Contains(out, p.Rule) {
			out = append(out, p.Rule)
		}
	}
	return out
}

// TestCheckTFB asks each server what TFB's verification asks (every test,
// queries and updates at each of QueryCases) and holds the answers to the
// rules: the right server passes every case, each faulty one breaks the
// rule its fault breaks, at the cases where it shows.
func TestCheckTFB(t *testing.T) {
	type ask struct {
		test, queries string
	}
	var asks []ask
	for _, test := range []string{matrix.TFBQueries, matrix.TFBUpdates} {
		for _, q := range []string{"0", "1", "501", "foo", "20"} {
			asks = append(asks, ask{test, q})
		}
	}
	asks = append(asks, ask{matrix.TFBDB, ""}, ask{matrix.TFBFortunes, ""})
	for _, tc := range []struct {
		name string
		srv  tfbServer
		want map[string][]Rule // "test?queries" → the rules broken; absent: none
	}{
		{"right", tfbServer{}, nil},
		{"no clamp", tfbServer{noClamp: true}, map[string][]Rule{
			"queries?0": {RuleCount}, "queries?501": {RuleCount}, "updates?0": {RuleCount}, "updates?501": {RuleCount}}},
		{"no fallback for a non-number", tfbServer{noFallback: true}, map[string][]Rule{
			"queries?foo": {RuleShape}, "updates?foo": {RuleShape}}},
		{"one row as an object", tfbServer{objectForOne: true}, map[string][]Rule{
			"queries?0": {RuleShape}, "queries?1": {RuleShape}, "queries?foo": {RuleShape},
			"updates?0": {RuleShape}, "updates?1": {RuleShape}, "updates?foo": {RuleShape}}},
		{"ids out of range", tfbServer{idOffset: WorldRows}, map[string][]Rule{
			"db?": {RuleRange}, "queries?0": {RuleRange}, "queries?1": {RuleRange}, "queries?501": {RuleRange}, "queries?foo": {RuleRange}, "queries?20": {RuleRange},
			"updates?0": {RuleRange}, "updates?1": {RuleRange}, "updates?501": {RuleRange}, "updates?foo": {RuleRange}, "updates?20": {RuleRange}}},
		{"extra key", tfbServer{extraKey: true}, map[string][]Rule{
			"db?": {RuleKeys}, "queries?0": {RuleKeys}, "queries?1": {RuleKeys}, "queries?501": {RuleKeys}, "queries?foo": {RuleKeys}, "queries?20": {RuleKeys},
			"updates?0": {RuleKeys}, "updates?1": {RuleKeys}, "updates?501": {RuleKeys}, "updates?foo": {RuleKeys}, "updates?20": {RuleKeys}}},
		{"fortunes not escaped", tfbServer{unescaped: true}, map[string][]Rule{"fortunes?": {RuleEscaped, RulePage}}},
		{"no fortune added", tfbServer{noAdded: true}, map[string][]Rule{"fortunes?": {RulePage}}},
		{"fortunes unsorted", tfbServer{unsorted: true}, map[string][]Rule{"fortunes?": {RulePage}}},
		{"fortunes in Latin-1", tfbServer{latin1: true}, map[string][]Rule{"fortunes?": {RuleContentType, RuleUTF8}}},
		{"fortunes without charset", tfbServer{noCharset: true}, map[string][]Rule{"fortunes?": {RuleContentType}}},
		{"no Server header", tfbServer{noServer: true}, onEvery(true, RuleServer)},
		{"no Date header", tfbServer{noDate: true}, onEvery(true, RuleDate)},
		{"Date not an HTTP date", tfbServer{badDate: true}, onEvery(true, RuleDate)},
		{"JSON as text/plain", tfbServer{jsonType: "text/plain"}, onEvery(false, RuleContentType)},
		{"JSON in Latin-1", tfbServer{jsonType: "application/json; charset=iso-8859-1"}, onEvery(false, RuleContentType)},
		{"JSON with charset=UTF-8", tfbServer{jsonType: "application/json; charset=UTF-8"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := httptest.NewServer(tc.srv.handler())
			defer ts.Close()
			for _, a := range asks {
				key := a.test + "?" + a.queries
				path := "/" + a.test
				if a.queries != "" {
					path += "?queries=" + a.queries
				}
				r := get(t, ts.URL, path)
				var got []Rule
				if r.Status != http.StatusOK {
					got = []Rule{RuleShape} // Check fails it on the status; the body is no answer either
				} else {
					got = rules(CheckTFB(matrix.TFB{Test: a.test, Queries: "{queries}"}, r,
						func(s string) string { return strings.ReplaceAll(s, "{queries}", a.queries) }))
				}
				if want := tc.want[key]; !slices.Equal(got, want) {
					t.Errorf("%s: broke %v, want %v", key, got, want)
				}
			}
		})
	}
}

// onEvery is the want of TestCheckTFB for a fault every answer shows (or
// every JSON answer: db, queries, updates, not fortunes): rules r at each
// ask.
func onEvery(fortunes bool, r ...Rule) map[string][]Rule {
	want := map[string][]Rule{"db?": r}
	for _, test := range []string{"queries", "updates"} {
		for _, q := range []string{"0", "1", "501", "foo", "20"} {
			want[test+"?"+q] = r
		}
	}
	if fortunes {
		want["fortunes?"] = r
	}
	return want
}

// TestTFBContentType: the Content-Type values TFB's verification accepts
// for each test (its regular expressions, in verifications.py) pass, and
// the others break the content-type rule.
func TestTFBContentType(t *testing.T) {
	for _, tc := range []struct {
		test, contentType string
		ok                bool
	}{
		{matrix.TFBDB, "application/json", true},
		{matrix.TFBDB, "application/json; charset=utf-8", true},
		{matrix.TFBQueries, "application/json;charset=UTF-8", true},
		{matrix.TFBUpdates, "application/json; charset=utf-8", true},
		{matrix.TFBDB, "application/json; charset=iso-8859-1", false},
		{matrix.TFBDB, "application/json;  charset=utf-8", false},
		{matrix.TFBDB, "text/json", false},
		{matrix.TFBQueries, "text/plain; charset=utf-8", false},
		{matrix.TFBUpdates, "", false},
		{matrix.TFBFortunes, "text/html; charset=utf-8", true},
		{matrix.TFBFortunes, "text/html;charset=UTF-8", true},
		{matrix.TFBFortunes, "text/html", false},
		{matrix.TFBFortunes, `text/html; charset="utf-8"`, false},
		{matrix.TFBFortunes, "text/html; charset=iso-8859-1", false},
		{matrix.TFBFortunes, "application/json", false},
	} {
		h := http.Header{"Server": {"x"}, "Date": {"Wed, 01 May 2024 10:00:00 GMT"}, "Content-Type": {tc.contentType}}
		got := slices.Contains(rules(CheckTFB(matrix.TFB{Test: tc.test, Queries: "1"}, Response{Status: 200, Header: h}, func(s string) string { return s })), RuleContentType)
		if got == tc.ok {
			t.Errorf("%s with Content-Type %q: broke content-type = %v, want %v", tc.test, tc.contentType, got, !tc.ok)
		}
	}
}

// TestTFBDate: a Date in any of HTTP's three date forms passes; one
// missing or in another form breaks the date rule.
func TestTFBDate(t *testing.T) {
	for date, ok := range map[string]bool{
		"Wed, 01 May 2024 10:00:00 GMT":     true,
		"Wednesday, 01-May-24 10:00:00 GMT": true,
		"Wed May  1 10:00:00 2024":          true,
		"":                                  false,
		"2024-05-01T10:00:00Z":              false,
		"Wed, 01 May 2024 10:00:00":         false,
		"1714557600":                        false,
	} {
		h := http.Header{"Server": {"x"}, "Content-Type": {"application/json"}}
		if date != "" {
			h.Set("Date", date)
		}
		got := rules(CheckTFB(matrix.TFB{Test: matrix.TFBDB}, Response{Status: 200, Header: h, Body: []byte(`{"id":1,"randomNumber":2}`)}, nil))
		if want := []Rule{RuleDate}; ok && got != nil || !ok && !slices.Equal(got, want) {
			t.Errorf("Date %q: broke %v, want ok = %v", date, got, ok)
		}
	}
}

func TestClamp(t *testing.T) {
	for q, want := range map[string]int{"0": 1, "1": 1, "20": 20, "500": 500, "501": 500, "-3": 1, "foo": 1, "": 1, "2.5": 1} {
		if got := Clamp(q); got != want {
			t.Errorf("Clamp(%q) = %d, want %d", q, got, want)
		}
	}
}

// tfbFortunesPage is the fortunes page TFB expects, normalised, written out
// here rather than taken from FortunesPage so that a change to the
// production page cannot carry its own expectation: the fortunes sorted by
// message (the one added at request time among them), and the script row
// and the quotes escaped.
const tfbFortunesPage = "<!doctype html><html><head><title>Fortunes</title></head><body><table>" +
	"<tr><th>id</th><th>message</th></tr>" +
	"<tr><td>11</td><td>&lt;script&gt;alert(&quot;This should not be displayed in a browser alert box.&quot;);&lt;/script&gt;</td></tr>" +
	"<tr><td>4</td><td>A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1</td></tr>" +
	"<tr><td>5</td><td>A computer program does what you tell it to do, not what you want it to do.</td></tr>" +
	"<tr><td>2</td><td>A computer scientist is someone who fixes things that aren&apos;t broken.</td></tr>" +
	"<tr><td>8</td><td>A list is only as strong as its weakest link. — Donald Knuth</td></tr>" +
	"<tr><td>0</td><td>Additional fortune added at request time.</td></tr>" +
	"<tr><td>3</td><td>After enough decimal places, nobody gives a damn.</td></tr>" +
	"<tr><td>7</td><td>Any program that runs right is obsolete.</td></tr>" +
	"<tr><td>10</td><td>Computers make very fast, very accurate mistakes.</td></tr>" +
	"<tr><td>6</td><td>Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen</td></tr>" +
	"<tr><td>9</td><td>Feature: A bug with seniority.</td></tr>" +
	"<tr><td>1</td><td>fortune: No such file or directory</td></tr>" +
	"<tr><td>12</td><td>フレームワークのベンチマーク</td></tr>" +
	"</table></body></html>"

// FortunesPage, what Check compares a normalised page with, is TFB's page.
func TestFortunesPage(t *testing.T) {
	if got := FortunesPage(); got != tfbFortunesPage {
		t.Errorf("FortunesPage() =\n%s\nwant\n%s", got, tfbFortunesPage)
	}
}

// TestNormalizeHTML: the escapes and layouts TFB accepts normalise to its
// page; what it does not accept does not.
func TestNormalizeHTML(t *testing.T) {
	want := tfbFortunesPage
	if got := NormalizeHTML([]byte(want)); got != want {
		t.Fatalf("TFB's page normalised is not itself:\n%s", got)
	}
	row2 := "A computer scientist is someone who fixes things that aren&apos;t broken."
	for _, tc := range []struct {
		name, from, to string
		same           bool
	}{
		{"numeric apostrophe", row2, strings.Replace(row2, "&apos;", "&#39;", 1), true},
		{"raw apostrophe", row2, strings.Replace(row2, "&apos;", "'", 1), true},
		{"mdash entity", "weakest link. — Donald", "weakest link. &mdash; Donald", true},
		{"upper-case doctype, attributes, tbody, meta", "<!doctype html><html><head>", `<!DOCTYPE HTML><html lang="en"><head><meta charset="utf-8">`, true},
		{"whitespace between tags", "</tr><tr>", "</tr>\n   <tr>", true},
		{"whitespace inside a cell", "<td>11</td>", "<td> 11</td>", false},
		{"raw script", "&lt;script&gt;alert(&quot;This should not be displayed in a browser alert box.&quot;);&lt;/script&gt;", `<script>alert("This should not be displayed in a browser alert box.");</script>`, false},
		{"ampersand doubly escaped", "&lt;script&gt;", "&amp;lt;script&amp;gt;", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(want, tc.from) {
				t.Fatalf("%q is not in the expected page", tc.from)
			}
			page := strings.Replace(want, tc.from, tc.to, 1)
			if got := NormalizeHTML([]byte(page)) == want; got != tc.same {
				t.Errorf("normalised page equal = %v, want %v:\n%s", got, tc.same, NormalizeHTML([]byte(page)))
			}
		})
	}
}

// TestCheckFortunesReason: Check's reason for an unescaped page names the
// escaping, the fortune sent as markup and its escaped form, then the page
// rule, showing where the page departs.
func TestCheckFortunesReason(t *testing.T) {
	ts := httptest.NewServer(tfbServer{unescaped: true}.handler())
	defer ts.Close()
	e := matrix.Expect{Status: 200, ContentType: "text/html", TFB: &matrix.TFB{Test: matrix.TFBFortunes}}
	problems, _ := Check(e, get(t, ts.URL, "/fortunes"), func(s string) string { return s })
	if len(problems) != 2 || !strings.HasPrefix(problems[0], string(RuleEscaped)+": fortunes: fortune 11 went out unescaped, as markup: \"<script>") ||
		!strings.Contains(problems[0], "(&lt;script&gt;") ||
		!strings.HasPrefix(problems[1], string(RulePage)+": ") || !strings.Contains(problems[1], "&lt;script") {
		t.Errorf("problems %q, want the %s problem naming fortune 11, then the %s problem showing the escaped script expected", problems, RuleEscaped, RulePage)
	}
}

// TestCheckWritten: updates answered with no row of World changed break the
// written rule, naming how many were answered; any row changed, or no
// update answered, breaks nothing.
func TestCheckWritten(t *testing.T) {
	for _, tc := range []struct {
		answered, changed int64
		want              []Rule
	}{
		{1200, 0, []Rule{RuleWritten}},
		{1200, 1, nil},
		{1200, 9000, nil},
		{0, 0, nil},
	} {
		got := CheckWritten(tc.answered, tc.changed)
		if !slices.Equal(rules(got), tc.want) {
			t.Errorf("CheckWritten(%d, %d) = %v, want rules %v", tc.answered, tc.changed, got, tc.want)
		}
		if len(got) > 0 && !strings.Contains(got[0].String(), "answered 1200 update requests") {
			t.Errorf("CheckWritten(%d, %d) = %q, want the count answered", tc.answered, tc.changed, got[0])
		}
	}
}
