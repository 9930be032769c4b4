// Command server is a test-only database target that never asks a
// database: it answers TFB's db test from rows it made up at start, in the
// right shape, and breaks one of TFB's header rules, chosen by CHEAT:
// no-server sends no Server header; static-date sends one Date for ever.
// Each must fail verification by that rule.
package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"log"
	"math/rand/v2"
	"net/http"
	"os"
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
		if cheat != "no-server" {
			w.Header().Set("Server", "db-cheat")
		}
		if cheat == "static-date" {
			w.Header().Set("Date", "Mon, 07 Dec 2026 12:00:00 GMT")
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(rows[rand.IntN(len(rows))])
	})
	port := cmp.Or(os.Getenv("PORT"), "8080")
	fmt.Println("runtime: db-cheat")
	log.Fatal(http.ListenAndServe(":"+port, nil))
}
