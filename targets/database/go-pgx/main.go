// Command server answers TechEmpower's four database tests (db, queries,
// fortunes, updates) with Go's net/http, encoding/json, html/template and
// pgx's connection pool, the way TFB's Go entries do.
//
// The database is the target's "db" service: DB_ADDRS (host:port, set by
// the harness), DB_USER, DB_PASSWORD, DB_NAME (TFB's by default). The pool
// holds POOL_PER_CPU connections per core the harness gave the target
// (CPUS), 4 unless set.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"log"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

const (
	worldRows     = 10000
	maxQueries    = 500
	selectWorld   = "SELECT id, randomnumber FROM World WHERE id = $1"
	updateWorld   = "UPDATE World SET randomnumber = $1 WHERE id = $2"
	selectFortune = "SELECT id, message FROM Fortune"
)

type world struct {
	ID           int32 `json:"id"`
	RandomNumber int32 `json:"randomNumber"`
}

type fortune struct {
	ID      int32
	Message string
}

var fortunesPage = template.Must(template.New("fortunes").Parse(`<!DOCTYPE html>
<html><head><title>Fortunes</title></head><body><table>
<tr><th>id</th><th>message</th></tr>
{{range .}}<tr><td>{{.ID}}</td><td>{{.Message}}</td></tr>
{{end}}</table></body></html>
`))

type server struct{ pool *pgxpool.Pool }

func main() {
	port := cmp.Or(os.Getenv("PORT"), "8080")
	cpus := envInt("CPUS", runtime.GOMAXPROCS(0))
	cfg, err := pgxpool.ParseConfig(dsn())
	if err != nil {
		log.Fatalf("database address: %v", err)
	}
	cfg.MaxConns = int32(cpus * envInt("POOL_PER_CPU", 4))
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		log.Fatalf("database pool: %v", err)
	}
	s := &server{pool: pool}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /db", s.db)
	mux.HandleFunc("GET /queries", s.queries)
	mux.HandleFunc("GET /updates", s.updates)
	mux.HandleFunc("GET /fortunes", s.fortunes)
	// The harness reads this line to record the runtime version.
	fmt.Printf("runtime: %s\n", runtime.Version())
	log.Printf("listening on :%s, database pool of %d connections", port, cfg.MaxConns)
	log.Fatal(http.ListenAndServe(":"+port, mux))
}

// dsn is the pool's connection string from the harness's DB_ADDRS (the
// first replica) and the credentials.
func dsn() string {
	addr, _, _ := strings.Cut(os.Getenv("DB_ADDRS"), ",")
	u := url.URL{Scheme: "postgres", Host: cmp.Or(addr, "localhost:5432"), Path: cmp.Or(os.Getenv("DB_NAME"), "hello_world"),
		User:     url.UserPassword(cmp.Or(os.Getenv("DB_USER"), "benchmarkdbuser"), cmp.Or(os.Getenv("DB_PASSWORD"), "benchmarkdbpass")),
		RawQuery: "sslmode=disable"}
	return u.String()
}

func envInt(key string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(key)); err == nil && n > 0 {
		return n
	}
	return def
}

// count is TFB's queries parameter: 1..500, anything not a number is 1.
func count(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("queries"))
	if err != nil {
		return 1
	}
	return min(max(n, 1), maxQueries)
}

func randomID() int32 { return int32(rand.IntN(worldRows) + 1) }

func (s *server) db(w http.ResponseWriter, r *http.Request) {
	var row world
	if err := s.pool.QueryRow(r.Context(), selectWorld, randomID()).Scan(&row.ID, &row.RandomNumber); err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, row)
}

// read reads n random rows, one query each, as TFB requires.
func (s *server) read(ctx context.Context, n int) ([]world, error) {
	rows := make([]world, n)
	for i := range rows {
		if err := s.pool.QueryRow(ctx, selectWorld, randomID()).Scan(&rows[i].ID, &rows[i].RandomNumber); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

func (s *server) queries(w http.ResponseWriter, r *http.Request) {
	rows, err := s.read(r.Context(), count(r))
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, rows)
}

// updates reads n rows, gives each a new random number and writes them
// back in one batch, in id order so that concurrent batches cannot deadlock.
func (s *server) updates(w http.ResponseWriter, r *http.Request) {
	rows, err := s.read(r.Context(), count(r))
	if err != nil {
		fail(w, err)
		return
	}
	for i := range rows {
		rows[i].RandomNumber = randomID()
	}
	sorted := slices.Clone(rows)
	slices.SortFunc(sorted, func(a, b world) int { return cmp.Compare(a.ID, b.ID) })
	var b pgx.Batch
	for _, row := range sorted {
		b.Queue(updateWorld, row.RandomNumber, row.ID)
	}
	if err := s.pool.SendBatch(r.Context(), &b).Close(); err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, rows)
}

func (s *server) fortunes(w http.ResponseWriter, r *http.Request) {
	rows, err := s.pool.Query(r.Context(), selectFortune)
	if err != nil {
		fail(w, err)
		return
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (fortune, error) {
		var f fortune
		return f, row.Scan(&f.ID, &f.Message)
	})
	if err != nil {
		fail(w, err)
		return
	}
	list = append(list, fortune{Message: "Additional fortune added at request time."})
	slices.SortFunc(list, func(a, b fortune) int { return strings.Compare(a.Message, b.Message) })
	w.Header().Set("Server", "go-pgx")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := fortunesPage.Execute(w, list); err != nil {
		log.Printf("fortunes: %v", err)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Server", "go-pgx")
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// fail answers 500: a database that does not answer must fail verification
// and count as errors under load, never pass as an empty answer.
func fail(w http.ResponseWriter, err error) {
	log.Printf("database: %v", err)
	w.Header().Set("Server", "go-pgx")
	http.Error(w, "database error", http.StatusInternalServerError)
}
