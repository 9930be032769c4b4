// Command server is a test-only database target that reads TFB's tables
// for real and breaks two of TFB's rules that the database itself can
// tell: its fortunes page is rendered with text/template, so the
// <script> fortune goes out unescaped; its updates read the rows and answer
// them with new random numbers but never write them back. It keeps the
// rules the answers alone show (a Server header, among others), so that
// only those two fail it.
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
	"slices"
	"strconv"
	"strings"
	"text/template"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

var page = template.Must(template.New("f").Parse(`<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table>` +
	`<tr><th>id</th><th>message</th></tr>{{range .}}<tr><td>{{.ID}}</td><td>{{.Message}}</td></tr>{{end}}</table></body></html>`))

type fortune struct {
	ID      int32
	Message string
}

type world struct {
	ID           int32 `json:"id"`
	RandomNumber int32 `json:"randomNumber"`
}

func main() {
	addr, _, _ := strings.Cut(os.Getenv("DB_ADDRS"), ",")
	u := url.URL{Scheme: "postgres", Host: addr, Path: "hello_world", User: url.UserPassword("benchmarkdbuser", "benchmarkdbpass"), RawQuery: "sslmode=disable"}
	pool, err := pgxpool.New(context.Background(), u.String())
	if err != nil {
		log.Fatal(err)
	}
	http.HandleFunc("GET /fortunes", func(w http.ResponseWriter, r *http.Request) {
		rows, _ := pool.Query(r.Context(), "SELECT id, message FROM Fortune")
		list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[fortune])
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		list = append(list, fortune{0, "Additional fortune added at request time."})
		slices.SortFunc(list, func(a, b fortune) int { return strings.Compare(a.Message, b.Message) })
		w.Header().Set("Server", "db-faulty")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		page.Execute(w, list)
	})
	http.HandleFunc("GET /updates", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.URL.Query().Get("queries"))
		if err != nil {
			n = 1
		}
		out := make([]world, min(max(n, 1), 500))
		for i := range out {
			if err := pool.QueryRow(r.Context(), "SELECT id, randomnumber FROM World WHERE id = $1", rand.IntN(10000)+1).Scan(&out[i].ID, &out[i].RandomNumber); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			out[i].RandomNumber = int32(rand.IntN(10000) + 1) // answered, never written
		}
		w.Header().Set("Server", "db-faulty")
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	})
	port := cmp.Or(os.Getenv("PORT"), "8080")
	fmt.Println("runtime: db-faulty")
	log.Fatal(http.ListenAndServe(":"+port, nil))
}
