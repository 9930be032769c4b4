// Command server is a test-only database target whose answers are in the
// right shape and break one of TFB's rules, chosen by CHEAT. Two are
// header rules, and the server asks no database: it answers TFB's db test
// from rows it made up at start; no-server sends no Server header,
// static-date sends one Date for ever. Two are rules only the database
// can tell, and the server reads the real World of its db service
// (DB_ADDRS) for TFB's queries test: cached-queries reads World once at
// start and answers from memory; in-select reads a request's rows in one
// select (WHERE id IN (…)), where TFB asks for one select a row. Each must
// fail verification by that rule.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

type world struct {
	ID           int32 `json:"id"`
	RandomNumber int32 `json:"randomNumber"`
}

func main() {
	cheat := os.Getenv("CHEAT")
	rows := make([]world, 10000)
	for i := range rows {
		rows[i] = world{int32(i + 1), int32(rand.IntN(10000) + 1)}
	}
	http.HandleFunc("GET /db", func(w http.ResponseWriter, r *http.Request) {
		if cheat == "static-date" {
			w.Header().Set("Date", "Mon, 07 Dec 2026 12:00:00 GMT")
		}
		writeJSON(w, rows[rand.IntN(len(rows))])
	})
	switch cheat {
	case "cached-queries":
		rows = readWorld(connect())
		http.HandleFunc("GET /queries", func(w http.ResponseWriter, r *http.Request) {
			out := make([]world, count(r))
			for i := range out {
				out[i] = rows[rand.IntN(len(rows))]
			}
			writeJSON(w, out)
		})
	case "in-select":
		pool := connect()
		http.HandleFunc("GET /queries", func(w http.ResponseWriter, r *http.Request) {
			out, err := selectIn(r.Context(), pool, count(r))
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			writeJSON(w, out)
		})
	}
	port := cmp.Or(os.Getenv("PORT"), "8080")
	fmt.Println("runtime: db-cheat")
	log.Fatal(http.ListenAndServe(":"+port, nil))
}

// connect is a pool of the db service's first replica, with TFB's
// credentials.
func connect() *pgxpool.Pool {
	addr, _, _ := strings.Cut(os.Getenv("DB_ADDRS"), ",")
	u := url.URL{Scheme: "postgres", Host: addr, Path: "hello_world", User: url.UserPassword("benchmarkdbuser", "benchmarkdbpass"), RawQuery: "sslmode=disable"}
	pool, err := pgxpool.New(context.Background(), u.String())
	if err != nil {
		log.Fatal(err)
	}
	return pool
}

// readWorld is World whole, read once, asked again for a minute while the
// database does not answer.
func readWorld(pool *pgxpool.Pool) []world {
	for start := time.Now(); ; time.Sleep(200 * time.Millisecond) {
		rows, _ := pool.Query(context.Background(), "SELECT id, randomnumber FROM World")
		all, err := pgx.CollectRows(rows, pgx.RowToStructByPos[world])
		if err == nil {
			return all
		}
		if time.Since(start) > time.Minute {
			log.Fatal(err)
		}
	}
}

// selectIn reads n distinct random rows of World in one select.
func selectIn(ctx context.Context, pool *pgxpool.Pool, n int) ([]world, error) {
	ids := map[int]bool{}
	for len(ids) < n {
		ids[rand.IntN(10000)+1] = true
	}
	args, marks := make([]any, 0, n), make([]string, 0, n)
	for id := range ids {
		args = append(args, id)
		marks = append(marks, "$"+strconv.Itoa(len(args)))
	}
	rows, _ := pool.Query(ctx, "SELECT id, randomnumber FROM World WHERE id IN ("+strings.Join(marks, ", ")+")", args...)
	return pgx.CollectRows(rows, pgx.RowToStructByPos[world])
}

// count is TFB's queries parameter: 1..500, anything not a number is 1.
func count(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("queries"))
	if err != nil {
		return 1
	}
	return min(max(n, 1), 500)
}

// writeJSON answers v, with a Server header unless the cheat is to send
// none.
func writeJSON(w http.ResponseWriter, v any) {
	if os.Getenv("CHEAT") != "no-server" {
		w.Header().Set("Server", "db-cheat")
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
