// Command server serves the workload scenarios (static-1k, compression,
// compute) honestly but for the one way CHEAT names: "bytes" sends the
// static file with one byte changed, "unasked" gzips json whether asked or
// not, "cached" answers compute with the result of the first a and b it
// was asked, whatever it is asked next. Each should fail its cell's
// verification, naming the rule it broke.
package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
)

func main() {
	cheat := os.Getenv("CHEAT")
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	file := make([]byte, 1024)
	for i := range file {
		file[i] = byte(i % 251)
	}
	if cheat == "bytes" {
		file[512] ^= 0xff
	}
	var once sync.Once
	var cached string
	mux := http.NewServeMux()
	mux.HandleFunc("GET /static/1k.bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(file)
	})
	mux.HandleFunc("GET /json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		body := `{"message":"Hello, World!"}`
		if cheat != "unasked" && !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			fmt.Fprint(w, body)
			return
		}
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write([]byte(body))
		zw.Close()
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(buf.Bytes())
	})
	mux.HandleFunc("GET /compute", func(w http.ResponseWriter, r *http.Request) {
		a, _ := strconv.ParseInt(r.URL.Query().Get("a"), 10, 64)
		b, _ := strconv.ParseInt(r.URL.Query().Get("b"), 10, 64)
		answer := fmt.Sprintf(`{"result":%d}`, a*b+a-b)
		if cheat == "cached" {
			once.Do(func() { cached = answer })
			answer = cached
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, answer)
	})
	fmt.Println("runtime: workload-cheat 1.0 (" + cheat + ")")
	log.Fatal(http.ListenAndServe(":"+port, mux))
}
